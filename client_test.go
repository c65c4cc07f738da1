package plantstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
	"go.uber.org/goleak"
)

// TestMain fails the run if any goroutine outlives the tests: a leaked
// connection, a retry still sleeping, a body never closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const testToken = "s3cr3t-t0ken"

// reply is one scripted response of a stubServer.
type reply struct {
	status int
	header map[string]string
	body   string
	drop   bool // close the connection instead of answering
}

// seen is a request as a stubServer received it.
type seen struct {
	method, path string
	header       http.Header
	body         string
}

// stubServer answers requests with scripted replies, in order, and with the
// last reply once the script runs out. It records what it received and how
// many connections were opened.
type stubServer struct {
	*httptest.Server
	mu      sync.Mutex
	script  []reply
	reqs    []seen
	newConn atomic.Int32
}

func newStubServer(t *testing.T, script ...reply) *stubServer {
	t.Helper()
	s := &stubServer{script: script}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.newConn.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *stubServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, seen{r.Method, r.URL.Path, r.Header.Clone(), string(body)})
	rep := reply{status: http.StatusOK, body: `{"name":"Monstera"}`}
	if len(s.script) > 0 {
		rep = s.script[0]
		if len(s.script) > 1 {
			s.script = s.script[1:]
		}
	}
	s.mu.Unlock()
	if rep.drop {
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func (s *stubServer) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.reqs...)
}

// newTestClient returns a client for url with the test token and backoff
// short enough for tests; opts come last and win.
func newTestClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	base := []Option{WithToken(testToken), WithRetryBackoff(time.Millisecond, 2*time.Millisecond)}
	c, err := NewClient(url, append(base, opts...)...)
	if err != nil {
		t.Fatalf("NewClient(%q) error: %v", url, err)
	}
	return c
}

var monstera = NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}

func TestCreatePlantRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		suffix   string // appended to the server URL to form the base URL
		plant    NewPlant
		wantPath string
		wantBody string
	}{
		{"bare host", "", monstera, "/plants", `{"id":7,"name":"Monstera","tag":"indoor"}`},
		{"trailing slash", "/", monstera, "/plants", `{"id":7,"name":"Monstera","tag":"indoor"}`},
		{"path prefix", "/api", monstera, "/api/plants", `{"id":7,"name":"Monstera","tag":"indoor"}`},
		{"path prefix with slash", "/api/v1/", monstera, "/api/v1/plants", `{"id":7,"name":"Monstera","tag":"indoor"}`},
		{"no tag", "", NewPlant{ID: -1, Name: "Fern"}, "/plants", `{"id":-1,"name":"Fern"}`},
		{"zero id", "", NewPlant{Name: "Fern"}, "/plants", `{"id":0,"name":"Fern"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			c := newTestClient(t, srv.URL+tt.suffix)
			if _, err := c.CreatePlant(context.Background(), tt.plant); err != nil {
				t.Fatalf("CreatePlant(%+v) error: %v", tt.plant, err)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("server saw %d requests, want 1", len(reqs))
			}
			got := reqs[0]
			want := map[string]string{
				"Content-Type":  "application/json",
				"Accept":        "application/json",
				"Authorization": "Bearer " + testToken,
				"User-Agent":    "plantstore-go/" + version,
			}
			for k, v := range want {
				if got.header.Get(k) != v {
					t.Errorf("CreatePlant(%+v) header %s = %q, want %q", tt.plant, k, got.header.Get(k), v)
				}
			}
			if got.method != http.MethodPost || got.path != tt.wantPath {
				t.Errorf("CreatePlant(%+v) sent %s %s, want POST %s", tt.plant, got.method, got.path, tt.wantPath)
			}
			if got.body != tt.wantBody {
				t.Errorf("CreatePlant(%+v) body = %s, want %s", tt.plant, got.body, tt.wantBody)
			}
		})
	}
}

func TestCreatePlantSameBytesOnEveryAttempt(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t,
		reply{status: http.StatusServiceUnavailable},
		reply{drop: true},
		reply{status: http.StatusOK, body: `{"name":"Monstera"}`})
	c := newTestClient(t, srv.URL)
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if r.body != reqs[0].body || r.header.Get("Authorization") != "Bearer "+testToken {
			t.Errorf("attempt %d sent body %s auth %q, want body %s and the token", i+1, r.body, r.header.Get("Authorization"), reqs[0].body)
		}
	}
}

func TestNewClientErrors(t *testing.T) {
	t.Parallel()
	tok := WithToken(testToken)
	tests := []struct {
		name    string
		baseURL string
		opts    []Option
		want    string // a fragment of the error
	}{
		{"empty URL", "", []Option{tok}, "base URL must not be empty"},
		{"malformed URL", "http://[::1", []Option{tok}, "invalid base URL"},
		{"unsupported scheme", "ftp://plants.example.com", []Option{tok}, "scheme must be http or https"},
		{"credentials without a scheme", "admin:pa55@plants.example.com", []Option{tok}, "scheme must be http or https"},
		{"bad escape in a password", "https://admin:pa55%zz@plants.example.com", []Option{tok}, "invalid base URL"},
		{"missing scheme", "plants.example.com/api", []Option{tok}, "scheme must be http or https"},
		{"no host", "https:///plants", []Option{tok}, "has no host"},
		{"trailing space", "https://plants.example.com/api ", []Option{tok}, "base URL has a space at byte 30"},
		{"leading newline", "\nhttps://plants.example.com", []Option{tok}, "base URL has a space at byte 0"},
		{"space in the path", "https://plants.example.com/my api", []Option{tok}, "base URL has a space at byte 29"},
		{"port too large", "http://127.0.0.1:99999", []Option{tok}, "port must be 1 to 65535"},
		{"port 0", "https://plants.example.com:0/api", []Option{tok}, "port must be 1 to 65535"},
		{"port with leading zeros too large", "https://plants.example.com:065536", []Option{tok}, "port must be 1 to 65535"},
		{"user info", "https://user:pa55@plants.example.com", []Option{tok}, "must not contain user info"},
		{"query", "https://plants.example.com?x=1", []Option{tok}, "must not have a query"},
		{"fragment", "https://plants.example.com#top", []Option{tok}, "must not have a fragment"},
		{"no credentials", "https://plants.example.com", nil, "no credentials"},
		{"transport auth without an HTTP client", "https://plants.example.com", []Option{WithTransportAuth()}, "WithTransportAuth needs WithHTTPClient"},
		{"transport auth and a token", "https://plants.example.com", []Option{tok, WithHTTPClient(http.DefaultClient), WithTransportAuth()}, "alternatives"},
		{"transport auth over plain http", "http://plants.example.com", []Option{WithHTTPClient(http.DefaultClient), WithTransportAuth()}, "refusing to send a bearer token over plain http"},
		{"plain http to remote host", "http://plants.example.com", []Option{tok}, "refusing to send a bearer token over plain http"},
		{"empty token", "https://plants.example.com", []Option{WithToken("")}, "token must not be empty"},
		{"token with space", "https://plants.example.com", []Option{WithToken("s3cr3t t0ken")}, "token has an invalid character at byte 6"},
		{"token with newline", "https://plants.example.com", []Option{WithToken("s3cr3t\nx")}, "token has an invalid character"},
		{"nil token func", "https://plants.example.com", []Option{WithTokenFunc(nil)}, "token func must not be nil"},
		{"nil HTTP client", "https://plants.example.com", []Option{tok, WithHTTPClient(nil)}, "HTTP client must not be nil"},
		{"negative retries", "https://plants.example.com", []Option{tok, WithMaxRetries(-1)}, "max retries must not be negative"},
		{"negative backoff", "https://plants.example.com", []Option{tok, WithRetryBackoff(-time.Second, time.Second)}, "retry backoff"},
		{"backoff max below base", "https://plants.example.com", []Option{tok, WithRetryBackoff(2*time.Second, time.Second)}, "retry backoff"},
		{"negative retry-after cap", "https://plants.example.com", []Option{tok, WithMaxRetryAfter(-1)}, "max retry-after must not be negative"},
		{"nil option", "https://plants.example.com", []Option{tok, nil}, "nil option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(tt.baseURL, tt.opts...)
			if err == nil {
				t.Fatalf("NewClient(%q) = %v, want an error containing %q", tt.baseURL, c, tt.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "plantstore: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("NewClient(%q) error = %q, want it to start with %q and contain %q", tt.baseURL, msg, "plantstore: ", tt.want)
			}
			for _, secret := range []string{testToken, "s3cr3t", "pa55", "admin"} {
				if strings.Contains(msg, secret) {
					t.Errorf("NewClient(%q) error = %q, which leaks %q", tt.baseURL, msg, secret)
				}
			}
		})
	}
}

func TestNewClientAccepts(t *testing.T) {
	t.Parallel()
	tok := WithToken(testToken)
	tests := []struct {
		name    string
		baseURL string
		opts    []Option
	}{
		{"https", "https://plants.example.com", []Option{tok}},
		{"http to localhost", "http://localhost:8080/api", []Option{tok}},
		{"http to 127.0.0.2", "http://127.0.0.2:8080", []Option{tok}},
		{"http to ::1", "http://[::1]:8080", []Option{tok}},
		{"http with opt-in", "http://plants.internal", []Option{tok, WithInsecureHTTP()}},
		{"token func", "https://plants.example.com", []Option{WithTokenFunc(func(context.Context) (string, error) { return "t", nil })}},
		{"zero retries and waits", "https://plants.example.com", []Option{tok, WithMaxRetries(0), WithRetryBackoff(0, 0), WithMaxRetryAfter(0)}},
		{"nil logger", "https://plants.example.com", []Option{tok, WithLogger(nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := NewClient(tt.baseURL, tt.opts...); err != nil {
				t.Errorf("NewClient(%q) error: %v, want none", tt.baseURL, err)
			}
		})
	}
}

func TestCreatePlantValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plant NewPlant
		want  *ValidationError
	}{
		{"empty name", NewPlant{ID: 1, Tag: "x"}, &ValidationError{Field: "name", Reason: "is required"}},
		{"name not UTF-8", NewPlant{ID: 1, Name: "Mon\xffstera"}, &ValidationError{Field: "name", Reason: "is not valid UTF-8"}},
		{"tag not UTF-8", NewPlant{ID: 1, Name: "Monstera", Tag: "\xc3"}, &ValidationError{Field: "tag", Reason: "is not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			c := newTestClient(t, srv.URL)
			_, err := c.CreatePlant(context.Background(), tt.plant)
			var got *ValidationError
			if !errors.As(err, &got) {
				t.Fatalf("CreatePlant(%+v) error = %v, want a *ValidationError", tt.plant, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CreatePlant(%+v) error mismatch (-want +got):\n%s", tt.plant, diff)
			}
			if !errors.Is(err, ErrInvalidPlant) {
				t.Errorf("errors.Is(%v, ErrInvalidPlant) = false, want true", err)
			}
			if n := len(srv.requests()); n != 0 {
				t.Errorf("CreatePlant(%+v) sent %d requests, want 0", tt.plant, n)
			}
		})
	}
}

func TestCreatePlantSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want *Plant
	}{
		{"name and tag", `{"name":"Monstera","tag":"indoor"}`, &Plant{Name: "Monstera", Tag: "indoor"}},
		{"name only", `{"name":"Monstera"}`, &Plant{Name: "Monstera"}},
		{"unknown fields ignored", `{"name":"Monstera","id":7,"color":{"leaf":"green"}}`, &Plant{Name: "Monstera"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: http.StatusOK, body: tt.body})
			got, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			if err != nil {
				t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CreatePlant(%+v) mismatch (-want +got):\n%s", monstera, diff)
			}
		})
	}
}

func TestCreatePlantUnreadableSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want []string // fragments of the error
	}{
		{"HTML", "<html><body>Welcome to nginx</body></html>", []string{"decode response", "Welcome to nginx"}},
		{"truncated JSON", `{"name":"Mon`, []string{"decode response", "unexpected end of JSON input", `{\"name\":\"Mon`}},
		{"missing name", `{"tag":"indoor"}`, []string{"response has no plant name", `{\"tag\":\"indoor\"}`}},
		{"null name", `{"name":null}`, []string{"response has no plant name"}},
		{"empty body", ``, []string{"decode response", "unexpected end of JSON input"}},
		{"long body is quoted short", `<p>` + strings.Repeat("x", 5000), []string{"decode response", "<p>xxx", "…"}},
		{"text after many blank lines", strings.Repeat("\n", 300) + "\x00\t<html>maintenance", []string{"decode response", "<html>maintenance"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: http.StatusOK, body: tt.body})
			p, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			if err == nil {
				t.Fatalf("CreatePlant(%+v) = %+v, want an error", monstera, p)
			}
			msg := err.Error()
			for _, w := range append(tt.want, "plantstore: create plant: ") {
				if !strings.Contains(msg, w) {
					t.Errorf("CreatePlant(%+v) error = %q, want it to contain %q", monstera, msg, w)
				}
			}
			if len(msg) > 600 {
				t.Errorf("CreatePlant(%+v) error is %d bytes long, want a short snippet", monstera, len(msg))
			}
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				t.Errorf("CreatePlant(%+v) error is an *APIError for a 200", monstera)
			}
			if !errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = false; a 200 means the plant was stored", err)
			}
		})
	}
}

func TestCreatePlantAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   reply
		want    *APIError
		wantMsg string
		is      []error
		isNot   []error
	}{
		{
			name:    "400 Error body",
			reply:   reply{status: 400, body: `{"error":3,"message":"name is required"}`},
			want:    &APIError{StatusCode: 400, Code: 3, Message: "name is required", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: name is required (error 3)",
			isNot:   []error{ErrUnauthorized, ErrServer, ErrMaybeCreated, ErrRateLimited},
		},
		{
			name:    "401",
			reply:   reply{status: 401, body: `{"error":16,"message":"bad token"}`},
			want:    &APIError{StatusCode: 401, Code: 16, Message: "bad token", Attempts: 1},
			wantMsg: "plantstore: create plant: 401 Unauthorized: bad token (error 16)",
			is:      []error{ErrUnauthorized},
			isNot:   []error{ErrForbidden, ErrMaybeCreated},
		},
		{
			name:    "403 empty body",
			reply:   reply{status: 403},
			want:    &APIError{StatusCode: 403, Attempts: 1},
			wantMsg: "plantstore: create plant: 403 Forbidden",
			is:      []error{ErrForbidden},
		},
		{
			name:    "404 HTML from a proxy",
			reply:   reply{status: 404, header: map[string]string{"Content-Type": "text/html"}, body: "<h1>Not Found</h1>\n"},
			want:    &APIError{StatusCode: 404, Message: "<h1>Not Found</h1>", Attempts: 1},
			wantMsg: "plantstore: create plant: 404 Not Found: <h1>Not Found</h1>",
			is:      []error{ErrNotFound},
		},
		{
			name: "problem+json",
			reply: reply{status: 422, header: map[string]string{"Content-Type": "application/problem+json"},
				body: `{"title":"Unprocessable","status":422}`},
			want:    &APIError{StatusCode: 422, Message: `{"title":"Unprocessable","status":422}`, Attempts: 1},
			wantMsg: `plantstore: create plant: 422 Unprocessable Entity: {"title":"Unprocessable","status":422}`,
		},
		{
			name:    "500 is not retried",
			reply:   reply{status: 500, body: `{"error":1,"message":"boom"}`},
			want:    &APIError{StatusCode: 500, Code: 1, Message: "boom", Attempts: 1},
			wantMsg: "plantstore: create plant: 500 Internal Server Error: boom (error 1)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "Error body missing message is quoted",
			reply:   reply{status: 400, body: `{"error":3}`},
			want:    &APIError{StatusCode: 400, Message: `{"error":3}`, Attempts: 1},
			wantMsg: `plantstore: create plant: 400 Bad Request: {"error":3}`,
		},
		{
			name:    "non-UTF-8 body is made valid",
			reply:   reply{status: 400, body: "bad \xff byte"},
			want:    &APIError{StatusCode: 400, Message: "bad \uFFFD byte", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: bad \uFFFD byte",
		},
		{
			name:    "control characters become spaces",
			reply:   reply{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>\n<body>bad gateway\nlevel=ERROR msg=forged</body>\r\n"},
			want:    &APIError{StatusCode: 502, Message: "<html> <body>bad gateway level=ERROR msg=forged</body>", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: <html> <body>bad gateway level=ERROR msg=forged</body> (after 3 attempts)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "long Error message is cut",
			reply:   reply{status: 400, body: `{"error":2,"message":"` + strings.Repeat("é", 600) + `"}`},
			want:    &APIError{StatusCode: 400, Code: 2, Message: strings.Repeat("é", messageBytes/2) + "…", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: ééé",
		},
		{
			name:    "text after many blank lines is kept",
			reply:   reply{status: 502, body: strings.Repeat("\r\n", 300) + "<h1>Bad Gateway</h1>"},
			want:    &APIError{StatusCode: 502, Message: "<h1>Bad Gateway</h1>", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: <h1>Bad Gateway</h1> (after 3 attempts)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "oversized body is cut to a snippet",
			reply:   reply{status: 502, body: strings.Repeat("y", 2<<20)},
			want:    &APIError{StatusCode: 502, Message: strings.Repeat("y", snippetBytes) + "…", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: yyy",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply)
			_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", monstera, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(APIError{})); diff != "" {
				t.Errorf("CreatePlant(%+v) error mismatch (-want +got):\n%s", monstera, diff)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tt.wantMsg) {
				t.Errorf("CreatePlant(%+v) error = %q, want it to start with %q", monstera, msg, tt.wantMsg)
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
				}
			}
			for _, target := range tt.isNot {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", err, target)
				}
			}
		})
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	unavailable := reply{status: 503, body: `{"error":9,"message":"try later"}`}
	tests := []struct {
		name         string
		script       []reply
		opts         []Option
		wantStatus   int // 0: success
		wantAttempts int
		wantMaybe    bool
	}{
		{"503 then 200", []reply{unavailable, {status: 200, body: `{"name":"Monstera"}`}}, nil, 0, 2, false},
		{"502 504 200", []reply{{status: 502}, {status: 504}, {status: 200, body: `{"name":"Monstera"}`}}, nil, 0, 3, false},
		{"429 until retries run out", []reply{{status: 429}}, nil, 429, 3, false},
		{"503 until retries run out", []reply{unavailable}, nil, 503, 3, true},
		{"retries disabled", []reply{unavailable}, []Option{WithMaxRetries(0)}, 503, 1, true},
		{"five retries", []reply{unavailable}, []Option{WithMaxRetries(5)}, 503, 6, true},
		{"400 is final", []reply{{status: 400}}, nil, 400, 1, false},
		{"401 is final", []reply{{status: 401}}, nil, 401, 1, false},
		{"403 is final", []reply{{status: 403}}, nil, 403, 1, false},
		{"404 is final", []reply{{status: 404}}, nil, 404, 1, false},
		{"500 is final", []reply{{status: 500}}, nil, 500, 1, true},
		{"502 then 400 may have stored", []reply{{status: 502}, {status: 400}}, nil, 400, 2, true},
		{"429 then 400 did not store", []reply{{status: 429}, {status: 400}}, nil, 400, 2, false},
		{"dropped connection then 200", []reply{{drop: true}, {status: 200, body: `{"name":"Monstera"}`}}, nil, 0, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.script...)
			_, err := newTestClient(t, srv.URL, tt.opts...).CreatePlant(context.Background(), monstera)
			if n := len(srv.requests()); n != tt.wantAttempts {
				t.Errorf("CreatePlant(%+v) made %d attempts, want %d", monstera, n, tt.wantAttempts)
			}
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
				}
				return
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", monstera, err)
			}
			if apiErr.StatusCode != tt.wantStatus || apiErr.Attempts != tt.wantAttempts {
				t.Errorf("CreatePlant(%+v) = status %d after %d attempts, want %d after %d",
					monstera, apiErr.StatusCode, apiErr.Attempts, tt.wantStatus, tt.wantAttempts)
			}
			if got := errors.Is(err, ErrMaybeCreated); got != tt.wantMaybe {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = %v, want %v", err, got, tt.wantMaybe)
			}
		})
	}
}

