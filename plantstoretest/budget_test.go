package plantstoretest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// wantFull checks that w is the 400 of a full Budget.
func wantFull(t *testing.T, what string, status int, body string) {
	t.Helper()
	var e ErrorBody
	json.Unmarshal([]byte(body), &e)
	if status != http.StatusBadRequest || e.Code != CodeStoreFull || !strings.Contains(e.Message, "WithBudget (plantstore-mock: -max-stored-mib)") {
		t.Errorf("%s with the budget full = %d %s, want 400 with CodeStoreFull naming WithBudget", what, status, body)
	}
}

// TestBudgetBoundsEveryHandler fills two Handlers that share a Budget, by
// each way a Handler keeps something, until it is refused: the Budget is
// never passed, the refusal is CodeStoreFull, and what is refused leaves
// no trace.
func TestBudgetBoundsEveryHandler(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	name := strings.Repeat("n", 1000)
	tests := []struct {
		name string
		opts []Option
		// keep keeps something more in h, the i-th time, and returns the
		// status and body of a refusal, or 0 when it was kept.
		keep func(h *Handler, i int) (int, string)
	}{
		{"creates", nil, func(h *Handler, i int) (int, string) {
			w := serve(h, validHeader(DefaultToken), fmt.Sprintf(`{"id": %d, "name": %q}`, i, name))
			if w.Code == http.StatusOK {
				return 0, ""
			}
			return w.Code, w.Body.String()
		}},
		{"seeds", nil, func(h *Handler, i int) (int, string) {
			var se *SeedError
			err := h.Seed([]plantstore.NewPlant{{ID: int64(2 * i), Name: name}, {ID: int64(2*i + 1), Name: name}})
			if !errors.As(err, &se) {
				return 0, ""
			}
			b, _ := json.Marshal(se.Body)
			return http.StatusBadRequest, string(b)
		}},
		{"faults", nil, func(h *Handler, i int) (int, string) {
			_, err := h.AddFault(Fault{Status: 503, Body: []byte(name), Header: http.Header{"Retry-After": {"1"}}})
			if err == nil {
				return 0, ""
			}
			if !errors.Is(err, ErrStoreFull) || !strings.HasPrefix(err.Error(), "plantstoretest: the store is full: ") {
				t.Errorf("AddFault with the budget full: %v, want ErrStoreFull", err)
			}
			b, _ := json.Marshal(ErrorBody{CodeStoreFull, err.Error()})
			return http.StatusBadRequest, string(b)
		}},
		{"schedules", nil, func(h *Handler, i int) (int, string) {
			// Each replaces the Handler's schedule with a longer one.
			err := h.SetSchedule(longSchedule(50 * (i + 1)))
			if err == nil {
				return 0, ""
			}
			if !errors.Is(err, ErrStoreFull) {
				t.Errorf("SetSchedule with the budget full: %v, want ErrStoreFull", err)
			}
			b, _ := json.Marshal(ErrorBody{CodeStoreFull, err.Error()})
			return http.StatusBadRequest, string(b)
		}},
		{"journal entries", []Option{WithToken("other")}, func(h *Handler, i int) (int, string) {
			// Refused for the token: only the journal keeps anything.
			header := validHeader(DefaultToken)
			header.Set("X-Filler", name)
			w := serve(h, header, `{"id": 1, "name": "x"}`)
			if w.Code == http.StatusUnauthorized {
				return 0, ""
			}
			return w.Code, w.Body.String()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBudget(limit)
			hs := []*Handler{NewHandler(append(tt.opts, WithBudget(b))...), NewHandler(append(tt.opts, WithBudget(b))...)}
			kept, refused := 0, false
			for i := 0; i < 1000 && !refused; i++ {
				h := hs[i%2]
				state := func() string {
					return fmt.Sprint(len(h.Requests()), len(h.Plants()), len(h.Faults()), h.Schedule())
				}
				before := state()
				status, body := tt.keep(h, i)
				if used := b.Used(); used > limit {
					t.Fatalf("after %d kept: Used() = %d, over the limit %d", kept, used, limit)
				}
				if status == 0 {
					kept++
					continue
				}
				refused = true
				wantFull(t, tt.name, status, body)
				if after := state(); after != before {
					t.Errorf("the refusal changed the Handler: requests, plants, faults and schedule %.80s, then %.80s", before, after)
				}
			}
			if !refused || kept < 10 {
				t.Errorf("kept %d, refused %v: want a refusal after at least 10", kept, refused)
			}
		})
	}
}

