package plantstoretest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

func TestParseSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, want, err string
	}{
		{"", "", ""},
		{" 3:503 , 1:store-drop,2:goaway", "1:store-drop,2:goaway,3:503", ""},
		{"1:delay,10:store-delay,4:429,5:drop", "1:delay,4:429,5:drop,10:store-delay", ""},
		{"0:503", "", "want N:kind"},
		{"1:600", "", `"600" is no kind`},
		{"1:500 retry-after=2 after=1s,2:store-hang", "1:500 after=1s retry-after=2,2:store-hang", ""},
		{"chaos 7:503, inject#2 9:drop goaway", "", "GoAway goes with a reply"},
		{"chaos 7:503, inject#2 9:store-drop", "7:503,9:store-drop", ""},
		{"1:delay after=1m0s", "1:delay", ""},
		{"503", "", "want N:kind"},
		{"1:503,,2:503", "", "want N:kind"},
		{"-1:503", "", "want N:kind"},
		{"1:503,1:drop", "", "request 1 has two faults"},
		{"99999999999:503", "", "want N:kind"},
		{"3-14:503,1:drop,15-15:store-drop", "1:drop,3-14:503,15:store-drop", ""},
		{"5-3:503", "", "N up to M"},
		{"3-:503", "", "want N:kind or N-M:kind"},
		{"1-3:503,3:drop", "", "request 3 has two faults"},
		{"4:drop,1-9:503", "", "request 4 has two faults"},
	}
	for _, tt := range tests {
		s, err := parseSchedule(tt.text)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("parseSchedule(%q): %v", tt.text, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseSchedule(%q) = %v, want an error containing %q", tt.text, err, tt.err)
		case err == nil && s.String() != tt.want:
			t.Errorf("parseSchedule(%q) = %q, want %q", tt.text, s.String(), tt.want)
		}
	}
}

// TestScheduleByRequestNumber checks that a schedule places its faults on
// the requests it numbers, from a new fake's first request or, after
// SetSchedule, from the next one; and that the journal names them.
func TestScheduleByRequestNumber(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithSchedule("2:503,3:store-drop"))
	t.Cleanup(h.Close)
	send := func(p plantstore.NewPlant) int {
		w := httptest.NewRecorder()
		func() {
			defer func() { _ = recover() }() // a drop panics with http.ErrAbortHandler
			h.ServeHTTP(w, plantRequest(t, p))
		}()
		return w.Code
	}
	send(plantstore.NewPlant{ID: 1, Name: "Fern"})
	send(plantstore.NewPlant{ID: 2, Name: "Ivy"})
	send(plantstore.NewPlant{ID: 2, Name: "Ivy"})
	if err := h.SetSchedule("1:429"); err != nil {
		t.Fatal(err)
	}
	send(plantstore.NewPlant{ID: 3, Name: "Aloe"})
	if err := h.SetSchedule("1:explode"); err == nil {
		t.Error("SetSchedule(1:explode) = nil, want an error")
	}
	send(plantstore.NewPlant{ID: 3, Name: "Aloe"})
	type entry struct {
		Status int
		Fault  string
	}
	var got []entry
	for _, r := range h.Requests() {
		got = append(got, entry{r.Status, r.Fault})
	}
	want := []entry{{http.StatusOK, ""}, {503, "schedule 2:503"}, {0, "schedule 3:store-drop"}, {429, "schedule 4:429"}, {http.StatusOK, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the journal (-want +got):\n%s", diff)
	}
	if n := len(h.Plants()); n != 3 {
		t.Errorf("stored %d plants, want 3 (Fern, Ivy by the store-drop, Aloe)", n)
	}
}

func TestWithScheduleBadTextIsMisuse(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "schedule item") {
			t.Errorf("NewHandler(WithSchedule(\"x\")) panicked with %v, want the schedule's error", r)
		}
	}()
	NewHandler(WithSchedule("x"))
}

// longSchedule is a schedule of n faults, on requests 1 to n.
func longSchedule(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("%d:503", i+1)
	}
	return strings.Join(items, ",")
}

// TestParseScheduleOfManyItems checks that the check for a request given
// two faults does not cost a long schedule the square of its length:
// 100,000 items took 3.5 to 6.9 s then, and take milliseconds now. The
// bound is far from both, so that a busy machine does not fail it.
func TestParseScheduleOfManyItems(t *testing.T) {
	t.Parallel()
	const n = 100_000
	text := longSchedule(n)
	start := time.Now()
	s, err := parseSchedule(text)
	took := time.Since(start)
	if err != nil || len(s) != n {
		t.Fatalf("parseSchedule of %d items = %d items, %v; want %d", n, len(s), err, n)
	}
	t.Logf("parseSchedule of %d items took %v", n, took)
	if took > time.Second {
		t.Errorf("parseSchedule of %d items took %v, want well under a second", n, took)
	}
	_, err = parseSchedule(text + ",77:drop")
	if err == nil || !strings.Contains(err.Error(), "request 77 has two faults") {
		t.Errorf("parseSchedule of %d items and a second fault on request 77 = %v, want an error naming it", n, err)
	}
}

