package plantstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/wire"
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
	stall  bool // answer nothing until the client gives up
}

// seen is a request as a stubServer received it.
type seen struct {
	method string
	path   string // as sent: escaped, as r.URL.EscapedPath gives it
	header http.Header
	body   string
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
	s.reqs = append(s.reqs, seen{r.Method, r.URL.EscapedPath(), r.Header.Clone(), string(body)})
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
	if rep.stall {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

// lastRequestID returns the X-Request-Id of the last request s received.
func (s *stubServer) lastRequestID(t *testing.T) string {
	t.Helper()
	reqs := s.requests()
	if len(reqs) == 0 {
		t.Fatal("stub server received no request")
	}
	return reqs[len(reqs)-1].header.Get("X-Request-Id")
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

// attemptsOf returns the attempts of the call that err, a *CallError,
// ended; -1 if err is not one.
func attemptsOf(err error) int {
	var callErr *CallError
	if !errors.As(err, &callErr) {
		return -1
	}
	return callErr.Call.Attempts
}

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
		{"empty port", "http://localhost:/", []Option{tok}, "port must be 1 to 65535"},
		{"no name before the port", "http://:8080/", []Option{tok}, "host must be a name"},
		{"a character no name has", "https://plants<example.com/", []Option{tok}, "host must be a name"},
		{"user info", "https://user:pa55@plants.example.com", []Option{tok}, "must not contain user info"},
		{"query", "https://plants.example.com?x=1", []Option{tok}, "must not have a query"},
		{"fragment", "https://plants.example.com#top", []Option{tok}, "must not have a fragment"},
		{"no credentials", "https://plants.example.com", nil, "no credentials"},
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
		{"token in the host", "https://" + testToken + ".plants.example.com", []Option{tok}, "base URL holds the bearer token"},
		{"token in the path, escaped", "https://plants.example.com/s3cr3t%2Dt0ken/", []Option{tok}, "base URL holds the bearer token"},
		{"token in a malformed URL", "https://plants.example.com:x/" + testToken, []Option{tok}, "base URL holds the bearer token"},
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

// TestNilContext checks that a nil context, the mistake net/http answers
// with "net/http: nil Context", is an error too and not a panic, for a
// token func as well (which is handed the context).
func TestNilContext(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context // a variable, so that vet does not object
	tokenFunc := WithTokenFunc(func(ctx context.Context) (string, error) {
		return testToken, ctx.Err()
	})
	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{"token", nil},
		{"token func", []Option{tokenFunc}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			_, err := newTestClient(t, srv.URL, tt.opts...).CreatePlant(nilCtx, monstera)
			if want := "plantstore: create plant: nil context"; err == nil || err.Error() != want {
				t.Errorf("CreatePlant(nil, %+v) error = %v, want %q", monstera, err, want)
			}
			if errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = true, want false: nothing was sent", err)
			}
			if n := len(srv.requests()); n != 0 {
				t.Errorf("CreatePlant(nil, %+v) sent %d requests, want 0", monstera, n)
			}
		})
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
			if n := body.read.Load(); n > wire.MaxBodyBytes+64<<10 {
				t.Errorf("CreatePlant read %d bytes of an endless body, want at most about %d", n, wire.MaxBodyBytes)
			}
		})
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
		if n := read.Load(); n > 2*(wire.MaxBodyBytes+1) {
			t.Fatalf("CreatePlant read %d bytes over at most 2 attempts, cap is %d each", n, wire.MaxBodyBytes)
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
