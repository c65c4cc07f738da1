package plantstoretest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: every request a
// Fault held must have been released.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeTB records what NewServer reports through its testing.TB, to test
// reports that would fail a real test. The embedded TB is nil: methods not
// overridden here panic. It has Go 1.25's Output on every Go version, so
// that the fake reports through it the same everywhere.
type fakeTB struct {
	testing.TB

	mu       sync.Mutex
	errors   []string
	fatals   []string
	logs     []string // Logf's, and each line written to Output
	failed   bool     // by Fail; Errorf and Fatalf record themselves
	cleanups []func()
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

// Output returns a writer that records each line written as a log.
func (f *fakeTB) Output() io.Writer { return fakeOutput{f} }

type fakeOutput struct{ f *fakeTB }

func (o fakeOutput) Write(p []byte) (int, error) {
	o.f.mu.Lock()
	defer o.f.mu.Unlock()
	o.f.logs = append(o.f.logs, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	return len(p), nil
}

// nextLine returns "file.go:N", the file and next line of its caller: where
// the fake reports what that line sets off.
func nextLine() string {
	_, file, line, _ := runtime.Caller(1)
	return fmt.Sprintf("%s:%d", filepath.Base(file), line+1)
}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// Fatalf records the message and ends the calling goroutine, as
// testing.T.Fatalf does; call the code under test through runFatal.
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// cleanup runs the registered cleanups, last first, once.
func (f *fakeTB) cleanup() {
	f.mu.Lock()
	fns := f.cleanups
	f.cleanups = nil
	f.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// String describes everything reported through f, for test failures.
func (f *fakeTB) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprintf("failed %v, errors %q, fatals %q, logs %q", f.failed, f.errors, f.fatals, f.logs)
}

// silent reports whether nothing was reported through f: no failure, no
// log.
func (f *fakeTB) silent() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.failed && len(f.errors)+len(f.fatals)+len(f.logs) == 0
}

func (f *fakeTB) logLines() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.logs...)
}

// runFatal runs fn in a goroutine of its own, so that tb.Fatalf ends only
// that goroutine, and reports whether fn returned normally.
func runFatal(fn func()) (returned bool) {
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		fn()
		ok = true
	}()
	return <-done
}

func TestServerClientCreatesPlant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []Option
		wantScheme string
	}{
		{"default token", nil, "http://"},
		{"custom token", []Option{WithToken("my-token")}, "http://"},
		{"TLS", []Option{WithTLS()}, "https://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tt.opts...)
			if !strings.HasPrefix(s.URL, tt.wantScheme) {
				t.Errorf("NewServer(%s).URL = %q, want prefix %q", tt.name, s.URL, tt.wantScheme)
			}
			in := plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}
			got, err := s.Client().CreatePlant(context.Background(), in)
			if err != nil {
				t.Fatalf("CreatePlant(%+v) error = %v, want nil", in, err)
			}
			if diff := cmp.Diff(&plantstore.Plant{Name: "Monstera", Tag: "indoor"}, got); diff != "" {
				t.Errorf("CreatePlant(%+v) mismatch (-want +got):\n%s", in, diff)
			}
			if diff := cmp.Diff([]plantstore.NewPlant{in}, s.Plants()); diff != "" {
				t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("len(Requests()) = %d, want 1", len(reqs))
			}
			if got := reqs[0].Header.Get("Authorization"); got != "Bearer REDACTED" {
				t.Errorf("Requests()[0] Authorization = %q, want %q", got, "Bearer REDACTED")
			}
			if reqs[0].Invalid != nil {
				t.Errorf("Requests()[0].Invalid = %+v, want nil: the client sent an invalid request", reqs[0].Invalid)
			}
		})
	}
}

func TestServerClientOptionsWin(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	in := plantstore.NewPlant{ID: 1, Name: "Fern"}
	_, err := s.Client(plantstore.WithToken("wrong")).CreatePlant(context.Background(), in)
	var apiErr *plantstore.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("CreatePlant(%+v) with a wrong token error = %v, want an *APIError", in, err)
	}
	if apiErr.StatusCode != http.StatusUnauthorized || apiErr.Code != CodeUnauthorized {
		t.Errorf("CreatePlant(%+v) with a wrong token = %d, code %d, want %d, code %d",
			in, apiErr.StatusCode, apiErr.Code, http.StatusUnauthorized, CodeUnauthorized)
	}
}