func TestRetriesKeepLastErrorBody(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t,
		reply{status: 503, body: `{"error":1,"message":"first"}`},
		reply{status: 503, body: `{"error":2,"message":"second"}`},
		reply{status: 503, body: `{"error":3,"message":"last"}`})
	_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
	want := "plantstore: create plant: 503 Service Unavailable: last (error 3) (after 3 attempts)"
	if err == nil || err.Error() != want {
		t.Errorf("CreatePlant(%+v) error = %v, want %q", monstera, err, want)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	t.Run("honoured within the cap", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t,
			reply{status: 429, header: map[string]string{"Retry-After": "1"}},
			reply{status: 200, body: `{"name":"Monstera"}`})
		start := time.Now()
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
		if err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
		}
		// The test client's own backoff is 1-2ms, so only Retry-After can
		// account for a full second.
		if elapsed := time.Since(start); elapsed < time.Second {
			t.Errorf("CreatePlant(%+v) retried after %v, want at least the 1s Retry-After", monstera, elapsed)
		}
	})

	tests := []struct {
		name     string
		header   string
		opts     []Option
		deadline time.Duration
		want     time.Duration
	}{
		{"longer than the default cap", "3600", nil, time.Minute, time.Hour},
		{"longer than a custom cap", "5", []Option{WithMaxRetryAfter(2 * time.Second)}, time.Minute, 5 * time.Second},
		{"cap of zero", "1", []Option{WithMaxRetryAfter(0)}, time.Minute, time.Second},
		{"longer than the deadline leaves", "20", nil, 10 * time.Second, 20 * time.Second},
		{"HTTP date", time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat), nil, time.Minute, 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: 503, header: map[string]string{"Retry-After": tt.header}})
			ctx, cancel := context.WithTimeout(context.Background(), tt.deadline)
			defer cancel()
			_, err := newTestClient(t, srv.URL, tt.opts...).CreatePlant(ctx, monstera)
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError at once", monstera, err)
			}
			if apiErr.Attempts != 1 || len(srv.requests()) != 1 {
				t.Errorf("CreatePlant(%+v) made %d attempts, want 1", monstera, apiErr.Attempts)
			}
			// An HTTP date has one-second resolution, and the clock moved on
			// since the table was built.
			if d := apiErr.RetryAfter - tt.want; d > 0 || d < -time.Minute {
				t.Errorf("CreatePlant(%+v) RetryAfter = %v, want %v", monstera, apiErr.RetryAfter, tt.want)
			}
			if !strings.Contains(err.Error(), "(retry after ") {
				t.Errorf("CreatePlant(%+v) error = %q, want it to mention the retry-after", monstera, err)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", 1<<63 - 1, true},
		{"9999999999999", 1<<63 - 1, true},
		{"Sun, 22 Nov 2026 10:00:30 GMT", 30 * time.Second, true},
		{"Sunday, 22-Nov-26 10:01:00 GMT", time.Minute, true},
		{"Sun, 22 Nov 2026 09:00:00 GMT", 0, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	const base, limit = 100 * time.Millisecond, time.Second
	for attempt, ceiling := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		ceiling *= time.Millisecond
		distinct := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			d := backoff(base, limit, attempt, nil)
			if d < ceiling/2 || d > ceiling {
				t.Fatalf("backoff(%v, %v, %d) = %v, want within [%v, %v]", base, limit, attempt, d, ceiling/2, ceiling)
			}
			distinct[d] = true
		}
		if len(distinct) < 10 {
			t.Errorf("backoff(%v, %v, %d) gave %d distinct waits in 200 draws, want jitter", base, limit, attempt, len(distinct))
		}
	}
	if d := backoff(base, limit, 1000, nil); d < limit/2 || d > limit {
		t.Errorf("backoff(%v, %v, 1000) = %v, want within [%v, %v] (no overflow)", base, limit, d, limit/2, limit)
	}
	resp := &http.Response{Header: http.Header{"Retry-After": {"7"}}}
	if d := backoff(base, limit, 0, resp); d != 7*time.Second {
		t.Errorf("backoff with Retry-After: 7 = %v, want 7s", d)
	}
}

// cancelOnRetry is a slog.Handler that cancels a context when the client
// logs that it will retry: the one moment that is certainly between two
// attempts.
type cancelOnRetry struct{ cancel context.CancelFunc }

func (h cancelOnRetry) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOnRetry) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "plantstore: retrying" {
		h.cancel()
	}
	return nil
}
func (h cancelOnRetry) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h cancelOnRetry) WithGroup(string) slog.Handler      { return h }

func TestContextCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: http.StatusServiceUnavailable})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An hour of backoff: only the cancellation can end this call.
	c := newTestClient(t, srv.URL, WithRetryBackoff(time.Hour, time.Hour),
		WithLogger(slog.New(cancelOnRetry{cancel})))
	start := time.Now()
	_, err := c.CreatePlant(ctx, monstera)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CreatePlant(%+v) error = %v, want context.Canceled", monstera, err)
	}
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("CreatePlant(%+v) returned after %v, want at once", monstera, elapsed)
	}
	if !strings.HasPrefix(err.Error(), "plantstore: create plant: ") || !errors.Is(err, ErrMaybeCreated) {
		t.Errorf("CreatePlant(%+v) error = %q, want the plantstore prefix and ErrMaybeCreated after a 503", monstera, err)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// TestBackoffLongerThanDeadlineReturnsAtOnce checks that a retry whose
// backoff might outlast the deadline is not started: the caller gets the
// answer it has at once, not a context error when the deadline cuts the
// wait short. The jittered wait is drawn from [limit/2, limit], so a
// deadline between the two is the case that needs the longest wait checked.
func TestBackoffLongerThanDeadlineReturnsAtOnce(t *testing.T) {
	t.Parallel()
	busy := reply{status: http.StatusServiceUnavailable, body: `{"error":9,"message":"busy"}`}
	dropped := reply{drop: true}
	tests := []struct {
		name            string
		reply           reply
		backoff, within time.Duration // the backoff's base and limit; the call's timeout
	}{
		{"503, backoff far beyond the deadline", busy, time.Hour, time.Minute},
		{"503, deadline within the backoff's jitter", busy, 10 * time.Second, 7 * time.Second},
		{"dropped, backoff far beyond the deadline", dropped, time.Hour, time.Minute},
		{"dropped, deadline within the backoff's jitter", dropped, 10 * time.Second, 7 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply)
			ctx, cancel := context.WithTimeout(context.Background(), tt.within)
			defer cancel()
			c := newTestClient(t, srv.URL, WithRetryBackoff(tt.backoff, tt.backoff))
			_, err := c.CreatePlant(ctx, monstera)
			if ctx.Err() != nil {
				t.Fatalf("CreatePlant(%+v) error = %v after the deadline, want it to return at once", monstera, err)
			}
			if n := len(srv.requests()); n != 1 {
				t.Errorf("CreatePlant(%+v) made %d attempts, want 1", monstera, n)
			}
			var apiErr *APIError
			switch {
			case !tt.reply.drop && (!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable || apiErr.Attempts != 1):
				t.Errorf("CreatePlant(%+v) error = %v, want the 503 *APIError after 1 attempt", monstera, err)
			case tt.reply.drop && (err == nil || errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrMaybeCreated)):
				t.Errorf("CreatePlant(%+v) error = %v, want the dropped connection, as maybe created", monstera, err)
			}
		})
	}
}

