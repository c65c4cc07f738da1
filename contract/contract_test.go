// Contract tests: openapi.yaml is the contract that both the client and the
// fake in plantstoretest are held to. Every request the client sends must be
// a valid createPlant request, and every response the fake gives must be one
// of the responses createPlant documents, with the documented headers,
// content type and body schema.
//
// The validator is github.com/getkin/kin-openapi (openapi3, openapi3filter
// and routers/legacy). It earns its place because it is maintained, pure Go
// and widely used; it checks the document itself (doc.Validate) as well as
// requests and responses against it: route, security requirements (through
// an AuthenticationFunc), headers, content types and body schemas.
// routers/legacy is used rather than routers/gorillamux because gorillamux
// would add github.com/gorilla/mux to go.mod; legacy needs nothing beyond
// kin-openapi.
//
// Two gaps of kin-openapi v0.135.0 are closed here, narrowly: it checks
// integer formats on the float64 value of a number, so it accepts
// 9223372036854775808 and 1e100 as int64 and 1.0 as an integer, which the
// JSON Schema of OpenAPI 3.0 does not (see checkIntegers); and its legacy
// router matches /plants/ to /plants.
//
// kin-openapi and its dependencies are required by this module's go.mod
// only, never by the root module's, so they reach neither the builds nor
// the go.sum of modules that depend on plantstore-go.

package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// contractFile is the OpenAPI document the tests hold both sides to.
const contractFile = "../openapi.yaml"

// contract is openapi.yaml, loaded and validated, with a router for it.
type contract struct {
	doc    *openapi3.T
	router routers.Router
}

// loadContract loads and validates openapi.yaml. Each test loads its own
// copy, so that parallel tests share nothing.
func loadContract(t *testing.T) *contract {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(contractFile)
	if err != nil {
		t.Fatalf("loading %s: %v", contractFile, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s is not a valid OpenAPI document: %v", contractFile, err)
	}
	// The document's server URL is the "{base_url}" placeholder, which the
	// router cannot match against the fake's http://127.0.0.1:port. Route by
	// path alone, on a copy, so doc stays as written.
	routed := *doc
	routed.Servers = nil
	router, err := legacy.NewRouter(&routed)
	if err != nil {
		t.Fatalf("legacy.NewRouter(%s): %v", contractFile, err)
	}
	return &contract{doc: doc, router: router}
}

// validationOptions are the options of every validation: credentials are
// checked, and a status the operation does not document is an error (by
// default kin-openapi lets it pass).
func validationOptions() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    checkBearer,
		IncludeResponseStatus: true,
	}
}

// checkBearer is the AuthenticationFunc: the document cannot know which
// token is right, so it checks that the request carries exactly one
// Authorization header of the form "Bearer <token>" (scheme matched without
// regard to case, RFC 7235).
func checkBearer(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	scheme := in.SecurityScheme
	if scheme == nil || scheme.Type != "http" || !strings.EqualFold(scheme.Scheme, "bearer") {
		return fmt.Errorf("security scheme %q is not HTTP bearer", in.SecuritySchemeName)
	}
	values := in.RequestValidationInput.Request.Header.Values("Authorization")
	if len(values) != 1 {
		return fmt.Errorf("want one Authorization header, got %d", len(values))
	}
	name, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(name, "Bearer") || strings.TrimSpace(token) == "" {
		return errors.New(`Authorization header is not "Bearer <token>"`)
	}
	return nil
}

// validateRequest finds the operation req is for and validates req, with
// body as its body, against it. The input it returns is what
// validateResponse needs; it is nil when no operation matches req.
func (c *contract) validateRequest(req *http.Request, body []byte) (*openapi3filter.RequestValidationInput, error) {
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		return nil, fmt.Errorf("no operation for %s %s: %w", req.Method, req.URL.Path, err)
	}
	// The router ignores a trailing slash, so the paths, the template's
	// parameters filled in, must be equal.
	path := route.Path
	for name, value := range params {
		path = strings.ReplaceAll(path, "{"+name+"}", value)
	}
	if path != r.URL.Path {
		return nil, fmt.Errorf("no operation for %s %s (the router matched %s)", req.Method, req.URL.Path, route.Path)
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options:    validationOptions(),
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return in, err
	}
	if rb := route.Operation.RequestBody; rb != nil && rb.Value != nil {
		if mt := rb.Value.Content.Get(req.Header.Get("Content-Type")); mt != nil && mt.Schema != nil {
			if err := checkIntegers(mt.Schema.Value, body); err != nil {
				return in, fmt.Errorf("request body: %w", err)
			}
		}
	}
	return in, nil
}