func TestServerTLSIsReal(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithTLS())
	// A client that does not trust the certificate cannot connect.
	c, err := plantstore.NewClient(s.URL, plantstore.WithToken(string(s.cfg.token)), plantstore.WithMaxRetries(0))
	if err != nil {
		t.Fatalf("NewClient(%q) error = %v", s.URL, err)
	}
	in := plantstore.NewPlant{ID: 1, Name: "Fern"}
	if _, err := c.CreatePlant(context.Background(), in); err == nil {
		t.Errorf("CreatePlant(%+v) with an untrusting client error = nil, want a certificate error", in)
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("len(Requests()) = %d, want 0", got)
	}
}

func TestServerCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	c := s.Client(plantstore.WithMaxRetries(0))
	s.Close()
	s.Close()
	in := plantstore.NewPlant{ID: 1, Name: "Fern"}
	if _, err := c.CreatePlant(context.Background(), in); err == nil {
		t.Errorf("CreatePlant(%+v) after Close error = nil, want a connection error", in)
	}
	// The cleanup registered by NewServer closes again.
}

// TestServerCloseDoesNotWaitForStalledBody checks that Close, and so the
// cleanup, returns while a request's body is still on its way: a client that
// stalls must not hang the test that owns the server.
func TestServerCloseDoesNotWaitForStalledBody(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	// Deferred calls run before the cleanup, so a failure below releases
	// the request and the cleanup's Close cannot hang.
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(waitTimeout)); err != nil {
		t.Fatal(err)
	}
	// With "Expect: 100-continue", the server answers 100 once the handler
	// starts reading the body: proof that the request is in progress.
	head := "POST /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer " + DefaultToken +
		"\r\nContent-Type: application/json\r\nContent-Length: 30\r\nExpect: 100-continue\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	for _, want := range []string{"HTTP/1.1 100 Continue\r\n", "\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("reading the 100 Continue: got %q, %v; want %q", line, err, want)
		}
	}
	if _, err := io.WriteString(conn, `{"id":1`); err != nil { // 7 of the 30 bytes
		t.Fatal(err)
	}

	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	waitFor(t, "Close to return with a body stalled", closed)
	// Dropped: EOF or a reset, and no response.
	if rest, err := io.ReadAll(r); len(rest) != 0 || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("after Close, the connection gave %q, %v; want it dropped with no response", rest, err)
	}
	if got := s.Plants(); len(got) != 0 {
		t.Errorf("Plants() = %+v, want none", got)
	}
}

// TestOversizedBodyKeepsTheConnection checks that a body a little over the
// limit, such as the conformance kit's largest probe, is refused without
// closing the connection. A connection closed with part of a body unread
// lingers for half a second in net/http before it closes, and Close, and
// so the test's cleanup, waits for it.
func TestOversizedBodyKeepsTheConnection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{"loopback", nil},
		{"in memory", []Option{WithInMemoryNetwork()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tt.opts...)
			client := s.HTTPClient()
			var reused []bool
			trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) }}
			bodies := []string{
				`{"id":1,"name":"` + strings.Repeat("n", maxBodyBytes+1<<10) + `"}`,
				`{"id":2,"name":"Fern"}`,
			}
			var statuses []int
			for _, body := range bodies {
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					http.MethodPost, s.URL+"/plants", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+DefaultToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses = append(statuses, resp.StatusCode)
			}
			if diff := cmp.Diff([]int{http.StatusBadRequest, http.StatusOK}, statuses); diff != "" {
				t.Errorf("statuses mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]bool{false, true}, reused); diff != "" {
				t.Errorf("connection reused per request mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWithJournalLimit(t *testing.T) {
	t.Parallel()
	const sent = 10
	tests := []struct {
		name string
		opts []Option
		want []int64 // ids of the requests Requests returns
	}{
		{"default keeps all", nil, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"limit 0", []Option{WithJournalLimit(0)}, nil},
		{"limit 1", []Option{WithJournalLimit(1)}, []int64{10}},
		{"limit 3", []Option{WithJournalLimit(3)}, []int64{8, 9, 10}},
		{"limit 4", []Option{WithJournalLimit(4)}, []int64{7, 8, 9, 10}},
		{"limit above count", []Option{WithJournalLimit(20)}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"last option wins", []Option{WithJournalLimit(0), WithJournalLimit(2)}, []int64{9, 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tt.opts...)
			for id := 1; id <= sent; id++ {
				post(t, s, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id))
			}
			var got []int64
			for _, r := range s.Requests() {
				got = append(got, r.Plant.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ids of Requests() mismatch (-want +got):\n%s", diff)
			}
			if n := len(s.Plants()); n != sent {
				t.Errorf("len(Plants()) = %d, want %d: the limit is on requests only", n, sent)
			}
			// Memory stays bounded: at most twice the limit is held.
			s.mu.Lock()
			held := len(s.journal.requests)
			s.mu.Unlock()
			if len(tt.want) < sent && held > 2*len(tt.want) {
				t.Errorf("the Handler holds %d requests, want at most %d", held, 2*len(tt.want))
			}
		})
	}
}

func TestWithJournalLimitRejectsNegative(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	if runFatal(func() { NewServer(tb, WithJournalLimit(-1)) }) {
		t.Errorf("NewServer(WithJournalLimit(-1)) returned, want tb.Fatalf")
	}
	tb.cleanup()
	want := []string{"plantstoretest: WithJournalLimit(-1): the limit must be 0 or more"}
	if diff := cmp.Diff(want, tb.fatals); diff != "" {
		t.Errorf("Fatalf calls mismatch (-want +got):\n%s", diff)
	}
}

func TestNewServerRejectsInvalidToken(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"", "has space", "tab\t", "naïve"} {
		tb := &fakeTB{}
		if runFatal(func() { NewServer(tb, WithToken(token)) }) {
			t.Errorf("NewServer(WithToken(%q)) returned, want tb.Fatalf", token)
		}
		tb.cleanup()
		if len(tb.fatals) != 1 || !strings.HasPrefix(tb.fatals[0], "plantstoretest: token") {
			t.Errorf("NewServer(WithToken(%q)) Fatalf calls = %q, want one about the token", token, tb.fatals)
		}
	}
}