func TestDeadlineInFlight(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := newTestClient(t, srv.URL).CreatePlant(ctx, monstera)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrMaybeCreated) {
		t.Errorf("CreatePlant(%+v) error = %v, want context.DeadlineExceeded and ErrMaybeCreated", monstera, err)
	}
}

// TestAnswerKeptWhenContextEnds cancels the context just as an answer
// arrives: the answer, not the cancellation, decides what the caller learns.
func TestAnswerKeptWhenContextEnds(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusBadRequest, http.StatusServiceUnavailable} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: status, body: `{"name":"Monstera"}`})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				resp, err := http.DefaultTransport.RoundTrip(r)
				cancel()
				return resp, err
			})}
			_, err := newTestClient(t, srv.URL, WithHTTPClient(hc)).CreatePlant(ctx, monstera)
			var apiErr *APIError
			switch {
			case status == http.StatusOK && err != nil && !errors.Is(err, ErrMaybeCreated):
				t.Errorf("CreatePlant after a 200 and a cancel: error = %v, want success or ErrMaybeCreated", err)
			case status != http.StatusOK && (!errors.As(err, &apiErr) || apiErr.StatusCode != status):
				t.Errorf("CreatePlant after a %d and a cancel: error = %v, want the *APIError", status, err)
			}
		})
	}
}

func TestContextCancelledInFlight(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server notices a client hanging up only once the body is read.
		io.Copy(io.Discard, r.Body)
		close(arrived)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := newTestClient(t, srv.URL).CreatePlant(ctx, monstera)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("CreatePlant(%+v) error = %v, want context.Canceled", monstera, err)
	}
	if !errors.Is(err, ErrMaybeCreated) {
		t.Errorf("errors.Is(%v, ErrMaybeCreated) = false; the request had been sent", err)
	}
}

func TestContextAlreadyDone(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newTestClient(t, srv.URL).CreatePlant(ctx, monstera)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrMaybeCreated) {
		t.Errorf("CreatePlant(cancelled ctx) error = %v, want context.Canceled and not ErrMaybeCreated", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("CreatePlant(cancelled ctx) sent %d requests, want 0", n)
	}
}

func TestConnectionRefusedIsNotSent(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now: every dial is refused
	_, err = newTestClient(t, "http://"+addr).CreatePlant(context.Background(), monstera)
	if err == nil {
		t.Fatal("CreatePlant to a closed port succeeded")
	}
	if errors.Is(err, ErrMaybeCreated) {
		t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false for a refused dial", err)
	}
	if !strings.Contains(err.Error(), "(after 3 attempts)") {
		t.Errorf("CreatePlant error = %q, want it to say it made 3 attempts", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Errorf("CreatePlant error = %v, want it to wrap a *net.OpError", err)
	}
}

func TestDroppedAfterSendMayHaveCreated(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{drop: true})
	_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
	if !errors.Is(err, ErrMaybeCreated) {
		t.Fatalf("errors.Is(%v, ErrMaybeCreated) = false, want true for a connection dropped after the request", err)
	}
	want := "plantstore: create plant: "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "(after 3 attempts) (the plant may have been created)") {
		t.Errorf("CreatePlant error = %q, want %q... (after 3 attempts) (the plant may have been created)", err, want)
	}
}

func TestTokenFunc(t *testing.T) {
	t.Parallel()
	t.Run("called for every attempt", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
		var n atomic.Int32
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) {
			return fmt.Sprintf("token-%d", n.Add(1)), nil
		}))
		if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
		}
		var got []string
		for _, r := range srv.requests() {
			got = append(got, r.header.Get("Authorization"))
		}
		if diff := cmp.Diff([]string{"Bearer token-1", "Bearer token-2"}, got); diff != "" {
			t.Errorf("Authorization per attempt mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("error on first attempt sends nothing", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t)
		errVault := errors.New("vault sealed")
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) { return "", errVault }))
		_, err := c.CreatePlant(context.Background(), monstera)
		if !errors.Is(err, errVault) || errors.Is(err, ErrMaybeCreated) {
			t.Errorf("CreatePlant error = %v, want it to wrap %v and not ErrMaybeCreated", err, errVault)
		}
		if n := len(srv.requests()); n != 0 {
			t.Errorf("server saw %d requests, want 0", n)
		}
	})
	t.Run("error before a retry", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 502})
		errVault := errors.New("vault sealed")
		var n atomic.Int32
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) {
			if n.Add(1) > 1 {
				return "", errVault
			}
			return "first", nil
		}))
		_, err := c.CreatePlant(context.Background(), monstera)
		if !errors.Is(err, errVault) || !errors.Is(err, ErrMaybeCreated) {
			t.Errorf("CreatePlant error = %v, want it to wrap %v and match ErrMaybeCreated after a 502", err, errVault)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("server saw %d requests, want 1: the retry had no token", n)
		}
	})
	t.Run("invalid token is refused without echoing it", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t)
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) { return "se cret", nil }))
		_, err := c.CreatePlant(context.Background(), monstera)
		want := "plantstore: create plant: token from token func has an invalid character at byte 2 (want visible ASCII)"
		if err == nil || err.Error() != want {
			t.Errorf("CreatePlant error = %v, want %q", err, want)
		}
		if err == nil || strings.Contains(err.Error(), "se cret") {
			t.Errorf("CreatePlant error = %v, want an invalid-token error without the token", err)
		}
	})
}

