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

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go/internal/testenv"
)

type hookKey struct{}

// hookRecorder records what hooks see, one line per event, and checks that
// each hook gets the context the one before it returned.
type hookRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *hookRecorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *hookRecorder) hooks() Hooks {
	return Hooks{
		CallStart: func(ctx context.Context, call *CallInfo) context.Context {
			r.add("call start %s %s attempts=%d", call.Operation, call.Method, call.Attempts)
			return context.WithValue(ctx, hookKey{}, "call")
		},
		AttemptStart: func(ctx context.Context, call *CallInfo, a Attempt) context.Context {
			r.add("attempt %d start in %v attempts=%d", a.Number, ctx.Value(hookKey{}), call.Attempts)
			return context.WithValue(ctx, hookKey{}, fmt.Sprintf("attempt %d", a.Number))
		},
		AttemptEnd: func(ctx context.Context, call *CallInfo, a Attempt) {
			outcome := fmt.Sprint(a.StatusCode)
			if a.Err != nil {
				outcome = "error"
			}
			r.add("attempt %d end in %v: %s retry=%v wait=%v retry-after=%v attempts=%d",
				a.Number, ctx.Value(hookKey{}), outcome, a.WillRetry, a.Wait, a.RetryAfter, call.Attempts)
		},
		CallEnd: func(ctx context.Context, call *CallInfo, err error) {
			r.add("call end in %v: status=%d attempts=%d err=%v timed=%v", ctx.Value(hookKey{}), call.StatusCode, call.Attempts, err != nil, call.Duration > 0)
		},
	}
}

func TestHooks(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t,
		reply{status: 429, header: map[string]string{"Retry-After": "0"}},
		reply{drop: true},
		reply{status: 200, body: `{"name":"Monstera"}`})
	var rec hookRecorder
	c := newTestClient(t, srv.URL, WithHooks(rec.hooks()), WithRetryBackoff(0, 0))
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	want := []string{
		"call start CreatePlant POST attempts=0",
		"attempt 1 start in call attempts=1",
		"attempt 1 end in attempt 1: 429 retry=true wait=0s retry-after=0s attempts=1",
		"attempt 2 start in call attempts=2",
		"attempt 2 end in attempt 2: error retry=true wait=0s retry-after=0s attempts=2",
		"attempt 3 start in call attempts=3",
		"attempt 3 end in attempt 3: 200 retry=false wait=0s retry-after=0s attempts=3",
		"call end in call: status=200 attempts=3 err=false timed=true",
	}
	if diff := cmp.Diff(want, rec.events); diff != "" {
		t.Errorf("hook events mismatch (-want +got):\n%s", diff)
	}
}

func TestHooksRunInOrderAndSeeFailures(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 400})
	var order []string
	h := func(name string) Hooks {
		return Hooks{CallEnd: func(_ context.Context, call *CallInfo, err error) {
			order = append(order, fmt.Sprintf("%s: %d %v", name, call.StatusCode, err != nil))
		}}
	}
	c := newTestClient(t, srv.URL, WithHooks(h("first")), WithHooks(h("second")))
	if _, err := c.CreatePlant(context.Background(), monstera); err == nil {
		t.Fatal("CreatePlant error = nil, want the 400")
	}
	if diff := cmp.Diff([]string{"first: 400 true", "second: 400 true"}, order); diff != "" {
		t.Errorf("CallEnd order mismatch (-want +got):\n%s", diff)
	}
}

func TestWithHooksNeedsAFunction(t *testing.T) {
	t.Parallel()
	_, err := NewClient("https://plants.example.com", WithToken(testToken), WithHooks(Hooks{}))
	if err == nil || err.Error() != "plantstore: hooks have no function set" {
		t.Errorf("NewClient(WithHooks(Hooks{})) error = %v, want the empty-hooks error", err)
	}
}

// cannedTransport answers every request with the same 200 without a
// network, so that allocation counts see only the client's own work.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader(`{"name":"Monstera","tag":"indoor"}`)),
	}, nil
}

