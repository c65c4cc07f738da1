package plantstoretest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
)

// TestServerForwardsToItsHandler checks that the Handler's methods, which
// a Server has, act on the fake it serves: what one method scripts, the others and the wire see.
func TestServerForwardsToItsHandler(t *testing.T) {
	s := NewServer(t)
	if err := s.Seed([]plantstore.NewPlant{{ID: 1, Name: "Fern"}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SeedJSON([]byte(`[{"id": 2, "name": "Ivy"}]`)); n != 1 || err != nil {
		t.Fatalf("SeedJSON = %d, %v; want 1, nil", n, err)
	}
	if diff := cmp.Diff([]plantstore.NewPlant{{ID: 1, Name: "Fern"}, {ID: 2, Name: "Ivy"}}, s.Plants()); diff != "" {
		t.Errorf("Plants() after Seed and SeedJSON (-want +got):\n%s", diff)
	}
	id, err := s.AddFault(Fault{Status: 503, Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.Inject(Fault{Status: 502})
	if got := s.Faults(); len(got) != 2 || got[0].ID != id || got[0].Left != 2 {
		t.Errorf("Faults() = %+v, want fault #%d with 2 left, then another", got, id)
	}
	if _, err := s.Client(plantstore.WithMaxRetries(3)).CreatePlant(context.Background(), plantstore.NewPlant{ID: 3, Name: "Rose"}); err != nil {
		t.Fatal(err) // 503, 503, 502, then stored
	}
	reqs := s.Requests()
	if len(reqs) != 4 || len(s.RequestsSince(reqs[2].Seq)) != 1 {
		t.Errorf("Requests() has %d entries, RequestsSince the third %d; want 4 and 1", len(reqs), len(s.RequestsSince(reqs[2].Seq)))
	}
	s.Inject(Fault{Status: 503})
	s.ClearFaults()
	s.ClearRequests()
	if len(s.Faults()) != 0 || len(s.Requests()) != 0 {
		t.Errorf("after ClearFaults and ClearRequests: %d faults, %d requests; want none", len(s.Faults()), len(s.Requests()))
	}
	s.Reset()
	if n := len(s.Plants()); n != 0 {
		t.Errorf("after Reset, %d plants, want none", n)
	}
}