// newRedirector starts a server that answers every request with a 307 to
// /moved: on target, or with sameOrigin on itself, where /moved is served by
// target's handler. Both listen on 127.0.0.1, so for another origin only the
// port differs, which Go's client alone would treat as the same host.
func newRedirector(t *testing.T, target *stubServer, sameOrigin bool) *httptest.Server {
	t.Helper()
	var front *httptest.Server
	front = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved" {
			target.Config.Handler.ServeHTTP(w, r)
			return
		}
		to := target.URL + "/moved"
		if sameOrigin {
			to = front.URL + "/moved"
		}
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(front.Close)
	return front
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		sameHost bool // redirect to the same server (same origin)
		wantAuth string
	}{
		{"to another origin drops the token", false, ""},
		{"to the same origin keeps the token", true, "Bearer " + testToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := newStubServer(t)
			front := newRedirector(t, target, tt.sameHost)
			if _, err := newTestClient(t, front.URL).CreatePlant(context.Background(), monstera); err != nil {
				t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
			}
			reqs := target.requests()
			if len(reqs) != 1 {
				t.Fatalf("redirect target saw %d requests, want 1", len(reqs))
			}
			if got := reqs[0].header.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("redirected request Authorization = %q, want %q", got, tt.wantAuth)
			}
			if reqs[0].body != `{"id":7,"name":"Monstera","tag":"indoor"}` {
				t.Errorf("redirected request body = %s, want the plant", reqs[0].body)
			}
		})
	}
}

// authTransport sets Authorization on each request itself, as an oauth2
// client's transport does.
type authTransport struct{ token string }

func (t authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not modify its request
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestTransportAuth(t *testing.T) {
	t.Parallel()
	const token = "oauth-access-token"
	newClient := func(t *testing.T, url string) *Client {
		t.Helper()
		c, err := NewClient(url, WithHTTPClient(&http.Client{Transport: authTransport{token}}), WithTransportAuth(),
			WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		if err != nil {
			t.Fatalf("NewClient(%q) error: %v", url, err)
		}
		return c
	}

	t.Run("authenticates every attempt once", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: http.StatusServiceUnavailable}, reply{status: http.StatusOK, body: `{"name":"Monstera"}`})
		if _, err := newClient(t, srv.URL).CreatePlant(context.Background(), monstera); err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
		}
		var got [][]string
		for _, r := range srv.requests() {
			got = append(got, r.header.Values("Authorization"))
		}
		want := [][]string{{"Bearer " + token}, {"Bearer " + token}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Authorization of each attempt mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("redirects", func(t *testing.T) {
		t.Parallel()
		for _, sameOrigin := range []bool{true, false} {
			target := newStubServer(t)
			front := newRedirector(t, target, sameOrigin)
			_, err := newClient(t, front.URL).CreatePlant(context.Background(), monstera)
			reqs := target.requests()
			if sameOrigin {
				if err != nil || len(reqs) != 1 || reqs[0].header.Get("Authorization") != "Bearer "+token {
					t.Errorf("same-origin redirect: error %v, %d requests followed, want it followed with the token", err, len(reqs))
				}
				continue
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect ||
				apiErr.Message != "redirect to "+target.URL+"/moved" {
				t.Errorf("cross-origin redirect: error = %v, want the 307 as an *APIError naming its target", err)
			}
			if len(reqs) != 0 {
				t.Errorf("cross-origin redirect: the other origin saw %d requests, want none", len(reqs))
			}
		}
	})

	t.Run("echoed token is redacted", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"seen `+r.Header.Get("Authorization")+`"}`)
		}))
		t.Cleanup(srv.Close)
		_, err := newClient(t, srv.URL).CreatePlant(context.Background(), monstera)
		if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "seen Bearer REDACTED") {
			t.Errorf("CreatePlant error = %v, want the echoed token redacted", err)
		}
	})
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://h/a", "https://h/b", true},
		{"https://h", "https://H:443", true},
		{"http://h", "http://h:80", true},
		{"https://h", "http://h", false},
		{"https://h:8443", "https://h", false},
		{"https://h", "https://evil.h", false},
	}
	for _, tt := range tests {
		a, _ := http.NewRequest("GET", tt.a, nil)
		b, _ := http.NewRequest("GET", tt.b, nil)
		if got := sameOrigin(a.URL, b.URL); got != tt.want {
			t.Errorf("sameOrigin(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTooManyRedirectsNotRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Redirect(w, r, "/plants", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Fatalf("CreatePlant error = %v, want a redirect loop error", err)
	}
	if got := n.Load(); got != 10 {
		t.Errorf("server saw %d requests, want 10 (one call, not retried)", got)
	}
}

func TestLogger(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
	var buf syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := newTestClient(t, srv.URL, WithLogger(logger)).CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	out := buf.String()
	for _, want := range []string{
		`msg="plantstore: sending request" method=POST url=` + srv.URL + `/plants attempt=1`,
		`msg="plantstore: retrying" attempt=1 status=503`,
		`msg="plantstore: sending request" method=POST url=` + srv.URL + `/plants attempt=2`,
		`header.Authorization=REDACTED`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log does not contain %q; log:\n%s", want, out)
		}
	}
	if strings.Contains(out, testToken) {
		t.Errorf("log contains the token:\n%s", out)
	}
}

// TestQuietByDefault runs a failing, retried call in a child process and
// checks that the library printed nothing. A child process is the only
// reliable witness: go-retryablehttp's default logger holds its own copy of
// os.Stderr.
func TestQuietByDefault(t *testing.T) {
	if os.Getenv("PLANTSTORE_QUIET_CHILD") == "1" {
		srv := newStubServer(t, reply{status: 503}, reply{drop: true}, reply{status: 502})
		if _, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera); err == nil {
			t.Fatal("want an error")
		}
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestQuietByDefault$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLANTSTORE_QUIET_CHILD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child test failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	// With -cover the child also reports its coverage.
	out := strings.TrimSpace(stdout.String())
	if i := strings.Index(out, "\ncoverage: "); i >= 0 {
		out = out[:i]
	}
	if stderr.Len() != 0 || out != "PASS" {
		t.Errorf("a failing call printed output; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// infiniteBody is a response body that never ends and counts what is read.
type infiniteBody struct{ read atomic.Int64 }

func (b *infiniteBody) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	b.read.Add(int64(len(p)))
	return len(p), nil
}

func (b *infiniteBody) Close() error { return nil }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestResponseSizeCap(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusBadRequest} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			body := &infiniteBody{}
			hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: status, Header: http.Header{}, Body: body, Request: r}, nil
			})}
			_, err := newTestClient(t, "https://plants.example.com", WithHTTPClient(hc)).CreatePlant(context.Background(), monstera)
			if err == nil {
				t.Fatal("CreatePlant with an endless body succeeded")
			}
			if status == http.StatusOK && !strings.Contains(err.Error(), "read response: body exceeds 1048576 bytes") {
				t.Errorf("CreatePlant error = %q, want it to name the size cap", err)
			}
			// io.ReadAll asks for more than it needs; allow one read's slack.
			if n := body.read.Load(); n > maxResponseBytes+64<<10 {
				t.Errorf("CreatePlant read %d bytes of an endless body, want at most about %d", n, maxResponseBytes)
			}
		})
	}
}

func TestConnectionReuse(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t,
		reply{status: 200, body: `{"name":"a"}`},
		reply{status: 400, body: `{"error":1,"message":"no"}`},
		reply{status: 503}, reply{status: 503}, reply{status: 503}, // one call exhausts its retries
		reply{status: 200, body: strings.Repeat(" ", 8000) + `{"name":"b"}`},
		reply{status: 200, body: `{"name":"c"}`})
	c := newTestClient(t, srv.URL)
	for i := 0; i < 6; i++ {
		c.CreatePlant(context.Background(), monstera) //nolint:errcheck // outcomes are scripted; only connections matter
	}
	if n := srv.newConn.Load(); n != 1 {
		t.Errorf("6 sequential calls (with errors, exhausted retries and a large body) opened %d connections, want 1", n)
	}
}

func TestConcurrentCallsShareConnections(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if calls.Add(1)%10 == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"name":"Monstera"}`)
	}))
	var conns atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, WithMaxRetries(0))
	const workers, perWorker = 16, 50
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := failed.Load(); got != workers*perWorker/10 {
		t.Errorf("%d of %d calls failed, want %d", got, workers*perWorker, workers*perWorker/10)
	}
	// net/http hands a finished connection back to the pool from another
	// goroutine, so a caller that asks again at once may find the pool empty
	// and dial: on a loaded machine up to one spare per caller. Tearing down
	// the pool on each failure instead opens hundreds.
	if n, limit := conns.Load(), int32(2*workers); n > limit {
		t.Errorf("%d concurrent callers opened %d connections, want at most %d", workers, n, limit)
	}
}