// TestNoHooksNoAllocations proves that hooks cost no allocation: a call
// through a Client with hooks that do nothing allocates exactly as much as
// one through a Client without hooks, so neither the hook machinery nor
// its absence allocates. (Under the race detector sync.Pool drops some
// buffers at random, so the counts may then differ by one.)
func TestNoHooksNoAllocations(t *testing.T) {
	hc := &http.Client{Transport: cannedTransport{}}
	plain, err := NewClient("https://plants.example.com", WithToken(testToken), WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	noop := Hooks{
		CallStart:    func(ctx context.Context, _ *CallInfo) context.Context { return ctx },
		AttemptStart: func(ctx context.Context, _ *CallInfo, _ Attempt) context.Context { return ctx },
		AttemptEnd:   func(context.Context, *CallInfo, Attempt) {},
		CallEnd:      func(context.Context, *CallInfo, error) {},
	}
	hooked, err := NewClient("https://plants.example.com", WithToken(testToken), WithHTTPClient(hc), WithHooks(noop))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	allocs := func(c *Client) float64 {
		return testing.AllocsPerRun(200, func() {
			if _, err := c.CreatePlant(ctx, monstera); err != nil {
				t.Fatal(err)
			}
		})
	}
	without, with := allocs(plain), allocs(hooked)
	t.Logf("allocations per call: %v without hooks, %v with no-op hooks", without, with)
	if without > with {
		t.Errorf("allocations per call without hooks = %v, more than with no-op hooks (%v)", without, with)
	}
	// No-op hooks must not cost allocations either: the hooks get the
	// client's own CallInfo and an Attempt by value.
	if d := with - without; d != 0 && !(testenv.Race && d >= -1 && d <= 1) {
		t.Errorf("allocations per call with no-op hooks = %v, want %v as without hooks", with, without)
	}
}

func BenchmarkCreatePlantCanned(b *testing.B) {
	hc := &http.Client{Transport: cannedTransport{}}
	for _, bc := range []struct {
		name string
		opts []Option
	}{
		{"no hooks", nil},
		{"no-op hooks", []Option{WithHooks(Hooks{CallEnd: func(context.Context, *CallInfo, error) {}})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := NewClient("https://plants.example.com", append([]Option{WithToken(testToken), WithHTTPClient(hc)}, bc.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := c.CreatePlant(ctx, monstera); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestAttemptStartContextNotDerived checks that an AttemptStart hook that
// returns a context not derived from the one it got (a mistake, but an easy
// one) neither panics the call nor detaches it from the caller's context:
// the client keeps the call's own context for that attempt.
func TestAttemptStartContextNotDerived(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
	c := newTestClient(t, srv.URL, WithHooks(Hooks{
		AttemptStart: func(context.Context, *CallInfo, Attempt) context.Context { return context.Background() },
	}))
	var info CallInfo
	if _, err := c.CreatePlant(context.Background(), monstera, WithCallInfo(&info)); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	if info.Attempts != 2 {
		t.Errorf("CallInfo.Attempts = %d, want 2", info.Attempts)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	stalled := newStubServer(t, reply{stall: true})
	c = newTestClient(t, stalled.URL, WithHooks(Hooks{
		AttemptStart: func(context.Context, *CallInfo, Attempt) context.Context { return context.Background() },
	}))
	if _, err := c.CreatePlant(ctx, monstera); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CreatePlant(ctx with a deadline, stalled server) error = %v, want context.DeadlineExceeded", err)
	}
}

type attemptCancelKey struct{}

// boundedAttempts returns hooks that give each attempt a context of its own
// with timeout d, and release it in AttemptEnd: the usual way to bound an
// attempt from a hook.
func boundedAttempts(d time.Duration) Hooks {
	return Hooks{
		AttemptStart: func(ctx context.Context, _ *CallInfo, _ Attempt) context.Context {
			ctx, cancel := context.WithTimeout(ctx, d)
			return context.WithValue(ctx, attemptCancelKey{}, cancel)
		},
		AttemptEnd: func(ctx context.Context, _ *CallInfo, _ Attempt) {
			ctx.Value(attemptCancelKey{}).(context.CancelFunc)()
		},
	}
}

// TestAttemptContextBoundsOnlyItsAttempt checks that the context an
// AttemptStart hook returns ends only its attempt: the retry decision, the
// wait before a retry and the reading of the final answer use the call's
// context, so a hook that cancels its attempt's context in AttemptEnd, or
// gives it a deadline shorter than the server's Retry-After, changes
// nothing.
func TestAttemptContextBoundsOnlyItsAttempt(t *testing.T) {
	t.Parallel()
	ok := reply{status: 200, body: `{"name":"Monstera"}`}
	tests := []struct {
		name    string
		timeout time.Duration
		first   reply
		minWait time.Duration
	}{
		{"cancelled in AttemptEnd", 5 * time.Second, reply{status: 503}, 0},
		{"deadline shorter than Retry-After", 300 * time.Millisecond,
			reply{status: 503, header: map[string]string{"Retry-After": "1"}}, time.Second},
		// and the attempt's context does bound its attempt:
		{"stalled attempt ended by its deadline", 100 * time.Millisecond, reply{stall: true}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.first, ok)
			c := newTestClient(t, srv.URL, WithHooks(boundedAttempts(tt.timeout)))
			var info CallInfo
			start := time.Now()
			p, err := c.CreatePlant(context.Background(), monstera, WithCallInfo(&info))
			if err != nil {
				t.Fatalf("CreatePlant(%+v) error: %v, want the 200 of the retry", monstera, err)
			}
			if p.Name != "Monstera" || info.Attempts != 2 || len(srv.requests()) != 2 {
				t.Errorf("CreatePlant(%+v) = %+v after %d attempts (%d requests), want Monstera after 2",
					monstera, p, info.Attempts, len(srv.requests()))
			}
			if elapsed := time.Since(start); elapsed < tt.minWait {
				t.Errorf("CreatePlant(%+v) took %v, want at least the Retry-After of %v", monstera, elapsed, tt.minWait)
			}
		})
	}
}

// TestAttemptEndCancelKeepsConnection checks that a retried answer's body
// is drained before AttemptEnd runs: a hook that cancels its attempt's
// context there (as boundedAttempts does) must not cost the connection, so
// the retry goes over the same one.
func TestAttemptEndCancelKeepsConnection(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		conns int
		calls int
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":503,"message":"busy, try again"}`)
			return
		}
		io.WriteString(w, `{"id":7,"name":"Monstera","tag":"indoor"}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			conns++
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, WithHooks(boundedAttempts(5*time.Second)))
	t.Cleanup(c.CloseIdleConnections)
	var info CallInfo
	if _, err := c.CreatePlant(context.Background(), monstera, WithCallInfo(&info)); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v, want the 200 of the retry", monstera, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if info.Attempts != 2 || conns != 1 {
		t.Errorf("CreatePlant(%+v) made %d attempts over %d connections, want 2 over 1", monstera, info.Attempts, conns)
	}
}

// TestAttemptMaybeSent checks that the hooks are told, of an attempt that
// got no answer, whether its request may have reached the server, by the
// rule ErrMaybeCreated follows.
func TestAttemptMaybeSent(t *testing.T) {
	t.Parallel()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // a port nothing listens on: the dial fails
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		conn.Close() // after reading the request: it was sent
	}))
	defer broken.Close()
	answered := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
	}))
	defer answered.Close()
	redirected := httptest.NewServer(http.RedirectHandler("/elsewhere", http.StatusTemporaryRedirect))
	defer redirected.Close()
	refuseRedirects := WithHTTPClient(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		return errors.New("no redirects")
	}})
	for _, tc := range []struct {
		name, url string
		opts      []Option
		want      bool
	}{
		{"dial refused", closed.URL, nil, false},
		{"connection closed after the request", broken.URL, nil, true},
		{"an answer", answered.URL, nil, false},
		{"a redirect not followed", redirected.URL, []Option{refuseRedirects}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu  sync.Mutex
				got []bool
			)
			c, err := NewClient(tc.url, append([]Option{WithToken("t"), WithMaxRetries(0), WithHooks(Hooks{
				AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, a.MaybeSent)
				},
			})}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CreatePlant(context.Background(), NewPlant{Name: "fern"})
			if err == nil {
				t.Fatal("CreatePlant succeeded")
			}
			if diff := cmp.Diff([]bool{tc.want}, got); diff != "" {
				t.Errorf("MaybeSent (-want +got):\n%s", diff)
			}
			if errors.Is(err, ErrMaybeCreated) != tc.want {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = %v, want %v as MaybeSent", err, !tc.want, tc.want)
			}
		})
	}
}

// TestHooksReadHeader checks who pays for the response's header: hooks
// with ReadHeader see it, the token it echoes REDACTED; hooks without it
// see none; both see the server's request id, made safe; and a retry's
// answer replaces the first's for both.
func TestHooksReadHeader(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		w.Header().Set("X-Request-Id", fmt.Sprintf("srv-%d-%s", i, testToken))
		w.Header().Set("X-Debug", "Bearer "+testToken)
		if i == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"id":7,"name":"Monstera"}`)
	}))
	t.Cleanup(srv.Close)
	type seen struct {
		Hook, ServerRequestID string
		Header                http.Header
	}
	var got []seen
	record := func(hook string) func(context.Context, *CallInfo, Attempt) {
		return func(_ context.Context, call *CallInfo, _ Attempt) {
			got = append(got, seen{hook, call.ServerRequestID, call.Header.Clone()})
		}
	}
	c := newTestClient(t, srv.URL, WithMaxRetries(1), WithRetryBackoff(time.Millisecond, time.Millisecond),
		WithHooks(Hooks{AttemptEnd: record("plain")}),
		WithHooks(Hooks{AttemptEnd: record("reader"), ReadHeader: true}),
		WithHooks(Hooks{AttemptEnd: record("plain after")}))
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatal(err)
	}
	header := func(i int) http.Header {
		return http.Header{"X-Request-Id": {fmt.Sprintf("srv-%d-REDACTED", i)}, "X-Debug": {"Bearer REDACTED"}}
	}
	want := []seen{
		{"plain", "srv-1-REDACTED", nil},
		{"reader", "srv-1-REDACTED", header(1)},
		{"plain after", "srv-1-REDACTED", header(1)}, // the reader's, shared
		{"plain", "srv-2-REDACTED", nil},
		{"reader", "srv-2-REDACTED", header(2)},
		{"plain after", "srv-2-REDACTED", header(2)},
	}
	ignore := cmpopts.IgnoreMapEntries(func(k string, _ []string) bool { return k != "X-Request-Id" && k != "X-Debug" })
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("what the hooks saw (-want +got):\n%s", diff)
	}
}