func TestNewHandlerPanicsOnInvalidToken(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "token must not be empty") {
			t.Errorf("NewHandler(WithToken(\"\")) panic = %v, want one about the empty token", r)
		}
	}()
	NewHandler(WithToken(""))
}

func TestCleanupReportsUnusedFaults(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	s := NewServer(tb)
	s.Inject(Fault{Status: http.StatusServiceUnavailable}) // used
	s.Inject(Fault{Drop: true, Store: true})               // never used
	at := nextLine()
	s.Inject(Fault{Status: http.StatusTooManyRequests, Times: 3, Match: func(Request) bool { return true }})
	c := s.Client(plantstore.WithMaxRetries(0))
	for i := range 2 {
		c.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i), Name: "Fern"})
	}
	// First call: 503 (#1). Second: dropped (#2), so #3 is untouched.
	if got := repliesLeft(s.Faults()); got != 3 {
		t.Errorf("replies left = %d, want 3", got)
	}
	tb.cleanup()
	// Reported at the Inject (through Output), and naming it for Go
	// versions where the report is at NewServer's line.
	want := []string{
		at + ": plantstoretest: injected Fault #3 (429 retry-after=none, Match) at " + at + " was used 0 of 3 times",
	}
	if diff := cmp.Diff(want, tb.logs); !tb.failed || diff != "" {
		t.Errorf("cleanup's report: failed %v, mismatch (-want +got):\n%s", tb.failed, diff)
	}

	// Now with a fault left partly used.
	tb = &fakeTB{}
	s = NewServer(tb)
	at = nextLine()
	s.AddFault(Fault{Status: http.StatusBadGateway, Times: 2}) // AddFault's are reported alike
	s.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	tb.cleanup()
	want = []string{at + ": plantstoretest: injected Fault #1 (502) at " + at + " was used 1 of 2 times"}
	if diff := cmp.Diff(want, tb.logs); !tb.failed || diff != "" {
		t.Errorf("cleanup's report: failed %v, mismatch (-want +got):\n%s", tb.failed, diff)
	}
}

func TestCleanupIsSilentWhenFaultsAreUsed(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	s := NewServer(tb)
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}, Times: 2})
	if _, err := s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
		t.Errorf("CreatePlant after two 503s error = %v, want nil", err)
	}
	tb.cleanup()
	if !tb.silent() {
		t.Errorf("fake TB got %v, want nothing", tb)
	}
}

