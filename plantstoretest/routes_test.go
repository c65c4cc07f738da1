package plantstoretest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// withRoute adds rt to the route table of one Handler, for tests of an
// operation the specification does not show: the package exports none.
func withRoute(rt route) Option {
	return func(c *config) { c.routes = append(c.routes, rt) }
}

// listPlants is an operation the fake does not serve, GET /plants, which
// lists the stored plants as Plants. It is here to prove that an operation
// with no body that cannot create goes through the same pipeline as
// POST /plants; it is the whole of what a new operation takes.
var listPlants = route{http.MethodGet, "/plants", &operation{
	serve: func(h *Handler, _ plantstore.NewPlant, _ bool) reply {
		out := make([]plantstore.Plant, len(h.plants))
		for i, p := range h.plants {
			out[i] = plantstore.Plant{Name: p.Name, Tag: p.Tag}
		}
		return reply{status: http.StatusOK, result: out}
	},
}}

// authOnly returns the headers of a request without a body, authorised by
// token.
func authOnly(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func TestRouteTableServesASecondOperation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		method, path string
		header       func(token string) http.Header
		body         string
		wantStatus   int
		wantCode     int32 // for an error
		wantMsg      string
		wantAllow    string
	}{
		{name: "list", method: http.MethodGet, path: "/plants", header: authOnly,
			wantStatus: http.StatusOK},
		{name: "create", method: http.MethodPost, path: "/plants", header: validHeader, body: `{"id":2,"name":"Ivy"}`,
			wantStatus: http.StatusOK},
		{name: "list without token", method: http.MethodGet, path: "/plants", header: func(string) http.Header { return http.Header{} },
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized},
		{name: "list with a Content-Type", method: http.MethodGet, path: "/plants", header: validHeader,
			wantStatus: http.StatusBadRequest, wantCode: CodeContentType, wantMsg: "GET /plants takes no body, so no Content-Type header"},
		{name: "list with a body", method: http.MethodGet, path: "/plants", header: authOnly, body: `{}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidJSON, wantMsg: "GET /plants takes no body, got 2 bytes"},
		{name: "another method", method: http.MethodPut, path: "/plants", header: authOnly,
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeMethodNotAllowed, wantMsg: "method PUT is not allowed on /plants; use GET or POST", wantAllow: "GET, POST"},
		{name: "another path", method: http.MethodGet, path: "/plants/1", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no such path "/plants/1"; the API serves POST /plants, GET /plants`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, withRoute(listPlants), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern", Tag: "shade"}))
			call := tt.method + " " + tt.path
			resp := send(t, s, tt.method, tt.path, tt.header(s.token), tt.body)
			if tt.wantStatus != http.StatusOK {
				checkError(t, call, resp, tt.wantStatus, tt.wantCode, tt.wantMsg)
			} else if resp.status != http.StatusOK {
				t.Errorf("%s status = %d, want 200 (body %s)", call, resp.status, resp.body)
			}
			if got := resp.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("%s Allow = %q, want %q", call, got, tt.wantAllow)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("journal has %d entries, want 1", len(reqs))
			}
			if r := reqs[0]; r.Method != tt.method || r.Path != tt.path || r.Status != tt.wantStatus || (r.Invalid == nil) != (tt.wantStatus == http.StatusOK) {
				t.Errorf("journal entry = %s %s, status %d, invalid %v; want %s, status %d, invalid only when not 200",
					r.Method, r.Path, r.Status, r.Invalid, call, tt.wantStatus)
			}
		})
	}
}

// TestRouteTableListsThroughTheClientsWire checks the 200 body of the
// operation without a body, and that it stores nothing.
func TestRouteTableListsThroughTheClientsWire(t *testing.T) {
	t.Parallel()
	s := NewServer(t, withRoute(listPlants), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern", Tag: "shade"}))
	post(t, s, `{"id":2,"name":"Ivy"}`)
	resp := send(t, s, http.MethodGet, "/plants", authOnly(s.token), "")
	checkJSONContentType(t, "GET /plants", resp)
	if got, want := strings.TrimSpace(string(resp.body)), `[{"name":"Fern","tag":"shade"},{"name":"Ivy"}]`; got != want {
		t.Errorf("GET /plants body = %s, want %s", got, want)
	}
	if r := s.Requests()[1]; r.Plant != (plantstore.NewPlant{}) {
		t.Errorf("journal Plant of GET /plants = %+v, want the zero NewPlant: it carries none", r.Plant)
	}
	if n := len(s.Plants()); n != 2 {
		t.Errorf("after GET /plants, %d plants stored, want 2", n)
	}
}

// TestFaultsMatchByMethodAndPath checks that a Fault's Match selects an
// operation by the Request's Method and Path, and that a Fault with Store
// on an operation that cannot create processes it and stores nothing.
func TestFaultsMatchByMethodAndPath(t *testing.T) {
	t.Parallel()
	isList := func(r Request) bool { return r.Method == http.MethodGet && r.Path == "/plants" }
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, withRoute(listPlants))
		s.Inject(Fault{Match: isList, Status: http.StatusServiceUnavailable})
		if resp := post(t, s, `{"id":1,"name":"Fern"}`); resp.status != http.StatusOK {
			t.Errorf("POST /plants status = %d, want 200: the fault matches GET only", resp.status)
		}
		if n := len(s.Faults()); n != 1 {
			t.Fatalf("after POST, %d faults waiting, want 1", n)
		}
		resp := send(t, s, http.MethodGet, "/plants", authOnly(s.token), "")
		checkError(t, "GET /plants", resp, http.StatusServiceUnavailable, CodeFault, "injected fault")
		want := []string{"", "#1 Match, Status 503"}
		var got []string
		for _, r := range s.Requests() {
			got = append(got, r.Fault)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("journal Faults (-want +got):\n%s", diff)
		}
	})
	t.Run("store and drop", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, withRoute(listPlants), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern"}))
		s.Inject(Fault{Match: isList, Store: true, Drop: true})
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL+"/plants", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = authOnly(s.token)
		resp, err := s.ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET /plants under Store and Drop: status %d, want a dropped connection", resp.StatusCode)
		}
		if errors.Is(err, context.Canceled) {
			t.Fatalf("GET /plants: %v, want a dropped connection", err)
		}
		if diff := cmp.Diff([]plantstore.NewPlant{{ID: 1, Name: "Fern"}}, s.Plants()); diff != "" {
			t.Errorf("Plants() after a GET with Store (-want +got):\n%s", diff)
		}
		if r := s.Requests()[0]; r.Outcome != OutcomeDropped || r.Invalid != nil {
			t.Errorf("journal entry: outcome %q, invalid %v; want dropped after passing the checks", r.Outcome, r.Invalid)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, withRoute(listPlants), WithRateLimit(1, 1<<40))
		post(t, s, `{"id":1,"name":"Fern"}`)
		resp := send(t, s, http.MethodGet, "/plants", authOnly(s.token), "")
		checkError(t, "GET /plants", resp, http.StatusTooManyRequests, CodeRateLimited, "")
	})
}
