package conformance

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestReferenceIsKept checks what lets runReference keep its reports:
// a fresh reference run gives the same answers as the one before (all a
// run takes of it, in compareWith: its ids and names are its own), and a
// run with the same key gets the kept one, another key a new one.
func TestReferenceIsKept(t *testing.T) {
	target := Target{URL: "http://127.0.0.1:1", Token: plantstoretest.DefaultToken, MaxCreates: 50}
	s, err := target.settings()
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *Report {
		t.Helper()
		references.Lock()
		clear(references.m)
		references.Unlock()
		rep, err := runReference(context.Background(), target, s)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	first, second := fresh(), fresh()
	used := func(r *Report) []CheckResult {
		var out []CheckResult
		for _, c := range r.Checks {
			out = append(out, CheckResult{ID: c.ID, Outcome: c.Outcome, Answer: c.Answer, Problem: c.Problem})
		}
		return out
	}
	if diff := cmp.Diff(used(first), used(second)); diff != "" {
		t.Errorf("two reference runs differ (-first +second):\n%s", diff)
	}
	if again, _ := runReference(context.Background(), target, s); again != second {
		t.Error("a run with the same key made a new reference report, want the kept one")
	}
	other := *s
	other.maxCreates = 60
	otherRep, _ := runReference(context.Background(), target, &other)
	if otherRep == second {
		t.Error("a run with another limit got the kept reference report, want a new one")
	}
	if again, _ := runReference(context.Background(), target, s); again != second {
		t.Error("after a run with another limit, a run with the first key made a new reference report, want the one kept for it")
	}
}
