// Contract tests of the mock's control API: every control request this file
// sends, and every response the control API gives, is held to the control
// API's own OpenAPI document, internal/mockserver/control.openapi.yaml, as
// contract_test.go holds the client and the fake to openapi.yaml.

package contract

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// controlContractFile is the control API's document.
const controlContractFile = "../internal/mockserver/control.openapi.yaml"

const (
	controlAPIToken   = "contract-api-token"
	controlAdminToken = "contract-admin-token"
)

// loadControlContract loads and validates the control API's document.
func loadControlContract(t *testing.T) *contract {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(controlContractFile)
	if err != nil {
		t.Fatalf("loading %s: %v", controlContractFile, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", controlContractFile, err)
	}
	routed := *doc
	routed.Servers = nil
	router, err := legacy.NewRouter(&routed)
	if err != nil {
		t.Fatalf("legacy.NewRouter(%s): %v", controlContractFile, err)
	}
	return &contract{doc: doc, router: router}
}

// newControlMock serves a mock with the given Config over a fresh Handler.
func newControlMock(t *testing.T, c mockserver.Config) (*httptest.Server, *plantstoretest.Handler) {
	t.Helper()
	h := plantstoretest.NewHandler(plantstoretest.WithToken(controlAPIToken), plantstoretest.WithJournalBodyLimit(mockserver.JournalBodyLimit))
	c.ListenAddr = "192.0.2.1:8080"
	s, err := mockserver.New(h, c)
	if err != nil {
		t.Fatalf("mockserver.New: %v", err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(func() {
		h.Close()
		srv.Close()
	})
	return srv, h
}

// controlCall is one exchange with the control API.
type controlCall struct {
	method, path string
	body         string // none when ""
	// pad sends pad spaces before the body's last byte, as they are
	// read, never held: the same JSON value, which is what the document
	// sees, in a body over a size limit.
	pad   int
	token string // no Authorization when ""
	// header overrides the request's headers (Content-Type included);
	// "Host" sets the request's Host.
	header     map[string]string
	wantStatus int
	// badRequest marks a request the document itself forbids (bad JSON, a
	// wrong type, an unknown field...): the validator must reject it, and
	// the response must still be one the document allows.
	badRequest bool
}

func (cc controlCall) String() string {
	s := cc.method + " " + cc.path
	if cc.body != "" {
		s += " " + truncate(cc.body, 80)
	}
	return s
}

// spaces reads as spaces without end.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// check sends cc to srv and holds the request and the response to c.
func (c *contract) check(t *testing.T, srv *httptest.Server, cc controlCall) {
	t.Helper()
	var body []byte
	if cc.body != "" {
		body = []byte(cc.body)
	}
	req, err := http.NewRequest(cc.method, srv.URL+cc.path, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%v: NewRequest: %v", cc, err)
	}
	if cc.pad > 0 {
		req.ContentLength = int64(len(body) + cc.pad)
		req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body[:len(body)-1]),
			io.LimitReader(spaces{}, int64(cc.pad)), bytes.NewReader(body[len(body)-1:])))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cc.token != "" {
		req.Header.Set("Authorization", "Bearer "+cc.token)
	}
	for k, v := range cc.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	in, reqErr := c.validateRequest(req, body)
	switch {
	case in == nil:
		t.Fatalf("%v: %v", cc, reqErr)
	case cc.badRequest && reqErr == nil:
		t.Errorf("%v: the document accepts this request, want it rejected", cc)
	case !cc.badRequest && reqErr != nil:
		t.Errorf("%v: request does not match %s: %v", cc, controlContractFile, reqErr)
	}
	// A request the document rejects is still routed; validate its response
	// against the same operation, with the security check already done.
	in.Options = &openapi3filter.Options{AuthenticationFunc: checkBearer, IncludeResponseStatus: true}

	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%v: %v", cc, err)
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%v: reading the response: %v", cc, err)
	}
	if resp.StatusCode != cc.wantStatus {
		t.Errorf("%v status = %d, want %d; body %s", cc, resp.StatusCode, cc.wantStatus, truncate(string(respBody), 300))
	}
	validate := c.validateResponse
	if resp.Header.Get("Content-Type") == "application/yaml" {
		validate = validateYAMLResponse // checkIntegers reads JSON only
	}
	if err := validate(in, resp.StatusCode, resp.Header, respBody); err != nil {
		t.Errorf("%v: response %d %s does not match %s: %v", cc, resp.StatusCode, truncate(string(respBody), 300), controlContractFile, err)
	}
}