// TestScheduleBound checks the bound on the requests of a test under a
// schedule: its Server's clients fail the test past 1,000 requests after
// the last fault of the schedule in force, counted from where SetSchedule
// placed it, and an empty schedule places no bound.
func TestScheduleBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		with   string // WithSchedule's text
		before int    // requests sent before set, if set is not "-"
		set    string // SetSchedule's text, or "-"
		send   int    // requests to send in all
		want   int    // requests sent when the test fails, or send if it does not
	}{
		{"WithSchedule", "2:503", 0, "-", 1100, 1002},
		{"WithSchedule, empty", "", 0, "-", 1500, 1500},
		{"SetSchedule moves the bound on", "1:503", 0, "1500:503", 2600, 2500},
		{"SetSchedule counts from the next request", "1:503", 10, "5:503", 1100, 1015},
		{"SetSchedule moves the bound back", "1500:503", 0, "1:503", 1100, 1001},
		{"SetSchedule empty ends the bound", "1:503", 3, "", 1500, 1500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &fakeTB{}
			defer tb.cleanup()
			s := NewServer(tb, WithInMemoryNetwork(), WithSchedule(tt.with))
			hc := s.HTTPClient()
			sent := 0
			runFatal(func() {
				for sent < tt.send {
					if sent == tt.before && tt.set != "-" {
						if err := s.SetSchedule(tt.set); err != nil {
							t.Errorf("SetSchedule(%q): %v", tt.set, err)
						}
					}
					resp, err := hc.Get(s.URL + "/plants")
					if err != nil {
						t.Errorf("request %d: %v", sent+1, err)
						return
					}
					resp.Body.Close()
					sent++
				}
			})
			if sent != tt.want {
				t.Errorf("sent %d requests (%s), want %d", sent, tb, tt.want)
			}
			if failed := len(tb.fatals) > 0; failed != (tt.want < tt.send) {
				t.Errorf("the test failed: %v (%s), want %v", failed, tb, tt.want < tt.send)
			}
		})
	}
}

// TestScheduleBudget checks that a schedule is kept within the Handler's
// Budget: it takes its room, gives the room of the schedule it replaces
// back, and one that does not fit is refused, the one in force kept.
func TestScheduleBudget(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	b := NewBudget(limit)
	h := NewHandler(WithBudget(b), WithSchedule("1:503,2:drop,3-9:503"))
	small := b.Used()
	// Its items, and one fault for each kind it names.
	if want := 3*scheduleCost + costOfFault(mustFault("503")) + costOfFault(mustFault("drop")); small != want {
		t.Errorf("Used() = %d under 1:503,2:drop,3-9:503, want %d", small, want)
	}
	if small <= 0 {
		t.Fatalf("Used() = %d under WithSchedule of 2 faults, want more than 0", small)
	}
	if err := h.SetSchedule(longSchedule(1000)); err != nil {
		t.Fatalf("SetSchedule of 1,000 faults: %v", err)
	}
	if used := b.Used(); used < 1000*scheduleCost || used > limit {
		t.Errorf("Used() = %d under 1,000 faults (%d under 2), want %d or more", used, small, 1000*scheduleCost)
	}
	before := b.Used()
	err := h.SetSchedule(longSchedule(limit))
	if !errors.Is(err, ErrStoreFull) || !strings.Contains(err.Error(), "WithBudget (plantstore-mock: -max-stored-mib)") {
		t.Errorf("SetSchedule over the budget: %v, want ErrStoreFull naming WithBudget", err)
	}
	if got := h.Schedule(); got != longSchedule(1000) || b.Used() != before {
		t.Errorf("after a refused schedule: Schedule() = %.40q…, Used() = %d; want the one before, %d", got, b.Used(), before)
	}
	if err := h.SetSchedule(""); err != nil || b.Used() != 0 || h.Schedule() != "" {
		t.Errorf(`SetSchedule(""): %v; Used() = %d, Schedule() = %q; want nil, 0, ""`, err, b.Used(), h.Schedule())
	}
	h.SetSchedule("3:429")
	h.Close()
	if b.Used() != 0 {
		t.Errorf("Used() = %d after Close, want 0", b.Used())
	}

	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "store is full") {
			t.Errorf("NewHandler with a WithSchedule over its budget panicked with %v, want the full store's error", r)
		}
	}()
	NewHandler(WithBudget(NewBudget(10)), WithSchedule("1:503"))
}

// TestScheduleRun checks that a run places its fault on each request from
// its first to its last, and on no other, each journaled by its own Seq.
func TestScheduleRun(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithSchedule("2-4:503,6:429"))
	t.Cleanup(h.Close)
	var got []int
	for i := range 7 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, plantRequest(t, plantstore.NewPlant{ID: int64(i + 1), Name: "Fern"}))
		got = append(got, w.Code)
	}
	if diff := cmp.Diff([]int{200, 503, 503, 503, 200, 429, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	var faults []string
	for _, r := range h.Requests() {
		faults = append(faults, r.Fault)
	}
	want := []string{"", "schedule 2:503", "schedule 3:503", "schedule 4:503", "", "schedule 6:429", ""}
	if diff := cmp.Diff(want, faults); diff != "" {
		t.Errorf("journal Faults (-want +got):\n%s", diff)
	}
	if got := h.Schedule(); got != "2-4:503,6:429" {
		t.Errorf("Schedule() = %q, want the run as one item", got)
	}
}