func TestWithHTTPClient(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
	var roundTrips atomic.Int32
	inner := http.DefaultTransport
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		roundTrips.Add(1)
		return inner.RoundTrip(r)
	}), Timeout: time.Minute}
	before := *hc
	c := newTestClient(t, srv.URL, WithHTTPClient(hc))
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	if got := roundTrips.Load(); got != 2 {
		t.Errorf("caller's transport saw %d round trips, want 2 (the retry goes through it)", got)
	}
	if hc.CheckRedirect != nil || hc.Timeout != before.Timeout || fmt.Sprint(hc.Transport) != fmt.Sprint(before.Transport) {
		t.Errorf("NewClient modified the caller's *http.Client: %+v, was %+v", *hc, before)
	}
}

func TestDefaultTransport(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://plants.example.com")
	tr, ok := c.retry.HTTPClient.Transport.(keepIdleConns).rt.(*http.Transport)
	if !ok {
		t.Fatalf("default transport is %T, want *http.Transport behind keepIdleConns", c.retry.HTTPClient.Transport)
	}
	if tr.MaxIdleConnsPerHost < 32 || tr.ResponseHeaderTimeout == 0 || tr.TLSHandshakeTimeout == 0 || tr.Proxy == nil {
		t.Errorf("default transport = %+v, want pooled idle connections, timeouts and proxy support", tr)
	}
	if _, ok := c.retry.HTTPClient.Transport.(interface{ CloseIdleConnections() }); ok {
		t.Error("the client's transport exposes CloseIdleConnections, which go-retryablehttp would call after every failure")
	}
}

// FuzzCreatePlantResponse feeds CreatePlant arbitrary responses: it must
// return a plant or an error, never panic, never read past its size cap, and
// report every non-2xx status as an *APIError with that status.
func FuzzCreatePlantResponse(f *testing.F) {
	f.Add(200, "application/json", "", []byte(`{"name":"Monstera","tag":"indoor"}`))
	f.Add(200, "application/json", "", []byte(`{"name":""}`))
	f.Add(200, "text/html", "", []byte("<html>hello</html>"))
	f.Add(400, "application/json", "", []byte(`{"error":3,"message":"name is required"}`))
	f.Add(401, "application/problem+json", "", []byte(`{"title":"nope"}`))
	f.Add(429, "", "0", []byte{})
	f.Add(503, "application/json", "Wed, 21 Oct 2015 07:28:00 GMT", []byte(`{"error":-1,"message":"\ud800"}`))
	f.Add(302, "", "", []byte("moved"))
	f.Fuzz(func(t *testing.T, status int, contentType, retryAfter string, body []byte) {
		if status < 200 || status > 599 {
			status = 200 + (status%400+400)%400
		}
		var read atomic.Int64
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			h := http.Header{"Content-Type": {contentType}, "Retry-After": {retryAfter}}
			rc := io.NopCloser(&countingReader{r: bytes.NewReader(body), n: &read})
			return &http.Response{StatusCode: status, Header: h, Body: rc, Request: r}, nil
		})}
		c := newTestClient(t, "https://plants.example.com", WithHTTPClient(hc),
			WithMaxRetries(1), WithRetryBackoff(0, 0), WithMaxRetryAfter(0))
		p, err := c.CreatePlant(context.Background(), monstera)
		if (p == nil) == (err == nil) {
			t.Fatalf("CreatePlant = %v, %v; want exactly one of a plant and an error", p, err)
		}
		if n := read.Load(); n > 2*(maxResponseBytes+1) {
			t.Fatalf("CreatePlant read %d bytes over at most 2 attempts, cap is %d each", n, maxResponseBytes)
		}
		if err == nil {
			if status > 299 || p.Name == "" {
				t.Fatalf("CreatePlant = %+v for status %d, want an error", p, status)
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "plantstore: create plant: ") {
			t.Errorf("CreatePlant error = %q, want the plantstore: create plant: prefix", err)
		}
		if status > 299 {
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("CreatePlant error = %v for status %d, want an *APIError with that status", err, status)
			}
			if !utf8.ValidString(apiErr.Message) {
				t.Errorf("APIError.Message = %q, want valid UTF-8", apiErr.Message)
			}
		}
	})
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func TestCallersCheckRedirect(t *testing.T) {
	t.Parallel()
	errNoRedirects := errors.New("redirects are not allowed here")
	tests := []struct {
		name     string
		check    func(*http.Request, []*http.Request) error
		wantCode int   // the status of the *APIError, or 0
		wantErr  error // the error wrapped, or nil
	}{
		{"ErrUseLastResponse returns the redirect", func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, http.StatusTemporaryRedirect, nil},
		{"caller's error is final", func(*http.Request, []*http.Request) error { return errNoRedirects }, 0, errNoRedirects},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
			}))
			t.Cleanup(srv.Close)
			hc := &http.Client{CheckRedirect: tt.check}
			_, err := newTestClient(t, srv.URL, WithHTTPClient(hc)).CreatePlant(context.Background(), monstera)
			var apiErr *APIError
			switch {
			case tt.wantCode != 0 && (!errors.As(err, &apiErr) || apiErr.StatusCode != tt.wantCode):
				t.Errorf("CreatePlant error = %v, want an *APIError with status %d", err, tt.wantCode)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("CreatePlant error = %v, want it to wrap %v", err, tt.wantErr)
			}
			if errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false: a redirect stores nothing", err)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("server saw %d requests, want 1 (not retried)", got)
			}
		})
	}
}