// validateYAMLResponse validates a response whose body is YAML (the OpenAPI
// documents), which openapi3filter decodes itself.
func validateYAMLResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                in.Options,
	})
}

func TestControlContractDocument(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	var got []string
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			got = append(got, method+" "+path)
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
		}
	}
	sort.Strings(got)
	// The tables of issues 9 and 23: tests outside the repository call these paths.
	want := []string{
		"DELETE /__plantstore/faults",
		"DELETE /__plantstore/namespaces/{namespace}",
		"DELETE /__plantstore/requests",
		"GET /__plantstore/control.openapi.yaml",
		"GET /__plantstore/faults",
		"GET /__plantstore/health",
		"GET /__plantstore/namespaces",
		"GET /__plantstore/openapi.yaml",
		"GET /__plantstore/plants",
		"GET /__plantstore/requests",
		"GET /__plantstore/schedule",
		"POST /__plantstore/faults",
		"POST /__plantstore/namespaces",
		"POST /__plantstore/plants",
		"POST /__plantstore/reset",
		"PUT /__plantstore/schedule",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("operations of %s mismatch (-want +got):\n%s", controlContractFile, diff)
	}
}

// longestSchedule is a schedule of the maxLength the document gives:
// 65,536 characters, a 503 on each request from 1 and spaces to fill.
var longestSchedule = func() string {
	var b strings.Builder
	for i := 1; b.Len()+len(fmt.Sprintf(",%d:503", i)) <= 65536; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d:503", i)
	}
	return b.String() + strings.Repeat(" ", 65536-b.Len())
}()

