package plantstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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

// TestHTTPClientTimeoutBoundsEachAttempt holds WithHTTPClient's doc to
// its word: hc.Timeout bounds each attempt, not the call, so a stalled
// attempt is retried. It must hold too when the attempt has a context of
// its own (a hook's, WithAttemptTimeout's), which the client's transport
// puts on the request below net/http's Timeout.
func TestHTTPClientTimeoutBoundsEachAttempt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []Option
		calls []CallOption
	}{
		{"alone", nil, nil},
		{"under a hook's attempt context", []Option{WithHooks(boundedAttempts(time.Minute))}, nil},
		{"under WithAttemptTimeout", nil, []CallOption{WithAttemptTimeout(time.Minute)}},
	}
	// A transport that heeds the request's context alone, as
	// Request.Cancel's deprecation asks: the Timeout must reach it there.
	contextOnly := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		//lint:ignore SA1019 this transport stands for one that ignores the deprecated field
		r.Cancel = nil
		return http.DefaultTransport.RoundTrip(r)
	})
	for _, tt := range tests {
		for _, rt := range []http.RoundTripper{nil, contextOnly} {
			name := tt.name
			if rt != nil {
				name += ", context-only transport"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				timeoutCase(t, rt, tt.opts, tt.calls)
			})
		}
	}
}

// timeoutCase is one case of TestHTTPClientTimeoutBoundsEachAttempt: a
// client over rt with a 100ms Timeout, and a server that stalls the first
// attempt.
func timeoutCase(t *testing.T, rt http.RoundTripper, opts []Option, calls []CallOption) {
	t.Helper()
	srv := newStubServer(t, reply{stall: true}, reply{status: 200, body: `{"name":"Monstera"}`})
	hc := &http.Client{Timeout: 100 * time.Millisecond, Transport: rt}
	c := newTestClient(t, srv.URL, append([]Option{WithHTTPClient(hc)}, opts...)...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var info CallInfo
	_, err := c.CreatePlant(ctx, monstera, append(calls, WithCallInfo(&info))...)
	if err != nil || info.Attempts != 2 {
		t.Errorf("CreatePlant(%+v) = %v after %d attempts, want success after 2: hc.Timeout ends the stalled first", monstera, err, info.Attempts)
	}
}

func TestDefaultTransport(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "https://plants.example.com")
	tr, ok := c.retry.HTTPClient.Transport.(attemptTransport).rt.(*http.Transport)
	if !ok {
		t.Fatalf("default transport is %T, want *http.Transport behind attemptTransport", c.retry.HTTPClient.Transport)
	}
	if tr.MaxIdleConnsPerHost < 32 || tr.ResponseHeaderTimeout == 0 || tr.TLSHandshakeTimeout == 0 || tr.Proxy == nil {
		t.Errorf("default transport = %+v, want pooled idle connections, timeouts and proxy support", tr)
	}
	if tr.MaxResponseHeaderBytes != maxResponseHeaderBytes {
		t.Errorf("default transport MaxResponseHeaderBytes = %d, want %d", tr.MaxResponseHeaderBytes, maxResponseHeaderBytes)
	}
	if _, ok := c.retry.HTTPClient.Transport.(interface{ CloseIdleConnections() }); ok {
		t.Error("the client's transport exposes CloseIdleConnections, which go-retryablehttp would call after every failure")
	}
}

// TestResponseHeaderLimit checks that the default transport bounds the
// response headers it reads, and that headers over the bound fail the call
// at once: the server answered, so repeating the request would only repeat
// the answer (and the cost of reading it).
func TestResponseHeaderLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		headers  int // how many headers of size bytes each
		size     int
		http2    bool
		wantText string // in the error; "" for no error
	}{
		{"32 KiB", 1, 32 << 10, false, ""},
		{"128 KiB", 1, 128 << 10, false, "response headers exceeded 65536 bytes"},
		{"16 MiB", 1, 16 << 20, false, "response headers exceeded 65536 bytes"},
		{"32 KiB over HTTP/2", 32, 1 << 10, true, ""},
		// Over HTTP/2 the limit shows as a connection error: HPACK refuses
		// a single string over it, and the framer a list.
		{"128 KiB over HTTP/2", 128, 1 << 10, true, "connection error: PROTOCOL_ERROR"},
		{"one 128 KiB header over HTTP/2", 1, 128 << 10, true, "connection error: COMPRESSION_ERROR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				for i := range tt.headers {
					w.Header().Set(fmt.Sprintf("X-Big-%d", i), strings.Repeat("x", tt.size))
				}
				w.WriteHeader(http.StatusServiceUnavailable) // retried, but for the headers
			}))
			var opts []Option
			if tt.http2 {
				// The default transport, trusting the test server's
				// certificate.
				srv.EnableHTTP2 = true
				srv.StartTLS()
				tr := newTransport()
				tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
				t.Cleanup(tr.CloseIdleConnections)
				opts = append(opts, WithHTTPClient(&http.Client{Transport: tr}))
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			_, err := newTestClient(t, srv.URL, opts...).CreatePlant(context.Background(), monstera)
			if tt.wantText == "" {
				var apiErr *APIError
				if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
					t.Errorf("CreatePlant with %s of headers: error = %v, want the 503 as an *APIError", tt.name, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("CreatePlant with %s of headers: error = %v, want one containing %q", tt.name, err, tt.wantText)
			}
			if !errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = false, want true: the server answered", err)
			}
			if got := n.Load(); got != 1 {
				t.Errorf("server saw %d requests, want 1 (not retried)", got)
			}
		})
	}
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

func TestCloseIdleConnections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts func(t *testing.T) []Option
	}{
		{"default transport", func(*testing.T) []Option { return nil }},
		// The doc promises the caller's transport's idle connections too.
		{"WithHTTPClient", func(t *testing.T) []Option {
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			return []Option{WithHTTPClient(&http.Client{Transport: tr})}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
			c := newTestClient(t, srv.URL, tt.opts(t)...)
			if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
				t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
			}
			c.CloseIdleConnections()
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the idle connection was still open 10s after CloseIdleConnections")
			}
		})
	}
}
