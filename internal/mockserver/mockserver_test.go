package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	apiToken   = "s3cret-api"
	adminToken = "s3cret-admin"
)

// newMock serves a Server over a fresh Handler with the API token apiToken
// and opts, configured by c, and closes both when the test ends. Unless c
// says otherwise (a negative Max turns them off), namespaces are on, as in
// the command, so that every test shows them changing nothing.
func newMock(t *testing.T, c Config, opts ...plantstoretest.Option) (*httptest.Server, *plantstoretest.Handler) {
	t.Helper()
	if c.Namespaces.Max == 0 {
		c = nsConfig(c, 10)
	}
	h := plantstoretest.NewHandler(append([]plantstoretest.Option{plantstoretest.WithToken(apiToken)}, opts...)...)
	if c.ListenAddr == "" {
		c.ListenAddr = "127.0.0.1:8080"
	}
	s, err := New(h, c)
	if err != nil {
		t.Fatalf("New(%+v) error: %v", c, err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return srv, h
}

// openMock is a mock whose control API is open: loopback, no admin token.
func openMock(t *testing.T, opts ...plantstoretest.Option) (*httptest.Server, *plantstoretest.Handler) {
	t.Helper()
	return newMock(t, Config{Loopback: true}, opts...)
}

// reply is a response, read.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// call sends method path with body (none when nil) and token (none when
// ""), and reads the reply.
func call(t *testing.T, srv *httptest.Server, method, path string, body []byte, token string) reply {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, r)
	if err != nil {
		t.Fatalf("NewRequest(%s %s): %v", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// decode unmarshals a reply's JSON body into a new T, failing the test when
// it is not JSON of that shape.
func decode[T any](tb testing.TB, rep reply) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(rep.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("reply %d %q is not a %T: %v", rep.status, rep.body, v, err)
	}
	if ct := rep.header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("reply Content-Type = %q, want application/json", ct)
	}
	return v
}

// wantError checks that rep is status with an ErrorBody of code whose
// message contains each of msgs.
func wantError(t *testing.T, call string, rep reply, status int, code int32, msgs ...string) {
	t.Helper()
	if rep.status != status {
		t.Errorf("%s status = %d, want %d; body %s", call, rep.status, status, rep.body)
		return
	}
	e := decode[plantstoretest.ErrorBody](t, rep)
	if e.Code != code {
		t.Errorf("%s error code = %d, want %d; message %q", call, e.Code, code, e.Message)
	}
	for _, m := range msgs {
		if !strings.Contains(e.Message, m) {
			t.Errorf("%s message = %q, want it to contain %q", call, e.Message, m)
		}
	}
}

// create posts p to the API with the API token.
func create(t *testing.T, srv *httptest.Server, p plantstore.NewPlant) reply {
	t.Helper()
	b, _ := json.Marshal(p)
	return call(t, srv, http.MethodPost, "/plants", b, apiToken)
}

// everyControlCall lists each method and path the control API serves.
var everyControlCall = []struct{ method, path string }{
	{"GET", "/__plantstore/health"},
	{"GET", "/__plantstore/plants"},
	{"POST", "/__plantstore/plants"},
	{"GET", "/__plantstore/requests"},
	{"DELETE", "/__plantstore/requests"},
	{"POST", "/__plantstore/faults"},
	{"GET", "/__plantstore/faults"},
	{"DELETE", "/__plantstore/faults"},
	{"POST", "/__plantstore/reset"},
	{"GET", "/__plantstore/schedule"},
	{"PUT", "/__plantstore/schedule"},
	{"GET", "/__plantstore/openapi.yaml"},
	{"GET", "/__plantstore/control.openapi.yaml"},
	{"GET", "/__plantstore/namespaces"},
	{"POST", "/__plantstore/namespaces"},
	{"DELETE", "/__plantstore/namespaces/{namespace}"},
}

// goodBody is a valid body for a control call, nil for calls without one.
func goodBody(method, path string) []byte {
	switch {
	case method == "POST" && path == "/__plantstore/plants":
		return []byte(`[{"id": 100, "name": "Seeded"}]`)
	case method == "POST" && path == "/__plantstore/faults":
		return []byte(`{"status": 503}`)
	case method == "PUT" && path == "/__plantstore/schedule":
		return []byte(`{"schedule": "1:503"}`)
	case method == "POST" && path == "/__plantstore/namespaces":
		return []byte(`{"label": "job-1"}`)
	}
	return nil
}

func TestRoutesCoverEveryControlCall(t *testing.T) {
	t.Parallel()
	n := 0
	for _, rt := range routes {
		n++
		found := false
		for _, c := range everyControlCall {
			found = found || (c.method == rt.method && c.path == rt.pattern)
		}
		if !found {
			t.Errorf("routes serves %s %s, which everyControlCall does not list", rt.method, rt.pattern)
		}
	}
	if n != len(everyControlCall) {
		t.Errorf("routes serves %d calls, everyControlCall lists %d", n, len(everyControlCall))
	}
}

func TestAccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		c     Config
		token string
		want  int // status of each control call but health
		code  int32
		msgs  []string
	}{
		{"open on loopback", Config{Loopback: true}, "", 0, 0, nil},
		{"open on loopback ignores credentials", Config{Loopback: true}, "whatever", 0, 0, nil},
		{"off elsewhere", Config{ListenAddr: "0.0.0.0:8080"}, "", 404, plantstoretest.CodeNotFound,
			[]string{"control API is off", "0.0.0.0:8080", "-admin-token", "PLANTSTORE_ADMIN_TOKEN", "Authorization: Bearer"}},
		{"off elsewhere, whatever the token", Config{ListenAddr: "0.0.0.0:8080"}, apiToken, 404, plantstoretest.CodeNotFound, []string{"control API is off"}},
		{"admin token given", Config{AdminToken: adminToken}, adminToken, 0, 0, nil},
		{"admin token given on loopback", Config{AdminToken: adminToken, Loopback: true}, adminToken, 0, 0, nil},
		{"admin token missing", Config{AdminToken: adminToken, Loopback: true}, "", 401, plantstoretest.CodeUnauthorized, []string{"missing Authorization"}},
		{"API token instead of the admin token", Config{AdminToken: adminToken}, apiToken, 401, plantstoretest.CodeUnauthorized, []string{"invalid admin token"}},
		{"admin token with a suffix", Config{AdminToken: adminToken}, adminToken + "x", 401, plantstoretest.CodeUnauthorized, []string{"invalid admin token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range everyControlCall {
				srv, h := newMock(t, tt.c)
				rep := call(t, srv, c.method, c.path, goodBody(c.method, c.path), tt.token)
				call := c.method + " " + c.path
				if c.path == "/__plantstore/health" || tt.want == 0 {
					if strings.HasSuffix(c.path, "{namespace}") && bytes.Contains(rep.body, []byte("no namespace")) {
						continue // past the access rules; no namespace has the id "{namespace}"
					}
					if rep.status >= 300 {
						t.Errorf("%s = %d %s, want success", call, rep.status, rep.body)
					}
					continue
				}
				wantError(t, call, rep, tt.want, tt.code, tt.msgs...)
				if tt.want == 401 && !strings.HasPrefix(rep.header.Get("WWW-Authenticate"), `Bearer realm="plantstore-control"`) {
					t.Errorf("%s WWW-Authenticate = %q, want the control realm", call, rep.header.Get("WWW-Authenticate"))
				}
				if strings.Contains(string(rep.body), tt.token) && tt.token != "" {
					t.Errorf("%s body %s echoes the token", call, rep.body)
				}
				if len(h.Plants()) != 0 || len(h.Faults()) != 0 {
					t.Errorf("%s refused, but changed the state: plants %v, faults %v", call, h.Plants(), h.Faults())
				}
			}
		})
	}
}

