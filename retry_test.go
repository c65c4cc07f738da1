package plantstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

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
			if apiErr.StatusCode != tt.wantStatus || attemptsOf(err) != tt.wantAttempts {
				t.Errorf("CreatePlant(%+v) = status %d after %d attempts, want %d after %d",
					monstera, apiErr.StatusCode, attemptsOf(err), tt.wantStatus, tt.wantAttempts)
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
	want := "plantstore: create plant: 503 Service Unavailable: last (error 3) (after 3 attempts) (the plant may have been created)"
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
			if attemptsOf(err) != 1 || len(srv.requests()) != 1 {
				t.Errorf("CreatePlant(%+v) made %d attempts, want 1", monstera, attemptsOf(err))
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

// TestRetryAfterOneValuePerAnswer checks that the last answer's
// Retry-After, given as an HTTP date, is one wait wherever the call reports
// it: in the last attempt's AttemptEnd and in the APIError. Read again at a
// later moment, a date gives a shorter wait.
func TestRetryAfterOneValuePerAnswer(t *testing.T) {
	t.Parallel()
	date := time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)
	srv := newStubServer(t, reply{status: 503, header: map[string]string{"Retry-After": date}})
	var last Attempt
	c := newTestClient(t, srv.URL, WithHooks(Hooks{AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) { last = a }}))
	_, err := c.CreatePlant(context.Background(), monstera)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", monstera, err)
	}
	if last.Number != 1 || last.RetryAfter != apiErr.RetryAfter || apiErr.RetryAfter <= time.Hour {
		t.Errorf("Retry-After %s: last attempt %d's RetryAfter = %v, APIError.RetryAfter = %v; want one wait of about 2h",
			date, last.Number, last.RetryAfter, apiErr.RetryAfter)
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
			case !tt.reply.drop && (!errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable || attemptsOf(err) != 1):
				t.Errorf("CreatePlant(%+v) error = %v, want the 503 *APIError after 1 attempt", monstera, err)
			case tt.reply.drop && (err == nil || errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrMaybeCreated)):
				t.Errorf("CreatePlant(%+v) error = %v, want the dropped connection, as maybe created", monstera, err)
			}
		})
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
	wantEnd := "(after 3 attempts) (the plant may have been created)"
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), wantEnd) {
		t.Errorf("CreatePlant error = %q, want %q... %s", err, want, wantEnd)
	}
}

func TestLogger(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t,
		reply{status: 503, header: map[string]string{"Retry-After": "0", "X-Request-Id": "srv-1"}},
		reply{drop: true}, // no answer, so no server_request_id
		reply{status: 400, header: map[string]string{"X-Request-Id": "srv-3"}, body: `{"error":3,"message":"no"}`})
	var buf syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		// Durations vary; the test checks that they are there, in place.
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			switch a.Key {
			case slog.TimeKey:
				return slog.Attr{}
			case "duration", "wait":
				return slog.String(a.Key, "D")
			case "error":
				return slog.String(a.Key, "E")
			case "reason":
				if strings.HasPrefix(a.Value.String(), "Post ") {
					return slog.String(a.Key, "E")
				}
			}
			return a
		},
	}))
	c := newTestClient(t, srv.URL, WithLogger(logger), WithRetryBackoff(0, 0))
	_, err := c.CreatePlant(context.Background(), monstera, WithRequestID("req-1"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("CreatePlant(%+v) error = %v, want the 400", monstera, err)
	}
	u := srv.URL + "/plants"
	want := []string{
		`level=DEBUG msg="plantstore: attempt" method=POST url=` + u + ` request_id=req-1 attempt=1 status=503 duration=D server_request_id=srv-1`,
		`level=INFO msg="plantstore: retrying" method=POST url=` + u + ` request_id=req-1 attempt=1 reason="status 503" wait=D retry_after=0s`,
		`level=DEBUG msg="plantstore: attempt" method=POST url=` + u + ` request_id=req-1 attempt=2 error=E duration=D`,
		`level=INFO msg="plantstore: retrying" method=POST url=` + u + ` request_id=req-1 attempt=2 reason=E wait=D retry_after=0s`,
		`level=DEBUG msg="plantstore: attempt" method=POST url=` + u + ` request_id=req-1 attempt=3 status=400 duration=D server_request_id=srv-3`,
	}
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(buf.String(), testToken) {
		t.Errorf("log contains the token:\n%s", buf.String())
	}
}

// TestQuietByDefault runs a failing, retried call in a child process and
// checks that the library printed nothing. A child process is the only
// reliable witness: a logger can hold its own copy of os.Stderr.
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