func TestWithLogging(t *testing.T) {
	t.Parallel()
	const token = "very-secret-token"
	tb := &fakeTB{}
	at := nextLine()
	s := NewServer(tb, WithToken(token), WithLogging())
	defer tb.cleanup()
	s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	s.Inject(Fault{Drop: true})
	s.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), plantstore.NewPlant{ID: 2, Name: "Ivy"})

	logs := tb.logLines()
	if len(logs) != 2 {
		t.Fatalf("after 2 requests, Logf lines = %q, want 2", logs)
	}
	for i, want := range []string{"plantstoretest: POST /plants -> 200 in ", "plantstoretest: POST /plants -> no response (fault: inject#1 2:drop) in "} {
		if want = at + ": " + want; !strings.HasPrefix(logs[i], want) {
			t.Errorf("Logf line %d = %q, want prefix %q", i, logs[i], want)
		}
		if strings.Contains(logs[i], token) {
			t.Errorf("Logf line %d = %q, contains the token", i, logs[i])
		}
	}
}

// TestWithLoggingServerErrors checks that the http.Server's own errors, here
// a failed TLS handshake, reach tb.Logf under WithLogging and nowhere
// otherwise (net/http would print them on stderr).
func TestWithLoggingServerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
		want []string // prefixes of the Logf lines
	}{
		{"quiet by default", []Option{WithTLS()}, nil},
		{"WithLogging", []Option{WithTLS(), WithLogging()}, []string{"plantstoretest: http: TLS handshake error from 127.0.0.1:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &fakeTB{}
			at := nextLine()
			s := NewServer(tb, tt.opts...)
			defer tb.cleanup()

			conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "https://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Write([]byte("not a TLS handshake\r\n")); err != nil {
				t.Fatal(err)
			}
			// The server logs the failed handshake before it closes the
			// connection, so the log is written once the read sees EOF.
			if _, err := io.ReadAll(conn); err != nil {
				t.Fatalf("reading until the server closes: %v", err)
			}

			logs := tb.logLines()
			if len(logs) != len(tt.want) {
				t.Fatalf("Logf lines = %q, want %d", logs, len(tt.want))
			}
			for i, want := range tt.want {
				if want = at + ": " + want; !strings.HasPrefix(logs[i], want) {
					t.Errorf("Logf line %d = %q, want prefix %q", i, logs[i], want)
				}
			}
		})
	}
}

func TestQuietByDefault(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	s := NewServer(tb)
	s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	post(t, s, `not json`)
	tb.cleanup()
	if !tb.silent() {
		t.Errorf("fake TB got %v, want nothing", tb)
	}
}