func TestAdminTokenNeverOpensTheAPI(t *testing.T) {
	t.Parallel()
	srv, h := newMock(t, Config{AdminToken: adminToken})
	b := []byte(`{"id": 1, "name": "Fern"}`)
	if rep := call(t, srv, "POST", "/plants", b, adminToken); rep.status != http.StatusUnauthorized {
		t.Errorf("POST /plants with the admin token = %d, want 401", rep.status)
	}
	if rep := call(t, srv, "POST", "/plants", b, apiToken); rep.status != http.StatusOK {
		t.Errorf("POST /plants with the API token = %d %s, want 200", rep.status, rep.body)
	}
	if got := len(h.Plants()); got != 1 {
		t.Errorf("stored %d plants, want 1", got)
	}
}

func TestNewRejectsABadAdminToken(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	defer h.Close()
	for _, token := range []string{"has space", "tab\t", "ünicode"} {
		if _, err := New(h, Config{AdminToken: token}); err == nil || strings.Contains(err.Error(), token) {
			t.Errorf("New(AdminToken %q) error = %v, want one that does not quote the token", token, err)
		}
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	defer h.Close()
	tests := []struct {
		c    Config
		want string
	}{
		{Config{Loopback: true}, "is open"},
		{Config{AdminToken: adminToken}, "requires the admin token"},
		{Config{ListenAddr: "[::]:8080"}, "control API is off: plantstore-mock listens on [::]:8080"},
	}
	for _, tt := range tests {
		s, err := New(h, tt.c)
		if err != nil {
			t.Fatalf("New(%+v): %v", tt.c, err)
		}
		if got := s.Status(); !strings.Contains(got, tt.want) || strings.Contains(got, adminToken) {
			t.Errorf("New(%+v).Status() = %q, want it to contain %q and no token", tt.c, got, tt.want)
		}
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	srv, _ := openMock(t)
	tests := []struct {
		method, path string
		status       int
		code         int32
		allow        string
		msg          string
	}{
		{"GET", "/__plantstore/nope", 404, plantstoretest.CodeNotFound, "", `no such control path "/__plantstore/nope"`},
		{"GET", "/__plantstore/", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		{"GET", "/__plantstore", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		{"GET", "/__plantstore/plants/", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		// Paths match as the fake's do: segment by segment, each decoded once.
		{"GET", "/__plantstore%2Fplants", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		{"GET", "/__plantstore/namespaces/", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		{"DELETE", "/__plantstore/namespaces/a/b", 404, plantstoretest.CodeNotFound, "", "no such control path"},
		{"PUT", "/__plantstore/plants", 405, plantstoretest.CodeMethodNotAllowed, "GET, HEAD, POST", "serves GET, HEAD, POST"},
		{"POST", "/__plantstore/health", 405, plantstoretest.CodeMethodNotAllowed, "GET, HEAD", ""},
		{"GET", "/__plantstore/reset", 405, plantstoretest.CodeMethodNotAllowed, "POST", ""},
		{"PATCH", "/__plantstore/faults", 405, plantstoretest.CodeMethodNotAllowed, "DELETE, GET, HEAD, POST", ""},
		{"GET", "/__plantstore/faults?since=1", 400, CodeBadControlRequest, "", `unknown query parameter "since"; /__plantstore/faults takes none`},
		{"GET", "/__plantstore/requests?sinse=1", 400, CodeBadControlRequest, "", `unknown query parameter "sinse"; /__plantstore/requests takes since`},
		{"GET", "/__plantstore/requests?since=1&since=2", 400, CodeBadControlRequest, "", `given 2 times`},
		{"GET", "/__plantstore/requests?since=%zz", 400, CodeBadControlRequest, "", `invalid query string`},
	}
	for _, tt := range tests {
		rep := call(t, srv, tt.method, tt.path, nil, "")
		wantError(t, tt.method+" "+tt.path, rep, tt.status, tt.code, tt.msg)
		if got := rep.header.Get("Allow"); got != tt.allow {
			t.Errorf("%s %s Allow = %q, want %q", tt.method, tt.path, got, tt.allow)
		}
	}
}

func TestHealthAndHead(t *testing.T) {
	t.Parallel()
	srv, _ := newMock(t, Config{AdminToken: adminToken})
	rep := call(t, srv, "GET", "/__plantstore/health", nil, "")
	if rep.status != 200 {
		t.Fatalf("GET health = %d %s, want 200", rep.status, rep.body)
	}
	if diff := cmp.Diff(healthBody{Status: "ok"}, decode[healthBody](t, rep)); diff != "" {
		t.Errorf("GET health body mismatch (-want +got):\n%s", diff)
	}
	if rep := call(t, srv, "HEAD", "/__plantstore/health", nil, ""); rep.status != 200 || len(rep.body) != 0 {
		t.Errorf("HEAD health = %d with %d bytes, want 200 and none", rep.status, len(rep.body))
	}
}

func TestAPIRequestsStillReachTheFake(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	if rep := create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"}); rep.status != 200 {
		t.Fatalf("create = %d %s, want 200", rep.status, rep.body)
	}
	wantError(t, "GET /plantz", call(t, srv, "GET", "/plantz", nil, apiToken), 404, plantstoretest.CodeNotFound)
	call(t, srv, "GET", "/__plantstore/plants", nil, "")
	var paths []string
	for _, r := range h.Requests() {
		paths = append(paths, r.Path)
	}
	if diff := cmp.Diff([]string{"/plants", "/plantz"}, paths); diff != "" {
		t.Errorf("journaled paths mismatch (-want +got), control calls must not be journaled:\n%s", diff)
	}
}
