package plantstoretest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
		{"1:500", "", "kind one of 503, 429"},
		{"503", "", "want N:kind"},
		{"1:503,,2:503", "", "want N:kind"},
		{"-1:503", "", "want N:kind"},
		{"1:503,1:drop", "", "request 1 has two faults"},
		{"99999999999:503", "", "want N:kind"},
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
	want := []entry{{http.StatusOK, ""}, {503, "schedule: 2:503"}, {0, "schedule: 3:store-drop"}, {429, "schedule: 1:429"}, {http.StatusOK, ""}}
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