func TestClientDoesNotPrintItsToken(t *testing.T) {
	t.Parallel()
	for _, opt := range []Option{WithToken(testToken), WithTokenFunc(func(context.Context) (string, error) { return testToken, nil })} {
		c := newTestClient(t, "https://plants.example.com", opt)
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(verb, c); strings.Contains(out, testToken) {
				t.Errorf("fmt.Sprintf(%q, client) = %s, which contains the token", verb, out)
			}
		}
	}
}

// TestErrorsRedactEchoedToken checks that a token the server echoes back,
// as a proxy's debug page might, does not reach the error.
func TestErrorsRedactEchoedToken(t *testing.T) {
	t.Parallel()
	// echo writes a reply that quotes the request's token, given raw and
	// JSON-escaped.
	type echo func(w http.ResponseWriter, token, jsonToken string)
	cases := []struct {
		name string
		echo echo
	}{
		{"Error message", func(w http.ResponseWriter, _, jsonToken string) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"token `+jsonToken+` is not allowed here"}`)
		}},
		{"HTML page", func(w http.ResponseWriter, token, _ string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<pre>Authorization: Bearer "+token+"</pre>")
		}},
		{"200 that is not a Plant", func(w http.ResponseWriter, token, _ string) {
			io.WriteString(w, "debug: Bearer "+token)
		}},
		{"redirect target", func(w http.ResponseWriter, token, _ string) {
			w.Header().Set("Location", "https://elsewhere.example/login?t="+url.QueryEscape(token)+"&raw="+token)
			w.WriteHeader(http.StatusFound)
		}},
	}
	tokens := []string{testToken, `quote"and\backslash`}
	for _, tc := range cases {
		for _, token := range tokens {
			for _, fromFunc := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/func=%v", tc.name, token, fromFunc), func(t *testing.T) {
					t.Parallel()
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
						quoted, _ := json.Marshal(got)
						tc.echo(w, got, string(quoted[1:len(quoted)-1]))
					}))
					t.Cleanup(srv.Close)
					opt := WithToken(token)
					if fromFunc {
						opt = WithTokenFunc(func(context.Context) (string, error) { return token, nil })
					}
					_, err := newTestClient(t, srv.URL, opt).CreatePlant(context.Background(), monstera)
					if err == nil {
						t.Fatal("CreatePlant succeeded, want an error")
					}
					if msg := err.Error(); strings.Contains(msg, token) || !strings.Contains(msg, "REDACTED") {
						t.Errorf("error %q: want the token replaced by REDACTED", msg)
					}
					var apiErr *APIError
					if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, token) {
						t.Errorf("APIError.Message = %q, contains the token", apiErr.Message)
					}
				})
			}
		}
	}
	t.Run("short token left alone", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: http.StatusBadRequest, body: `{"error":1,"message":"invalid device"}`})
		_, err := newTestClient(t, srv.URL, WithToken("dev")).CreatePlant(context.Background(), monstera)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != "invalid device" {
			t.Errorf("CreatePlant error = %v, want an *APIError with the message unchanged", err)
		}
	})
}

func TestNoRetryLoggedAfterLastAttempt(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: http.StatusServiceUnavailable})
	var buf syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	_, err := newTestClient(t, srv.URL, WithLogger(logger), WithMaxRetries(1)).CreatePlant(context.Background(), monstera)
	if err == nil {
		t.Fatal("CreatePlant against a 503 succeeded")
	}
	out := buf.String()
	if got := strings.Count(out, `msg="plantstore: retrying"`); got != 1 {
		t.Errorf("logged %d retries for 2 attempts, want 1; log:\n%s", got, out)
	}
}

func TestRedirectThatChangesMethodIsNotFollowed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				http.Redirect(w, r, "/v2/plants", status)
			}))
			t.Cleanup(srv.Close)
			_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status || !strings.Contains(apiErr.Message, "/v2/plants") {
				t.Errorf("CreatePlant error = %v, want an *APIError %d naming the new location", err, status)
			}
			if errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false", err)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("server saw %d requests, want 1 (no GET to the new location)", got)
			}
		})
	}
}

// TestFailuresBeforeSending covers attempts that never wrote a request: they
// do not match ErrMaybeCreated, and the hopeless ones are not retried.
func TestFailuresBeforeSending(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		tls          bool // serve TLS, to a client that does not trust it
		baseScheme   string
		wantAttempts int32
		wantErr      string
	}{
		{"untrusted certificate", true, "https", 1, "certificate"},
		{"https to a plain http server", false, "https", 1, "server gave HTTP response to HTTPS client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var handled, conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { handled.Add(1) }))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are expected
			srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					conns.Add(1)
				}
			}
			if tt.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			url := tt.baseScheme + "://" + srv.Listener.Addr().String()
			_, err := newTestClient(t, url).CreatePlant(context.Background(), monstera)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CreatePlant(%s) error = %v, want one mentioning %q", url, err, tt.wantErr)
			}
			if errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false: nothing was sent", err)
			}
			if got := conns.Load(); got != tt.wantAttempts {
				t.Errorf("CreatePlant(%s) made %d connections, want %d", url, got, tt.wantAttempts)
			}
			if got := handled.Load(); got != 0 {
				t.Errorf("handler saw %d requests, want 0", got)
			}
		})
	}
}

func TestCloseIdleConnections(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"name":"Monstera"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL)
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	c.CloseIdleConnections()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle connection was still open 10s after CloseIdleConnections")
	}
}

// TestSentOrNotWithoutTraceEvents covers transports that give no httptrace
// events (this stub makes no connection of its own): the error type is then
// all the client can go by.
func TestSentOrNotWithoutTraceEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		err       error
		wantMaybe bool
	}{
		{"refused dial", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, false},
		{"proxy unreachable", &net.OpError{Op: "proxyconnect", Net: "tcp", Err: errors.New("connection refused")}, false},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "plants.example.com", IsNotFound: true}, false},
		{"connection reset while reading", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}, true},
		{"unexpected EOF", io.ErrUnexpectedEOF, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			hc := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
				calls.Add(1)
				return nil, tt.err
			})}
			_, err := newTestClient(t, "https://plants.example.com", WithHTTPClient(hc)).CreatePlant(context.Background(), monstera)
			if !errors.Is(err, tt.err) {
				t.Fatalf("CreatePlant error = %v, want it to wrap %v", err, tt.err)
			}
			if got := errors.Is(err, ErrMaybeCreated); got != tt.wantMaybe {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = %v, want %v", err, got, tt.wantMaybe)
			}
			if got := calls.Load(); got != 3 {
				t.Errorf("transport saw %d attempts, want 3 (all retried)", got)
			}
		})
	}
}