// TestBudgetGivenBack checks that each way a Handler forgets something
// gives its room back to the Budget.
func TestBudgetGivenBack(t *testing.T) {
	t.Parallel()
	create := func(h *Handler, id int) {
		serve(h, validHeader(DefaultToken), fmt.Sprintf(`{"id": %d, "name": "Fern"}`, id))
	}
	tests := []struct {
		name   string
		opts   []Option
		fill   func(h *Handler)
		forget func(h *Handler)
		same   bool // forget takes as much room as it gives back
	}{
		{"Reset", nil, func(h *Handler) {
			create(h, 1)
			h.AddFault(Fault{Status: 503, Match: func(Request) bool { return false }})
		}, (*Handler).Reset, false},
		{"Close", nil, func(h *Handler) {
			create(h, 1)
			h.AddFault(Fault{Status: 503, Match: func(Request) bool { return false }})
			h.SetSchedule("5:503")
		}, (*Handler).Close, false},
		{"Close, and what is kept after it", nil, func(h *Handler) { create(h, 1) }, func(h *Handler) {
			h.Close()
			create(h, 2)
			h.AddFault(Fault{Status: 503, Match: func(Request) bool { return false }})
			h.Reset()
			create(h, 3)
		}, false},
		{"ClearRequests", []Option{WithMaxPlants(0)}, func(h *Handler) { create(h, 1) }, (*Handler).ClearRequests, false},
		{"ClearFaults", nil, func(h *Handler) { h.AddFault(Fault{Status: 503, Body: []byte("x")}) }, (*Handler).ClearFaults, false},
		{"a schedule replaced", nil, func(h *Handler) { h.SetSchedule("1:503,2:503") }, func(h *Handler) { h.SetSchedule("") }, false},
		{"a schedule replaced by another as long", nil, func(h *Handler) { h.SetSchedule("1:503,2:503") }, func(h *Handler) { h.SetSchedule("3:503,4:503") }, true},
		{"a fault used up", []Option{WithJournalLimit(0)}, func(h *Handler) { h.AddFault(Fault{Status: 503}) }, func(h *Handler) { create(h, 1) }, false},
		{"the journal's limit", []Option{WithJournalLimit(1), WithMaxPlants(0)}, func(h *Handler) { create(h, 1) }, func(h *Handler) { create(h, 2) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewBudget(1 << 20)
			h := NewHandler(append(tt.opts, WithBudget(b))...)
			tt.fill(h)
			before := b.Used()
			tt.forget(h)
			want := int64(0)
			if tt.same {
				want = before
			}
			if before == 0 || b.Used() != want {
				t.Errorf("Used() = %d after filling, %d after %s; want %d", before, b.Used(), tt.name, want)
			}
		})
	}
}

// TestBudgetMatchSeesThePlantWhole checks that counting a journal entry,
// which is cut at the journal's body limit, leaves a Fault's Match the
// plant as it came.
func TestBudgetMatchSeesThePlantWhole(t *testing.T) {
	t.Parallel()
	for _, opts := range [][]Option{nil, {WithBudget(NewBudget(1 << 20))}} {
		h := NewHandler(append(opts, WithJournalBodyLimit(4))...)
		h.AddFault(Fault{Status: 503, Match: func(r Request) bool { return r.Plant.Name == "Monstera" }})
		if w := serve(h, validHeader(DefaultToken), `{"id": 1, "name": "Monstera"}`); w.Code != 503 {
			t.Errorf("with %d options: create = %d %s, want the fault's 503", len(opts)+1, w.Code, w.Body)
		}
		if got := h.Requests()[0].Plant.Name; got != "Mons" {
			t.Errorf("journaled name = %q, want it cut at 4 bytes", got)
		}
	}
}