func TestControlContractOpen(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	srv, h := newControlMock(t, mockserver.Config{Loopback: true})

	// Traffic for the journal: a create, a duplicate, a body that is not
	// UTF-8, a long body, a faulted create, a dropped one.
	post := func(body string) {
		req, _ := http.NewRequest("POST", srv.URL+"/plants", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+controlAPIToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", "contract-1")
		req.Header.Set("X-Retry-Count", "2")
		if resp, err := srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}
	steps := []controlCall{
		{method: "GET", path: "/__plantstore/health", wantStatus: 200},
		{method: "GET", path: "/__plantstore/plants", wantStatus: 200},
		{method: "POST", path: "/__plantstore/plants", body: `[{"id": 1, "name": "Fern", "tag": "shade"}, {"id": 2, "name": "Ivy"}]`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/plants", body: `[]`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/plants", body: `[{"id": 1, "name": "Fern again"}]`, wantStatus: 400},
		{method: "POST", path: "/__plantstore/plants", body: `[{"id": 3, "name": ""}]`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/plants", body: `[{"id": 3}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/plants", body: `{"id": 3, "name": "Aloe"}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/plants", body: "[]", pad: mockserver.MaxSeedBody, wantStatus: 413},
		{method: "GET", path: "/__plantstore/plants", wantStatus: 200},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503, "headers": {"Retry-After": "1", "X-Two": ["a", "b"]}, "body": "busy", "times": 2, "match": {"id": 10, "name": "Rose", "tag": "red"}}`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/faults", body: `{"store": true, "drop": true, "match": {"id": 11}}`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/faults", body: `{"delay": "1ms"}`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503, "match": {"method": "PUT", "path": "/plants"}}`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503, "match": {"path": "plants"}}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/faults", body: `{"hang": true, "drop": true}`, wantStatus: 400},
		{method: "POST", path: "/__plantstore/faults", body: `{"delay": "soon"}`, wantStatus: 400},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": "503"}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/faults", body: `{"statsu": 503}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503, "match": {}}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/faults", body: `{"body": "x"}`, pad: mockserver.MaxFaultBody, wantStatus: 413},
		// What a web page could send: refused, as the document says.
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503}`, header: map[string]string{"Content-Type": "text/plain"}, wantStatus: 415, badRequest: true},
		{method: "POST", path: "/__plantstore/reset", header: map[string]string{"Origin": "http://evil.example"}, wantStatus: 403},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503}`, header: map[string]string{"Host": "rebind.evil.example"}, wantStatus: 403},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": "7:503, 8:store-drop"}`, wantStatus: 204},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": "0:503"}`, wantStatus: 400},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": 1}`, wantStatus: 400, badRequest: true},
		{method: "GET", path: "/__plantstore/schedule", wantStatus: 200},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": "` + longestSchedule + `"}`, wantStatus: 204},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": "` + longestSchedule + ` "}`, wantStatus: 400, badRequest: true},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": ""}`, pad: 1 << 20, wantStatus: 413},
		{method: "PUT", path: "/__plantstore/schedule", body: `{"schedule": ""}`, wantStatus: 204},
		{method: "GET", path: "/__plantstore/schedule", wantStatus: 200},
		{method: "GET", path: "/__plantstore/faults", wantStatus: 200},
		// OpenAPI cannot forbid a query parameter; the description says it is a 400.
		{method: "GET", path: "/__plantstore/faults?since=1", wantStatus: 400},
		{method: "GET", path: "/__plantstore/openapi.yaml", wantStatus: 200},
		{method: "GET", path: "/__plantstore/control.openapi.yaml", wantStatus: 200},
	}
	for _, cc := range steps {
		c.check(t, srv, cc)
	}

	post(`{"id": 10, "name": "Rose", "tag": "red"}`)                                         // the 503
	post(`{"id": 11, "name": "Lily"}`)                                                       // stored, then dropped
	post(`{"id": 12, "name": "Tulip"}`)                                                      // delayed, then 200
	post("\xff\xfe")                                                                         // not UTF-8
	post(`{"id": 13, "name": "` + strings.Repeat("n", 2*mockserver.JournalBodyLimit) + `"}`) // cut in the journal
	post(`{"id": 1, "name": "Fern"}`)                                                        // a duplicate
	if got := len(h.Requests()); got != 6 {
		t.Fatalf("journal holds %d requests, want 6", got)
	}
	for _, cc := range []controlCall{
		{method: "GET", path: "/__plantstore/requests", wantStatus: 200},
		{method: "GET", path: "/__plantstore/requests?since=3", wantStatus: 200},
		{method: "GET", path: "/__plantstore/requests?since=x", wantStatus: 400, badRequest: true},
		{method: "GET", path: "/__plantstore/requests?since=-1", wantStatus: 400, badRequest: true},
		{method: "GET", path: "/__plantstore/faults", wantStatus: 200},
		{method: "DELETE", path: "/__plantstore/requests", wantStatus: 204},
		{method: "DELETE", path: "/__plantstore/requests", body: `{}`, wantStatus: 400},
		{method: "DELETE", path: "/__plantstore/faults", wantStatus: 204},
		{method: "POST", path: "/__plantstore/reset", wantStatus: 204},
		{method: "POST", path: "/__plantstore/reset", body: `{"everything": true}`, wantStatus: 400},
		{method: "GET", path: "/__plantstore/requests", wantStatus: 200},
	} {
		c.check(t, srv, cc)
	}
}

// TestControlContractHeldRequest holds a journal entry whose request is
// still waiting (outcome "held", status 0) to the document.
func TestControlContractHeldRequest(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	srv, h := newControlMock(t, mockserver.Config{Loopback: true})
	c.check(t, srv, controlCall{method: "POST", path: "/__plantstore/faults", body: `{"hang": true}`, wantStatus: 201})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/plants", strings.NewReader(`{"id": 1, "name": "Fern"}`))
		req.Header.Set("Authorization", "Bearer "+controlAPIToken)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	for len(h.Faults()) != 0 { // the hang is taken once the request arrived
		select {
		case <-done:
			t.Fatal("the held request ended before the journal was read")
		default:
		}
		runtime.Gosched()
	}
	c.check(t, srv, controlCall{method: "GET", path: "/__plantstore/requests", wantStatus: 200})
	if got := h.Requests(); len(got) != 1 || got[0].Outcome != plantstoretest.OutcomeHeld {
		t.Errorf("journal = %+v, want one held request", got)
	}
	cancel()
	<-done
}