// validateResponse validates a response to the request in against the
// operation in.Route.
func (c *contract) validateResponse(in *openapi3filter.RequestValidationInput, status int, header http.Header, body []byte) error {
	err := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                validationOptions(),
	})
	if err != nil {
		return err
	}
	if ref := in.Route.Operation.Responses.Status(status); ref != nil && ref.Value != nil {
		if mt := ref.Value.Content.Get(header.Get("Content-Type")); mt != nil && mt.Schema != nil {
			if err := checkIntegers(mt.Schema.Value, body); err != nil {
				return fmt.Errorf("response body: %w", err)
			}
		}
	}
	return nil
}

// checkIntegers checks what kin-openapi checks loosely: that every value
// in the JSON document data that schema types as an integer is an integer
// literal (no fraction or exponent, as the JSON Schema of OpenAPI 3.0
// defines an integer) and fits its format, int32 or int64. kin-openapi
// converts numbers to float64 first, so it passes 1.0, 1e3,
// 9223372036854775808 and 1e100 as int64. data must be valid JSON; only its
// first value is checked.
func checkIntegers(schema *openapi3.Schema, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return checkIntegerValue(schema, v, "body")
}

func checkIntegerValue(schema *openapi3.Schema, v any, path string) error {
	if schema == nil {
		return nil
	}
	for _, ref := range schema.AllOf {
		if err := checkIntegerValue(ref.Value, v, path); err != nil {
			return err
		}
	}
	switch v := v.(type) {
	case json.Number:
		if !schema.Type.Is(openapi3.TypeInteger) {
			return nil
		}
		bits := 64
		if schema.Format == "int32" {
			bits = 32
		}
		if strings.ContainsAny(string(v), ".eE") {
			return fmt.Errorf("%s = %s: want an integer without fraction or exponent", path, v)
		}
		if _, err := strconv.ParseInt(string(v), 10, bits); err != nil {
			return fmt.Errorf("%s = %s: integer doesn't match the format \"int%d\"", path, v, bits)
		}
	case map[string]any:
		for name, ref := range schema.Properties {
			if fv, ok := v[name]; ok && ref != nil {
				if err := checkIntegerValue(ref.Value, fv, path+"."+name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// createPlantInput returns the validation input of a valid createPlant
// request, for validating responses that no request produced.
func (c *contract) createPlantInput(t *testing.T) *openapi3filter.RequestValidationInput {
	t.Helper()
	body := []byte(`{"id":1,"name":"Fern"}`)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/plants", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("http.NewRequest: %v", err)
	}
	req.Header = validHeader()
	in, err := c.validateRequest(req, body)
	if err != nil {
		t.Fatalf("validating the control request POST /plants %s: %v", body, err)
	}
	return in
}

// validateErrorBody checks a response that belongs to no operation of the
// document (the fake's 404 and 405): it must be application/json and hold
// exactly one JSON value that is a valid Error.
func (c *contract) validateErrorBody(header http.Header, body []byte) error {
	ct := header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type = %q, want application/json", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // as openapi3filter decodes bodies
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("body has data after the JSON value")
	}
	ref := c.doc.Components.Schemas["Error"]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("%s has no Error schema", contractFile)
	}
	if err := ref.Value.VisitJSON(v, openapi3.VisitAsResponse()); err != nil {
		return err
	}
	return checkIntegers(ref.Value, body)
}

// validHeader returns the headers of a valid create with the fake's default
// token.
func validHeader() http.Header {
	return http.Header{
		"Authorization": {"Bearer " + plantstoretest.DefaultToken},
		"Content-Type":  {"application/json"},
	}
}

// newTransport returns a transport of the test's own whose idle connections
// are closed when the test ends, so that none outlives it.
func newTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// validatingTransport is an http.RoundTripper that validates every request
// it carries, and the response to it, against the contract, and records
// what does not match.
type validatingTransport struct {
	contract *contract
	next     http.RoundTripper

	mu        sync.Mutex
	exchanges int
	problems  []string
}

func (vt *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	call := fmt.Sprintf("%s %s %.100q", req.Method, req.URL.Path, body)
	in, err := vt.contract.validateRequest(req, body)
	if err != nil {
		vt.problem("request %s does not match %s: %v", call, contractFile, err)
	}

	out := req.Clone(req.Context())
	if req.Body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	resp, err := vt.next.RoundTrip(out)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))

	vt.mu.Lock()
	vt.exchanges++
	vt.mu.Unlock()
	if in != nil {
		if err := vt.contract.validateResponse(in, resp.StatusCode, resp.Header, data); err != nil {
			vt.problem("response %d %.200s to %s does not match %s: %v", resp.StatusCode, data, call, contractFile, err)
		}
	}
	return resp, nil
}