func TestWithLogger(t *testing.T) {
	t.Parallel()
	const token = "very-secret-token"
	var buf syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	s := NewServer(t, WithToken(token), WithLogger(logger))
	s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	s.Inject(Fault{Status: http.StatusServiceUnavailable})
	s.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), plantstore.NewPlant{ID: 2, Name: "Ivy"})
	send(t, s, http.MethodGet, "/nowhere", http.Header{"Authorization": {"Bearer " + token}}, "")

	want := `level=DEBUG msg="plantstoretest request" method=POST path=/plants status=200
level=DEBUG msg="plantstoretest request" method=POST path=/plants status=503 fault="inject#1 2:503 retry-after=none"
level=DEBUG msg="plantstoretest request" method=GET path=/nowhere status=404
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("log mismatch (-want +got):\n%s", diff)
	}

	// The lines are debug records: a logger at slog's default level, info,
	// writes none.
	var quiet syncbuf.Buffer
	s = NewServer(t, WithLogger(slog.New(slog.NewTextHandler(&quiet, nil))))
	if _, err := s.Client().CreatePlant(context.Background(), fern); err != nil {
		t.Fatal(err)
	}
	if got := quiet.String(); got != "" {
		t.Errorf("a logger at info level wrote %q, want nothing", got)
	}
}

func TestConcurrentCreatesLoseNothing(t *testing.T) {
	t.Parallel()
	const (
		goroutines = 50
		perG       = 40
		faults     = 200
	)
	s := NewServer(t)
	// Some attempts fail first; every call gets through eventually, since
	// there are fewer faults than retries per call.
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}, Times: faults})
	// Without a retry budget: it would rightly refuse retries to the first
	// 200 failures in a row, and this test is about the store, not the client.
	c := s.Client(plantstore.WithMaxRetries(faults+1), plantstore.WithoutRetryBudget())

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*perG)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				in := plantstore.NewPlant{ID: int64(g*perG + i), Name: fmt.Sprintf("plant %d", g*perG+i)}
				if _, err := c.CreatePlant(ctx, in); err != nil {
					errs <- fmt.Errorf("CreatePlant(%+v): %w", in, err)
				}
				if i%8 == 0 {
					_ = s.Plants() // readers alongside writers, for the race detector
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	plants := s.Plants()
	if len(plants) != goroutines*perG {
		t.Fatalf("len(Plants()) = %d, want %d", len(plants), goroutines*perG)
	}
	ids := make([]int, len(plants))
	for i, p := range plants {
		ids[i] = int(p.ID)
		if want := fmt.Sprintf("plant %d", p.ID); p.Name != want {
			t.Errorf("Plants()[%d] = %+v, want name %q", i, p, want)
		}
	}
	sort.Ints(ids)
	for i, id := range ids {
		if id != i {
			t.Fatalf("sorted ids[%d] = %d, want %d: a plant was lost or duplicated", i, id, i)
		}
	}
	if got, want := len(s.Requests()), goroutines*perG+faults; got != want {
		t.Errorf("len(Requests()) = %d, want %d", got, want)
	}
	if got := repliesLeft(s.Faults()); got != 0 {
		t.Errorf("replies left = %d, want 0", got)
	}
}

func TestParallelServersAreIndependent(t *testing.T) {
	t.Parallel()
	a, b := NewServer(t), NewServer(t, WithToken("other"))
	a.Inject(Fault{Status: http.StatusServiceUnavailable})
	in := plantstore.NewPlant{ID: 1, Name: "Fern"}
	if _, err := b.Client().CreatePlant(context.Background(), in); err != nil {
		t.Fatalf("b.CreatePlant(%+v) error = %v, want nil", in, err)
	}
	if got := len(a.Plants()) + len(a.Requests()); got != 0 {
		t.Errorf("a saw %d plants and requests sent to b, want 0", got)
	}
	if got := repliesLeft(a.Faults()); got != 1 {
		t.Errorf("repliesLeft(a.Faults()) = %d, want 1", got)
	}
	a.Reset() // the fault was for this test only
}

// TestCallbackPanicsWithoutTest checks that a Handler from NewHandler, with
// no test to fail, lets a callback's panic go on out of ServeHTTP, is still
// usable afterwards (a Match panics with the Handler's state locked), and
// journals the request as dropped, as OutcomeDropped documents: not missing,
// and not held for ever; the request a rule panicked on as invalid.
func TestCallbackPanicsWithoutTest(t *testing.T) {
	t.Parallel()
	boom := func() { panic("boom") }
	tests := []struct {
		name        string
		setup       func() *Handler
		want        string // the panic's value
		wantInvalid int32  // the code of the journal's Invalid, or 0 for none
	}{
		{"rule", func() *Handler {
			return NewHandler(WithRule(func(plantstore.NewPlant) *ErrorBody { boom(); return nil }))
		}, `plantstoretest: a WithRule rule panicked on {ID:1 Name:Fern Tag:}: boom`, CodeCallbackPanic},
		{"match", func() *Handler {
			h := NewHandler()
			h.Inject(Fault{Match: func(Request) bool { boom(); return false }, Status: http.StatusServiceUnavailable})
			return h
		}, "plantstoretest: the Match of injected Fault #1 panicked: boom", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := tt.setup()
			defer h.Close()
			serve := func() (recovered any) {
				defer func() { recovered = recover() }()
				r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
				r.Header.Set("Authorization", "Bearer "+DefaultToken)
				r.Header.Set("Content-Type", "application/json")
				h.ServeHTTP(httptest.NewRecorder(), r)
				return nil
			}
			if got := serve(); got != tt.want {
				t.Errorf("ServeHTTP panicked with %#v, want %#v", got, tt.want)
			}
			requests := make(chan []Request, 1)
			go func() { requests <- h.Requests() }()
			got := waitFor(t, "Requests after the panic", requests)
			if len(got) != 1 {
				t.Fatalf("len(Requests()) after the panic = %d, want 1", len(got))
			}
			if got[0].Outcome != OutcomeDropped || got[0].Status != 0 || got[0].Seq != 1 {
				t.Errorf("Requests()[0] after the panic: Seq %d, Outcome %q, Status %d; want 1, %q, 0",
					got[0].Seq, got[0].Outcome, got[0].Status, OutcomeDropped)
			}
			if invalid := got[0].Invalid; (invalid == nil) != (tt.wantInvalid == 0) || invalid != nil && invalid.Code != tt.wantInvalid {
				t.Errorf("Requests()[0].Invalid after the panic = %+v, want code %d", invalid, tt.wantInvalid)
			}
		})
	}
}

// TestCallbackPanicsInSeed checks a WithRule rule that panics on a plant
// given to Seed: under NewServer the test fails and Seed refuses the plant
// with CodeCallbackPanic; a Handler from NewHandler lets the panic go on out
// of Seed and stays usable. Either way nothing is stored.
func TestCallbackPanicsInSeed(t *testing.T) {
	t.Parallel()
	rule := WithRule(func(plantstore.NewPlant) *ErrorBody { panic("boom") })
	t.Run("NewServer", func(t *testing.T) {
		t.Parallel()
		tb := &fakeTB{}
		s := NewServer(tb, rule)
		err := s.Seed([]plantstore.NewPlant{fern})
		var seedErr *SeedError
		if !errors.As(err, &seedErr) || seedErr.Index != 0 || seedErr.Body.Code != CodeCallbackPanic {
			t.Errorf("Seed with a panicking rule: %v, want a *SeedError at index 0 with CodeCallbackPanic", err)
		}
		tb.cleanup()
		if want := "plantstoretest: a WithRule rule panicked on {ID:1 Name:Fern Tag:}: boom"; !tb.failed || len(tb.logs) != 1 || !strings.HasSuffix(tb.logs[0], want) {
			t.Errorf("failed %v, logs %q; want failed, and one log ending %q", tb.failed, tb.logs, want)
		}
		if got := s.Plants(); len(got) != 0 {
			t.Errorf("Plants() = %+v, want none", got)
		}
	})
	t.Run("NewHandler", func(t *testing.T) {
		t.Parallel()
		h := NewHandler(rule)
		defer h.Close()
		got := panicOf(func() { _ = h.Seed([]plantstore.NewPlant{fern}) })
		if want := "plantstoretest: a WithRule rule panicked on {ID:1 Name:Fern Tag:}: boom"; got != want {
			t.Errorf("Seed with a panicking rule panicked with %#v, want %#v", got, want)
		}
		if got := h.Plants(); len(got) != 0 {
			t.Errorf("Plants() = %+v, want none", got)
		}
	})
}

func TestCallbackPanicsFailTheTest(t *testing.T) {
	t.Parallel()
	t.Run("rule", func(t *testing.T) {
		t.Parallel()
		tb := &fakeTB{}
		at := nextLine()
		s := NewServer(tb, WithRule(func(plantstore.NewPlant) *ErrorBody { panic("boom") }))
		resp := post(t, s, `{"id":1,"name":"Fern"}`)
		checkError(t, "POST /plants with a panicking rule", resp, http.StatusInternalServerError, CodeCallbackPanic, "panicked: boom")
		tb.cleanup()
		want := at + ": plantstoretest: a WithRule rule panicked"
		if !tb.failed || len(tb.logs) != 1 || !strings.HasPrefix(tb.logs[0], want) {
			t.Errorf("failed %v, logs %q; want failed, and one log starting %q", tb.failed, tb.logs, want)
		}
		if got := s.Plants(); len(got) != 0 {
			t.Errorf("Plants() = %+v, want none", got)
		}
	})
	t.Run("match", func(t *testing.T) {
		t.Parallel()
		tb := &fakeTB{}
		s := NewServer(tb)
		at := nextLine()
		s.Inject(Fault{Match: func(Request) bool { panic("boom") }, Status: http.StatusServiceUnavailable})
		if resp := post(t, s, `{"id":1,"name":"Fern"}`); resp.status != http.StatusOK {
			t.Errorf("POST /plants past a panicking Match status = %d, want 200 (no match)", resp.status)
		}
		tb.cleanup()
		want := []string{
			at + ": plantstoretest: the Match of injected Fault #1 panicked: boom",
			at + ": plantstoretest: injected Fault #1 (503 retry-after=none, Match) at " + at + " was used 0 of 1 times",
		}
		if diff := cmp.Diff(want, tb.logs); !tb.failed || diff != "" {
			t.Errorf("failed %v, logs mismatch (-want +got):\n%s", tb.failed, diff)
		}
	})
}
