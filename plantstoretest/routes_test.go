package plantstoretest

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
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

// getPlant is GET /plants/{id}, an operation the specification does not
// show and the fake does not serve: the plant stored under id, or 404. It
// proves that an operation with a path parameter and no body goes through
// the same pipeline as POST /plants; it is the whole of what one takes.
var getPlant = route{http.MethodGet, "/plants/{id}", &operation{
	serve: func(h *Handler, in input, _ bool) reply {
		for _, p := range h.store.plants {
			if strconv.FormatInt(p.ID, 10) == in.values["id"] {
				return reply{status: http.StatusOK, result: &plantstore.Plant{Name: p.Name, Tag: p.Tag}}
			}
		}
		return *refusef(notFound, CodeNotFound, "no plant has id %q", in.values["id"])
	},
}}

// authOnly returns the headers of a request without a body, authorised by
// token.
func authOnly(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

func TestRouteTableServesASecondOperation(t *testing.T) {
	t.Parallel()
	noAuth := func(string) http.Header { return http.Header{} }
	tests := []struct {
		name         string
		method, path string
		header       func(token string) http.Header
		body         string
		wantStatus   int
		wantCode     int32  // for an error
		wantMsg      string // for an error
		wantBody     string // for a 200
		wantAllow    string
		checked      bool // the request passed the checks: Request.Invalid is nil
	}{
		{name: "get", method: http.MethodGet, path: "/plants/1", header: authOnly,
			wantStatus: http.StatusOK, wantBody: `{"name":"Fern","tag":"shade"}`, checked: true},
		{name: "get, the id escaped", method: http.MethodGet, path: "/plants/%31", header: authOnly,
			wantStatus: http.StatusOK, wantBody: `{"name":"Fern","tag":"shade"}`, checked: true},
		{name: "unknown id", method: http.MethodGet, path: "/plants/2", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no plant has id "2"`, checked: true},
		{name: "an escaped slash is in the id", method: http.MethodGet, path: "/plants/1%2Fx", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no plant has id "1/x"`, checked: true},
		{name: "the id is decoded once", method: http.MethodGet, path: "/plants/%2531", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no plant has id "%31"`, checked: true},
		{name: "create", method: http.MethodPost, path: "/plants", header: validHeader, body: `{"id":2,"name":"Ivy"}`,
			wantStatus: http.StatusOK, wantBody: `{"name":"Ivy"}`, checked: true},
		{name: "get without token", method: http.MethodGet, path: "/plants/1", header: noAuth,
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMsg: "missing Authorization header"},
		{name: "unknown id without token", method: http.MethodGet, path: "/plants/2", header: noAuth,
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMsg: "missing Authorization header"},
		{name: "get with a Content-Type", method: http.MethodGet, path: "/plants/1", header: validHeader,
			wantStatus: http.StatusBadRequest, wantCode: CodeContentType, wantMsg: "GET /plants/1 takes no body, so no Content-Type header"},
		{name: "get with a body", method: http.MethodGet, path: "/plants/1", header: authOnly, body: `{}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidJSON, wantMsg: "GET /plants/1 takes no body, got 2 bytes"},
		{name: "another method on an id", method: http.MethodDelete, path: "/plants/1", header: authOnly,
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeMethodNotAllowed, wantMsg: "method DELETE is not allowed on /plants/1; use GET", wantAllow: "GET"},
		{name: "another method on an unknown id", method: http.MethodPost, path: "/plants/2", header: validHeader, body: `{"id":2,"name":"Ivy"}`,
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeMethodNotAllowed, wantMsg: "method POST is not allowed on /plants/2; use GET", wantAllow: "GET"},
		{name: "GET on the collection", method: http.MethodGet, path: "/plants", header: authOnly,
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeMethodNotAllowed, wantMsg: "method GET is not allowed on /plants; use POST", wantAllow: "POST"},
		{name: "empty id", method: http.MethodGet, path: "/plants/", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no such path "/plants/"; the API serves POST /plants, GET /plants/{id}`},
		{name: "a segment too many", method: http.MethodGet, path: "/plants/1/x", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no such path "/plants/1/x"`},
		{name: "a trailing slash", method: http.MethodGet, path: "/plants/1/", header: authOnly,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMsg: `no such path "/plants/1/"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, withRoute(getPlant), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern", Tag: "shade"}))
			call := tt.method + " " + tt.path
			resp := send(t, s, tt.method, tt.path, tt.header(string(s.cfg.token)), tt.body)
			if tt.wantStatus != http.StatusOK {
				checkError(t, call, resp, tt.wantStatus, tt.wantCode, tt.wantMsg)
			} else {
				checkJSONContentType(t, call, resp)
				if got := strings.TrimSpace(string(resp.body)); resp.status != http.StatusOK || got != tt.wantBody {
					t.Errorf("%s = %d %s, want 200 %s", call, resp.status, got, tt.wantBody)
				}
			}
			if got := resp.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("%s Allow = %q, want %q", call, got, tt.wantAllow)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("journal has %d entries, want 1", len(reqs))
			}
			wantPath, err := url.PathUnescape(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if r := reqs[0]; r.Method != tt.method || r.Path != wantPath || r.Status != tt.wantStatus || (r.Invalid == nil) != tt.checked {
				t.Errorf("journal entry = %s %s, status %d, invalid %v; want %s %s, status %d, invalid only if not checked (%v)",
					r.Method, r.Path, r.Status, r.Invalid, tt.method, wantPath, tt.wantStatus, tt.checked)
			}
			if tt.method == http.MethodGet && (reqs[0].Plant != plantstore.NewPlant{} || len(s.Plants()) != 1) {
				t.Errorf("after %s: journal Plant %+v, %d plants stored; want the zero NewPlant and 1: a GET stores nothing",
					call, reqs[0].Plant, len(s.Plants()))
			}
		})
	}
}

// TestFaultsMatchByMethodAndPath checks that a Fault's Match selects an
// operation by the Request's Method and Path, and that a Fault with Store
// on an operation that cannot create processes it and stores nothing.
func TestFaultsMatchByMethodAndPath(t *testing.T) {
	t.Parallel()
	isGet1 := func(r Request) bool { return r.Method == http.MethodGet && r.Path == "/plants/1" }
	t.Run("status", func(t *testing.T) {
		t.Parallel()
		s := NewServer(t, withRoute(getPlant))
		s.Inject(Fault{Match: isGet1, Status: http.StatusServiceUnavailable})
		if resp := post(t, s, `{"id":1,"name":"Fern"}`); resp.status != http.StatusOK {
			t.Errorf("POST /plants status = %d, want 200: the fault matches GET only", resp.status)
		}
		resp := send(t, s, http.MethodGet, "/plants/2", authOnly(string(s.cfg.token)), "")
		checkError(t, "GET /plants/2", resp, http.StatusNotFound, CodeNotFound, `no plant has id "2"`)
		if n := len(s.Faults()); n != 1 {
			t.Fatalf("after POST /plants and GET /plants/2, %d faults waiting, want 1", n)
		}
		resp = send(t, s, http.MethodGet, "/plants/1", authOnly(string(s.cfg.token)), "")
		checkError(t, "GET /plants/1", resp, http.StatusServiceUnavailable, CodeFault, "inject#1: 503")
		want := []string{"", "", "inject#1 3:503 retry-after=none"}
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
		s := NewServer(t, withRoute(getPlant), WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern"}))
		s.Inject(Fault{Match: isGet1, Store: true, Drop: true})
		req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL+"/plants/1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = authOnly(string(s.cfg.token))
		resp, err := s.ts.Client().Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET /plants/1 under Store and Drop: status %d, want a dropped connection", resp.StatusCode)
		}
		if errors.Is(err, context.Canceled) {
			t.Fatalf("GET /plants/1: %v, want a dropped connection", err)
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
		s := NewServer(t, withRoute(getPlant), WithRateLimit(1, 1<<40))
		post(t, s, `{"id":1,"name":"Fern"}`)
		resp := send(t, s, http.MethodGet, "/plants/1", authOnly(string(s.cfg.token)), "")
		checkError(t, "GET /plants/1", resp, http.StatusTooManyRequests, CodeRateLimited, "")
	})
}