func (vt *validatingTransport) problem(format string, args ...any) {
	vt.mu.Lock()
	defer vt.mu.Unlock()
	vt.problems = append(vt.problems, fmt.Sprintf(format, args...))
}

// report fails t with every mismatch vt recorded, and if vt carried a
// number of exchanges other than want, so that a test cannot pass by
// validating nothing.
func (vt *validatingTransport) report(t *testing.T, call string, want int) {
	t.Helper()
	vt.mu.Lock()
	defer vt.mu.Unlock()
	if vt.exchanges != want {
		t.Errorf("%s: validated %d request/response pairs, want %d", call, vt.exchanges, want)
	}
	for _, p := range vt.problems {
		t.Errorf("%s: %s", call, p)
	}
}

// newValidatingClient returns a client for srv whose every request and
// response is validated by the returned transport.
func newValidatingClient(t *testing.T, c *contract, srv *plantstoretest.Server, opts ...plantstore.Option) (*plantstore.Client, *validatingTransport) {
	t.Helper()
	vt := &validatingTransport{contract: c, next: newTransport(t)}
	opts = append([]plantstore.Option{
		plantstore.WithHTTPClient(&http.Client{Transport: vt}),
		plantstore.WithMaxRetries(0),
	}, opts...)
	return srv.Client(opts...), vt
}

func TestContractDocument(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	doc := c.doc

	if got, want := doc.OpenAPI, "3.0.3"; got != want {
		t.Errorf("%s openapi = %q, want %q", contractFile, got, want)
	}
	if got, want := doc.Info.Version, "1.0.0"; got != want {
		t.Errorf("%s info.version = %q, want %q", contractFile, got, want)
	}

	// Exactly one operation: POST /plants.
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, method+" "+path+" "+op.OperationID)
		}
	}
	if want := "POST /plants createPlant"; len(ops) != 1 || ops[0] != want {
		t.Errorf("%s operations = %q, want [%q]", contractFile, ops, want)
	}

	op := doc.Paths.Find("/plants").GetOperation(http.MethodPost)
	if op == nil {
		t.Fatalf("%s has no POST /plants", contractFile)
	}
	if rb := op.RequestBody; rb == nil || rb.Value == nil || !rb.Value.Required || rb.Value.Content.Get("application/json") == nil {
		t.Errorf("%s POST /plants request body = %+v, want a required application/json body", contractFile, rb)
	}
	var statuses []string
	for status := range op.Responses.Map() {
		statuses = append(statuses, status)
	}
	for _, want := range []string{"200", "400", "401"} {
		if op.Responses.Value(want) == nil {
			t.Errorf("%s POST /plants responses = %q, want one for %s", contractFile, statuses, want)
		}
	}

	scheme := doc.Components.SecuritySchemes["bearerAuth"]
	if scheme == nil || scheme.Value == nil || scheme.Value.Type != "http" || scheme.Value.Scheme != "bearer" {
		t.Errorf("%s securitySchemes.bearerAuth = %+v, want type http, scheme bearer", contractFile, scheme)
	}
	for _, reqs := range []*openapi3.SecurityRequirements{&doc.Security, op.Security} {
		if reqs == nil || len(*reqs) != 1 {
			t.Errorf("%s security = %v, want [bearerAuth]", contractFile, reqs)
			continue
		}
		if _, ok := (*reqs)[0]["bearerAuth"]; !ok {
			t.Errorf("%s security = %v, want [bearerAuth]", contractFile, *reqs)
		}
	}

	for name, required := range map[string][]string{
		"Plant": {"name"},
		"Error": {"error", "message"},
	} {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			t.Errorf("%s has no schema %s", contractFile, name)
			continue
		}
		if got := strings.Join(ref.Value.Required, ","); got != strings.Join(required, ",") {
			t.Errorf("%s schema %s required = %q, want %q", contractFile, name, got, required)
		}
	}
}

func TestContractClientRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   plantstore.NewPlant
	}{
		{"name only", plantstore.NewPlant{ID: 1, Name: "Fern"}},
		{"with tag", plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}},
		{"unicode", plantstore.NewPlant{ID: 2, Name: "Grünlilie 🌿 蘭", Tag: "日本"}},
		{"quotes and backslashes", plantstore.NewPlant{ID: 3, Name: `Ficus "Audrey" \ C:\pots`, Tag: `'single'`}},
		{"HTML characters", plantstore.NewPlant{ID: 4, Name: "<b>Rose</b> & Co", Tag: "</script>"}},
		{"control characters", plantstore.NewPlant{ID: 5, Name: "Tab\there\nnewline\u0000nul", Tag: "\u2028"}},
		{"whitespace name", plantstore.NewPlant{ID: 6, Name: " "}},
		{"long name", plantstore.NewPlant{ID: 8, Name: strings.Repeat("Aloe ", 20000)}},
		{"zero id", plantstore.NewPlant{ID: 0, Name: "Zero"}},
		{"negative id", plantstore.NewPlant{ID: -1, Name: "Minus"}},
		{"min int64 id", plantstore.NewPlant{ID: math.MinInt64, Name: "Min"}},
		{"max int64 id", plantstore.NewPlant{ID: math.MaxInt64, Name: "Max"}},
		{"max int32 plus one id", plantstore.NewPlant{ID: math.MaxInt32 + 1, Name: "Big"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadContract(t)
			srv := plantstoretest.NewServer(t)
			client, vt := newValidatingClient(t, c, srv)

			call := fmt.Sprintf("CreatePlant(%.80q)", fmt.Sprintf("%+v", tt.in))
			got, err := client.CreatePlant(context.Background(), tt.in)
			vt.report(t, call, 1)
			if err != nil {
				t.Fatalf("%s error = %v, want nil", call, err)
			}
			if want := (plantstore.Plant{Name: tt.in.Name, Tag: tt.in.Tag}); *got != want {
				t.Errorf("%s = %.80q, want %.80q", call, fmt.Sprintf("%+v", *got), fmt.Sprintf("%+v", want))
			}
		})
	}
}

func TestContractClientErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		srvOpts    []plantstoretest.Option
		clientOpts []plantstore.Option
		seed       bool // create the plant once before the call under test
		wantStatus int
	}{
		{"wrong token", nil, []plantstore.Option{plantstore.WithToken("not-the-token")}, false, http.StatusUnauthorized},
		{"duplicate id", nil, nil, true, http.StatusBadRequest},
		{
			"rule rejects the plant",
			[]plantstoretest.Option{plantstoretest.WithRule(func(plantstore.NewPlant) *plantstoretest.ErrorBody {
				return &plantstoretest.ErrorBody{Code: 4242, Message: "no ferns on Mondays"}
			})},
			nil, false, http.StatusBadRequest,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadContract(t)
			srv := plantstoretest.NewServer(t, tt.srvOpts...)
			client, vt := newValidatingClient(t, c, srv, tt.clientOpts...)

			in := plantstore.NewPlant{ID: 7, Name: "Fern"}
			call := fmt.Sprintf("CreatePlant(%+v)", in)
			wantExchanges := 1
			if tt.seed {
				if _, err := client.CreatePlant(context.Background(), in); err != nil {
					t.Fatalf("seeding: %s error = %v, want nil", call, err)
				}
				wantExchanges++
			}
			_, err := client.CreatePlant(context.Background(), in)
			vt.report(t, call, wantExchanges)
			var apiErr *plantstore.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("%s error = %v, want an *APIError", call, err)
			}
			if apiErr.StatusCode != tt.wantStatus {
				t.Errorf("%s status = %d, want %d", call, apiErr.StatusCode, tt.wantStatus)
			}
		})
	}
}