func TestControlContractAccess(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	operations := []controlCall{
		{method: "GET", path: "/__plantstore/plants"},
		{method: "POST", path: "/__plantstore/plants", body: `[]`},
		{method: "GET", path: "/__plantstore/requests"},
		{method: "DELETE", path: "/__plantstore/requests"},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 500}`},
		{method: "GET", path: "/__plantstore/faults"},
		{method: "DELETE", path: "/__plantstore/faults"},
		{method: "POST", path: "/__plantstore/reset"},
		{method: "GET", path: "/__plantstore/openapi.yaml"},
		{method: "GET", path: "/__plantstore/control.openapi.yaml"},
	}
	tests := []struct {
		name   string
		config mockserver.Config
		token  string
		want   int
	}{
		{"off", mockserver.Config{}, "", 404},
		{"no admin token sent", mockserver.Config{AdminToken: controlAdminToken}, "", 401},
		{"the API token sent", mockserver.Config{AdminToken: controlAdminToken}, controlAPIToken, 401},
		{"the admin token sent", mockserver.Config{AdminToken: controlAdminToken}, controlAdminToken, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := newControlMock(t, tt.config)
			c.check(t, srv, controlCall{method: "GET", path: "/__plantstore/health", token: tt.token, wantStatus: 200})
			for _, op := range operations {
				op.token, op.wantStatus = tt.token, tt.want
				if tt.want == 0 {
					op.wantStatus = map[string]int{"GET": 200, "DELETE": 204, "POST": 201}[op.method]
					if op.path == "/__plantstore/reset" {
						op.wantStatus = 204
					}
				}
				c.check(t, srv, op)
			}
		})
	}
}

// TestControlContractRejectsBadResponses checks that the document is strict
// enough to catch a control API that breaks it.
func TestControlContractRejectsBadResponses(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/__plantstore/health", 200, `{"status": "fine"}`},
		{"GET", "/__plantstore/plants", 200, `[{"name": "no id"}]`},
		{"POST", "/__plantstore/plants", 201, `{"added": -1}`},
		{"POST", "/__plantstore/plants", 200, `{"added": 1}`},
		{"GET", "/__plantstore/requests", 200, `[{"seq": 1}]`},
		{"POST", "/__plantstore/faults", 201, `{"id": 1}`},
		{"GET", "/__plantstore/faults", 200, `[{"id": 1, "status": 0, "headers": {}, "body": null, "delay": "0s", "hang": false, "drop": false, "store": false, "match": null, "times": 1, "left": 1, "extra": 1}]`},
		{"POST", "/__plantstore/reset", 400, `{"error": 100}`},
		{"POST", "/__plantstore/reset", 418, `{"error": 100, "message": "teapot"}`},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, "http://127.0.0.1"+tt.path, nil)
		in, _ := c.validateRequest(req, nil)
		if in == nil {
			t.Fatalf("no route for %s %s", tt.method, tt.path)
		}
		header := http.Header{"Content-Type": {"application/json"}}
		if err := c.validateResponse(in, tt.status, header, []byte(tt.body)); err == nil {
			t.Errorf("%s %s -> %d %s: the document accepts it, want it rejected", tt.method, tt.path, tt.status, tt.body)
		}
	}
}

// The control document and the served one are the same bytes.
func TestControlContractIsServed(t *testing.T) {
	t.Parallel()
	srv, _ := newControlMock(t, mockserver.Config{Loopback: true})
	resp, err := srv.Client().Get(srv.URL + "/__plantstore/control.openapi.yaml")
	if err != nil {
		t.Fatalf("GET control.openapi.yaml: %v", err)
	}
	defer resp.Body.Close()
	served, _ := io.ReadAll(resp.Body)
	onDisk, err := os.ReadFile(controlContractFile)
	if err != nil {
		t.Fatalf("reading %s: %v", controlContractFile, err)
	}
	if !bytes.Equal(served, onDisk) {
		t.Errorf("served control.openapi.yaml (%d bytes) differs from %s (%d bytes)", len(served), controlContractFile, len(onDisk))
	}
}
