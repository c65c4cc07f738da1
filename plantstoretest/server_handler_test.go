package plantstoretest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// TestServerMountedAfterClose: a Server mounted as another server's
// handler stores nothing once closed, as its own listener no longer
// connects: every request gets 503 with CodeClosed.
func TestServerMountedAfterClose(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	front := httptest.NewServer(s)
	defer front.Close()
	create := func(id int) response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, front.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = validHeader(string(s.cfg.token))
		resp, err := front.Client().Do(req)
		if err != nil {
			t.Fatalf("POST /plants to the mounting server: %v", err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return response{status: resp.StatusCode, header: resp.Header, body: b}
	}
	if got := create(1); got.status != http.StatusOK {
		t.Fatalf("create before Close = %d %s, want 200", got.status, got.body)
	}
	s.Close()
	checkError(t, "create after Close", create(2), http.StatusServiceUnavailable, CodeClosed, "closed")
	if diff := cmp.Diff([]plantstore.NewPlant{{ID: 1, Name: "Fern"}}, s.Plants()); diff != "" {
		t.Errorf("Plants() after a create following Close (-want +got):\n%s", diff)
	}
}