func TestContractFakeResponses(t *testing.T) {
	t.Parallel()
	const (
		omit   = "(omit)" // as auth or contentType: leave the header out
		fern   = `{"id":1,"name":"Fern"}`
		oneMiB = 1 << 20
	)
	tests := []struct {
		name        string
		srvOpts     []plantstoretest.Option
		seed        bool // store fern before the request
		method      string
		path        string
		auth        string // default "Bearer <DefaultToken>"
		contentType string // default "application/json"
		body        string
		wantStatus  int
		// docAccepts is whether openapi.yaml accepts the request. The fake
		// is stricter than the document where the specification leaves
		// rules open (empty names, repeated ids, trailing data, size), but
		// it must never accept a request the document rejects.
		docAccepts bool
	}{
		// Creates that succeed.
		{name: "valid create", body: fern, wantStatus: 200, docAccepts: true},
		{name: "valid create with tag", body: `{"id":7,"name":"Monstera","tag":"indoor"}`, wantStatus: 200, docAccepts: true},
		{name: "unicode name", body: `{"id":2,"name":"Grünlilie 🌿","tag":"\u65e5\u672c"}`, wantStatus: 200, docAccepts: true},
		{name: "max int64 id", body: `{"id":9223372036854775807,"name":"Max"}`, wantStatus: 200, docAccepts: true},
		{name: "min int64 id", body: `{"id":-9223372036854775808,"name":"Min"}`, wantStatus: 200, docAccepts: true},
		{name: "unknown fields", body: `{"id":1,"name":"Fern","color":"green","pot":{"size":3}}`, wantStatus: 200, docAccepts: true},
		{name: "charset utf-8", contentType: "application/json; charset=utf-8", body: fern, wantStatus: 200, docAccepts: true},
		{name: "lower-case bearer scheme", auth: "bearer " + plantstoretest.DefaultToken, body: fern, wantStatus: 200, docAccepts: true},
		{name: "duplicate id allowed", srvOpts: []plantstoretest.Option{plantstoretest.WithAllowDuplicateIDs()}, seed: true, body: fern, wantStatus: 200, docAccepts: true},

		// Credentials.
		{name: "missing token", auth: omit, body: fern, wantStatus: 401},
		{name: "wrong token", auth: "Bearer wrong-token", body: fern, wantStatus: 401, docAccepts: true},
		{name: "basic scheme", auth: "Basic dXNlcjpwYXNz", body: fern, wantStatus: 401},
		{name: "bearer without token", auth: "Bearer", body: fern, wantStatus: 401},
		{name: "missing token and invalid body", auth: omit, body: `{`, wantStatus: 401},

		// Bodies that are not a NewPlant.
		{name: "invalid JSON", body: `{"id":1,`, wantStatus: 400},
		{name: "empty body", body: "", wantStatus: 400},
		{name: "not an object", body: `[{"id":1,"name":"Fern"}]`, wantStatus: 400},
		{name: "null body", body: `null`, wantStatus: 400},
		{name: "missing name", body: `{"id":1}`, wantStatus: 400},
		{name: "missing id", body: `{"name":"Fern"}`, wantStatus: 400},
		{name: "null name", body: `{"id":1,"name":null}`, wantStatus: 400},
		{name: "null id", body: `{"id":null,"name":"Fern"}`, wantStatus: 400},
		{name: "id as string", body: `{"id":"1","name":"Fern"}`, wantStatus: 400},
		{name: "id with fraction", body: `{"id":1.5,"name":"Fern"}`, wantStatus: 400},
		{name: "id with huge exponent", body: `{"id":1e100,"name":"Fern"}`, wantStatus: 400},
		{name: "id above int64", body: `{"id":9223372036854775808,"name":"Fern"}`, wantStatus: 400},
		{name: "id below int64", body: `{"id":-9223372036854775809,"name":"Fern"}`, wantStatus: 400},
		{name: "id written as 1.0", body: `{"id":1.0,"name":"Fern"}`, wantStatus: 400},
		{name: "id with exponent", body: `{"id":1e3,"name":"Fern"}`, wantStatus: 400},
		{name: "name as number", body: `{"id":1,"name":7}`, wantStatus: 400},
		{name: "tag as number", body: `{"id":1,"name":"Fern","tag":1}`, wantStatus: 400},
		{name: "null tag", body: `{"id":1,"name":"Fern","tag":null}`, wantStatus: 400},
		{name: "deeply nested", body: `{"id":1,"name":"Fern","x":` + strings.Repeat("[", 100000), wantStatus: 400},

		// Bodies the document accepts and the fake rejects, by its own
		// rules for what the specification leaves open.
		{name: "empty name", body: `{"id":1,"name":""}`, wantStatus: 400, docAccepts: true},
		{name: "trailing data", body: fern + ` x`, wantStatus: 400, docAccepts: true},
		{name: "repeated field", body: `{"id":1,"name":"Fern","name":"Ivy"}`, wantStatus: 400, docAccepts: true},
		{name: "invalid UTF-8", body: "{\"id\":1,\"name\":\"F\xffrn\"}", wantStatus: 400, docAccepts: true},
		{name: "unpaired surrogate", body: `{"id":1,"name":"F\ud800rn"}`, wantStatus: 400, docAccepts: true},
		{name: "oversized body", body: `{"id":1,"name":"` + strings.Repeat("a", oneMiB) + `"}`, wantStatus: 400, docAccepts: true},
		{name: "duplicate id", seed: true, body: fern, wantStatus: 400, docAccepts: true},
		{
			name: "rule rejects the plant",
			srvOpts: []plantstoretest.Option{plantstoretest.WithRule(func(plantstore.NewPlant) *plantstoretest.ErrorBody {
				return &plantstoretest.ErrorBody{Code: 4242, Message: "no ferns on Mondays"}
			})},
			body: fern, wantStatus: 400, docAccepts: true,
		},

		// Content types.
		{name: "text/plain content type", contentType: "text/plain", body: fern, wantStatus: 400},
		{name: "missing content type", contentType: omit, body: fern, wantStatus: 400},
		{name: "form content type", contentType: "application/x-www-form-urlencoded", body: "id=1&name=Fern", wantStatus: 400},

		// Outside the operation: the fake's 404 and 405.
		{name: "GET /plants", method: http.MethodGet, wantStatus: 405},
		{name: "PUT /plants", method: http.MethodPut, body: fern, wantStatus: 405},
		{name: "DELETE /plants", method: http.MethodDelete, wantStatus: 405},
		{name: "unknown path", path: "/nowhere", body: fern, wantStatus: 404},
		{name: "trailing slash", path: "/plants/", body: fern, wantStatus: 404},
		{name: "plant by id", method: http.MethodGet, path: "/plants/1", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The zero values of the table mean a valid create.
			method, path, authz, ct := tt.method, tt.path, tt.auth, tt.contentType
			if method == "" {
				method = http.MethodPost
			}
			if path == "" {
				path = "/plants"
			}
			if authz == "" {
				authz = "Bearer " + plantstoretest.DefaultToken
			}
			if ct == "" {
				ct = "application/json"
			}

			c := loadContract(t)
			srv := plantstoretest.NewServer(t, tt.srvOpts...)
			if tt.seed {
				if _, err := srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
					t.Fatalf("seeding the fake: %v", err)
				}
			}
			req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatalf("http.NewRequest(%s, %s): %v", method, path, err)
			}
			if authz != omit {
				req.Header.Set("Authorization", authz)
			}
			if ct != omit {
				req.Header.Set("Content-Type", ct)
			}
			call := fmt.Sprintf("%s %s %.60q", method, path, tt.body)

			in, reqErr := c.validateRequest(req, []byte(tt.body))
			if got := reqErr == nil; got != tt.docAccepts {
				t.Errorf("%s: %s accepts the request = %v (%v), want %v", call, contractFile, got, reqErr, tt.docAccepts)
			}

			resp, err := (&http.Client{Transport: newTransport(t)}).Do(req)
			if err != nil {
				t.Fatalf("%s: %v", call, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("%s: reading the response: %v", call, err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("%s status = %d, want %d (body %.200s)", call, resp.StatusCode, tt.wantStatus, body)
			}
			if resp.StatusCode == http.StatusOK && reqErr != nil {
				t.Errorf("%s: the fake accepted a request %s rejects: %v", call, contractFile, reqErr)
			}

			if in == nil {
				// No operation matches: this is the fake's 404 or 405, which
				// the document does not describe. Its body must still be an
				// Error.
				if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
					t.Errorf("%s status = %d for a request no operation matches, want 404 or 405", call, resp.StatusCode)
				}
				if err := c.validateErrorBody(resp.Header, body); err != nil {
					t.Errorf("%s response %d %.200s is not an Error: %v", call, resp.StatusCode, body, err)
				}
				return
			}
			if err := c.validateResponse(in, resp.StatusCode, resp.Header, body); err != nil {
				t.Errorf("%s response %d %.200s does not match %s: %v", call, resp.StatusCode, body, contractFile, err)
			}
		})
	}
}

// The tests below are negative controls: they show that the validation the
// tests above rely on is live, by feeding it what must be rejected.

func TestContractRejectsBadResponses(t *testing.T) {
	t.Parallel()
	errorHeader := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		name    string
		status  int
		header  http.Header
		body    string
		wantErr string // a part of the validator's message
	}{
		{"error without message", 400, errorHeader, `{"error":1}`, `"message"`},
		{"error without code", 400, errorHeader, `{"message":"bad"}`, `"error"`},
		{"error code as string", 400, errorHeader, `{"error":"1","message":"bad"}`, "integer"},
		{"error code with fraction", 400, errorHeader, `{"error":1.5,"message":"bad"}`, "integer"},
		{"error code beyond int32", 400, errorHeader, `{"error":2147483648,"message":"bad"}`, "int32"},
		{"error code with exponent", 400, errorHeader, `{"error":1e2,"message":"bad"}`, "without fraction or exponent"},
		{"error message as number", 400, errorHeader, `{"error":1,"message":7}`, "string"},
		{"error as array", 400, errorHeader, `[]`, "object"},
		{"error as text", 400, http.Header{"Content-Type": {"text/plain"}}, `bad request`, "Content-Type"},
		{"plant without name", 200, errorHeader, `{"tag":"indoor"}`, `"name"`},
		{"plant name as number", 200, errorHeader, `{"name":7}`, "string"},
		{"plant tag as null", 200, errorHeader, `{"name":"Fern","tag":null}`, "null"},
		{"plant as invalid JSON", 200, errorHeader, `{"name":`, "decode"},
		{"plant without content type", 200, http.Header{}, `{"name":"Fern"}`, "Content-Type"},
		{"401 without WWW-Authenticate", 401, errorHeader, `{"error":6,"message":"invalid token"}`, "WWW-Authenticate"},
		{"415 not in the document", 415, errorHeader, `{"error":3,"message":"bad type"}`, "status is not supported"},
		{"500 not in the document", 500, errorHeader, `{"error":9,"message":"oops"}`, "status is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadContract(t)
			in := c.createPlantInput(t)
			err := c.validateResponse(in, tt.status, tt.header, []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("validateResponse(%d %s) error = %v, want one containing %q", tt.status, tt.body, err, tt.wantErr)
			}
		})
	}
}

func TestContractRejectsBadRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		path    string
		header  http.Header
		body    string
		wantErr string // a part of the validator's message
	}{
		{"no Authorization", "POST", "/plants", http.Header{"Content-Type": {"application/json"}}, `{"id":1,"name":"Fern"}`, "security requirement"},
		{"basic credentials", "POST", "/plants", http.Header{"Content-Type": {"application/json"}, "Authorization": {"Basic dXNlcjpwYXNz"}}, `{"id":1,"name":"Fern"}`, "security requirement"},
		{"no id", "POST", "/plants", validHeader(), `{"name":"Fern"}`, `"id"`},
		{"no name", "POST", "/plants", validHeader(), `{"id":1}`, `"name"`},
		{"id as string", "POST", "/plants", validHeader(), `{"id":"1","name":"Fern"}`, "integer"},
		{"id beyond int64", "POST", "/plants", validHeader(), `{"id":9223372036854775808,"name":"Fern"}`, "int64"},
		{"tag as number", "POST", "/plants", validHeader(), `{"id":1,"name":"Fern","tag":1}`, "string"},
		{"id written as 1.0", "POST", "/plants", validHeader(), `{"id":1.0,"name":"Fern"}`, "without fraction or exponent"},
		{"id with exponent", "POST", "/plants", validHeader(), `{"id":7e0,"name":"Fern"}`, "without fraction or exponent"},
		{"no body", "POST", "/plants", validHeader(), ``, "value is required but missing"},
		{"text/plain", "POST", "/plants", http.Header{"Content-Type": {"text/plain"}, "Authorization": {"Bearer t"}}, `{"id":1,"name":"Fern"}`, "Content-Type"},
		{"GET /plants", "GET", "/plants", validHeader(), ``, "method not allowed"},
		{"POST /plant", "POST", "/plant", validHeader(), `{"id":1,"name":"Fern"}`, "no matching operation"},
		{"POST /plants/", "POST", "/plants/", validHeader(), `{"id":1,"name":"Fern"}`, "no operation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadContract(t)
			req, err := http.NewRequest(tt.method, "http://127.0.0.1"+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatalf("http.NewRequest(%s, %s): %v", tt.method, tt.path, err)
			}
			req.Header = tt.header
			_, err = c.validateRequest(req, []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("validateRequest(%s %s %s) error = %v, want one containing %q", tt.method, tt.path, tt.body, err, tt.wantErr)
			}
		})
	}
}

func TestContractRejectsBadErrorBodies(t *testing.T) {
	t.Parallel()
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		name    string
		header  http.Header
		body    string
		wantErr string // a part of the message
	}{
		{"without message", jsonHeader, `{"error":7}`, `"message"`},
		{"without code", jsonHeader, `{"message":"no such path"}`, `"error"`},
		{"code beyond int32", jsonHeader, `{"error":-2147483649,"message":"x"}`, "int32"},
		{"trailing data", jsonHeader, `{"error":7,"message":"x"} {}`, "after the JSON value"},
		{"not JSON", jsonHeader, `<html>not found</html>`, "not JSON"},
		{"plain text after a number", jsonHeader, `404 page not found`, "after the JSON value"},
		{"code written as 7.0", jsonHeader, `{"error":7.0,"message":"x"}`, "without fraction or exponent"},
		{"text/plain", http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, `{"error":7,"message":"x"}`, "Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := loadContract(t)
			err := c.validateErrorBody(tt.header, []byte(tt.body))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("validateErrorBody(%s) error = %v, want one containing %q", tt.body, err, tt.wantErr)
			}
		})
	}
	// And the control's control: a valid Error passes.
	c := loadContract(t)
	if err := c.validateErrorBody(jsonHeader, []byte(`{"error":7,"message":"no such path"}`)); err != nil {
		t.Errorf("validateErrorBody of a valid Error = %v, want nil", err)
	}
}
