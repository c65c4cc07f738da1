package bench

// The benchmarks here measure what the SDK costs on top of the call a careful
// user would write by hand (package internal/baseline), in the same run and
// against the same server. bench/bench.sh runs them interleaved, adds
// instruction counts from callgrind, and prints the ratios; BENCHMARKS.md
// records the figures.
//
// Sub-benchmark names use key=value pairs so that benchstat can put the two
// implementations side by side:
//
//	go test -run '^$' -bench CreatePlant -benchmem -count 6 . > new.txt
//	benchstat -col /impl new.txt
//
// -count repeats each benchmark back to back; bench/bench.sh runs the
// suite several times instead, so that raw and sdk alternate.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/bench/internal/baseline"
	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// benchParallelism is the b.SetParallelism factor of the parallel
// benchmarks: 16 goroutines per GOMAXPROCS.
const benchParallelism = 16

// createFunc is one create-plant call, by hand or through the SDK.
type createFunc = baseline.Create

// newCreate is [baseline.NewCreate] for a benchmark or test: an unknown impl
// or a failing NewClient fails tb.
func newCreate(tb testing.TB, impl, baseURL string, opts ...plantstore.Option) (createFunc, func()) {
	tb.Helper()
	create, closeIdle, err := baseline.NewCreate(impl, baseURL, opts...)
	if err != nil {
		tb.Fatalf("baseline.NewCreate(%q, %q) error: %v", impl, baseURL, err)
	}
	return create, closeIdle
}

// BenchmarkCreatePlant compares the SDK's CreatePlant with its peers (see
// [baseline.NewCreate]): the hand-written call with four headers (raw) and
// with the six the SDK will send (rawsix), and the oapi-codegen client with
// the same six (oapi). Each makes one call at a time and calls from
// 16×GOMAXPROCS goroutines, against a server that reads the body and answers
// a fixed Plant.
func BenchmarkCreatePlant(b *testing.B) {
	srv := httptest.NewServer(baseline.Handler())
	defer srv.Close()
	for _, mode := range []string{"seq", "par"} {
		for _, impl := range baseline.Impls {
			b.Run("mode="+mode+"/impl="+impl, func(b *testing.B) {
				create, closeIdle := newCreate(b, impl, srv.URL)
				defer closeIdle()
				if mode == "seq" {
					benchSequential(b, create)
				} else {
					benchParallel(b, create)
				}
			})
		}
	}
}

// BenchmarkCreatePlantTraffic is the SDK's sequential create without and
// with a traffic.Recorder's hooks (issue 29: at most 2 % more).
func BenchmarkCreatePlantTraffic(b *testing.B) {
	srv := httptest.NewServer(baseline.Handler())
	defer srv.Close()
	for _, impl := range []string{"sdk", "sdk-traffic"} {
		b.Run("impl="+impl, func(b *testing.B) {
			create, closeIdle := newCreate(b, impl, srv.URL)
			defer closeIdle()
			benchSequential(b, create)
		})
	}
}

func benchSequential(b *testing.B, create createFunc) {
	ctx := context.Background()
	if err := create(ctx, baseline.Plant(-1)); err != nil { // dial outside the timer
		b.Fatalf("warm-up create error: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := create(ctx, baseline.Plant(int64(i))); err != nil {
			b.Fatalf("create %d error: %v", i, err)
		}
	}
}

// benchCPU runs create under benchParallel, reports the process's CPU time
// per create (cpu-ns/op, where the platform tells it), and then runs check,
// if any, on the b.N creates.
func benchCPU(b *testing.B, create createFunc, check func(tb testing.TB, creates int)) {
	start := processCPU()
	benchParallel(b, create)
	b.StopTimer()
	if cpu := processCPU() - start; start >= 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	if check != nil {
		check(b, b.N)
	}
}

// benchParallel runs b.N creates with distinct ids from
// benchParallelism×GOMAXPROCS goroutines and fails b if any failed.
func benchParallel(b *testing.B, create createFunc) {
	var (
		next   atomic.Int64
		failed atomic.Int64
		first  atomic.Value
	)
	b.ReportAllocs()
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := create(ctx, baseline.Plant(next.Add(1))); err != nil {
				if failed.Add(1) == 1 {
					first.Store(err)
				}
			}
		}
	})
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d creates failed, first: %v", n, b.N, first.Load())
	}
}

// journalLimit is how many requests the fake keeps for Requests in
// BenchmarkServerThroughput: the mock's default (-journal 10000), so the fake
// does the journal's work at the bounded memory a long run needs.
const journalLimit = 10_000

// A serverUnderTest is one server the benchmarks measure. journaled builds
// its handler as BenchmarkServerThroughput runs it, journal on; its check,
// when not nil, is called after the run with the number of creates sent and
// fails tb if the server did not store and journal them. store, nil for a
// server that keeps nothing, builds it for BenchmarkPlantMemory with the
// journal off (the journal is bounded, not part of a plant's cost).
type serverUnderTest struct {
	name      string
	journaled func(tb testing.TB) (h http.Handler, check func(tb testing.TB, creates int))
	store     func(tb testing.TB) http.Handler
}

// serversUnderTest are the servers of BenchmarkServerThroughput, each
// mounted in the same httptest server and driven by the same client, and
// those of BenchmarkPlantMemory.
var serversUnderTest = []serverUnderTest{
	{name: "bare", journaled: func(testing.TB) (http.Handler, func(testing.TB, int)) { return bareHandler(), nil }},
	{name: "fake", journaled: newJournaledFake, store: newFakeStore},
	{name: "mock", journaled: func(tb testing.TB) (http.Handler, func(testing.TB, int)) { return newMock(tb, false) }},
	{name: "mock-log", journaled: func(tb testing.TB) (http.Handler, func(testing.TB, int)) { return newMock(tb, true) }},
}

// newMock is the whole handler of cmd/plantstore-mock with its defaults:
// the control API in front of the fake, the journal keeping the last
// mockserver.DefaultJournal requests with bodies cut at
// mockserver.JournalBodyLimit, the store bounded, and, at the default
// -log-level info, no request log. With logRequests, as -log-level debug,
// one log line per request, written to /dev/null (a file, as stderr is for
// the command, so the write's system call counts). Keep the options in step
// with handlerOptions in cmd/plantstore-mock/main.go.
func newMock(tb testing.TB, logRequests bool) (http.Handler, func(testing.TB, int)) {
	opts := []plantstoretest.Option{
		plantstoretest.WithToken(baseline.Token),
		plantstoretest.WithJournalLimit(mockserver.DefaultJournal),
		plantstoretest.WithJournalBodyLimit(mockserver.JournalBodyLimit),
		plantstoretest.WithMaxPlants(plantstoretest.DefaultMaxPlants),
	}
	var out io.Writer = io.Discard
	if logRequests {
		devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			tb.Fatalf("opening %s: %v", os.DevNull, err)
		}
		tb.Cleanup(func() { devNull.Close() })
		out = devNull
		debug := &slog.HandlerOptions{Level: slog.LevelDebug} // the fake logs its requests at debug
		opts = append(opts, plantstoretest.WithLogger(slog.New(slog.NewTextHandler(out, debug))))
	}
	logger := slog.New(slog.NewTextHandler(out, nil))
	h := plantstoretest.NewHandler(opts...)
	tb.Cleanup(h.Close)
	mock, err := mockserver.New(h, mockserver.Config{Loopback: true, ListenAddr: "127.0.0.1:0", Logger: logger})
	if err != nil {
		tb.Fatalf("mockserver.New: %v", err)
	}
	return mock, func(tb testing.TB, creates int) {
		tb.Helper()
		if got, want := len(h.Plants()), creates; got != want {
			tb.Fatalf("the mock stored %d plants, want %d", got, want)
		}
		if got, want := len(h.Requests()), min(creates, mockserver.DefaultJournal); got != want {
			tb.Fatalf("the mock journaled %d requests, want %d", got, want)
		}
	}
}

// newJournaledFake is the fake of package plantstoretest with its journal
// on, keeping the most recent journalLimit requests.
func newJournaledFake(tb testing.TB) (http.Handler, func(testing.TB, int)) {
	h := plantstoretest.NewHandler(plantstoretest.WithToken(baseline.Token), plantstoretest.WithJournalLimit(journalLimit))
	tb.Cleanup(h.Close)
	return h, func(tb testing.TB, creates int) {
		tb.Helper()
		if got, want := len(h.Plants()), creates; got != want {
			tb.Fatalf("the fake stored %d plants, want %d", got, want)
		}
		if got, want := len(h.Requests()), min(creates, journalLimit); got != want {
			tb.Fatalf("the fake journaled %d requests, want %d", got, want)
		}
	}
}

// BenchmarkServerThroughput compares the fake of package plantstoretest,
// with its journal on, with a bare net/http handler that decodes the same
// JSON and answers the same body. All are mounted in an httptest server and
// driven by the same hand-written client (rawsix: the six headers the SDK
// sends) from many goroutines creating distinct plants, so only the handler
// differs.
//
// Besides the time per create, it reports "cpu-ns/op": the CPU time the
// whole process (client, server and runtime) used per create. On a machine
// shared with other work the wall time swings with the others' load; the
// CPU time much less, and with every core busy, throughput is inversely
// proportional to it.
func BenchmarkServerThroughput(b *testing.B) {
	for _, s := range serversUnderTest {
		b.Run("server="+s.name, func(b *testing.B) {
			h, check := s.journaled(b)
			srv := httptest.NewServer(h)
			defer srv.Close()
			create, closeIdle := newCreate(b, "rawsix", srv.URL)
			defer closeIdle()
			benchCPU(b, create, check)
		})
	}
}

// bareHandler is the least a server can do to create a plant: decode the
// NewPlant and answer the Plant, as the fake does on success.
func bareHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p plantstore.NewPlant
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body, err := json.Marshal(plantstore.Plant{Name: p.Name, Tag: p.Tag})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body) //nolint:errcheck // a client that went away gets nothing either way
	})
}

// The connection-reuse workload: reuseWorkers goroutines share one client
// and make reuseCalls creates each (BenchmarkConnectionReuse makes b.N in
// all, so -benchtime 9600x is this workload). With failures, every
// reuseFailEvery-th plant is answered 503 on every attempt, so that call
// exhausts its retries.
const (
	reuseWorkers   = 32
	reuseCalls     = 300
	reuseFailEvery = 10
	reuseAttempts  = 3 // the SDK's default: one attempt and two retries
)

// reuseResult is what one run of the workload saw.
type reuseResult struct {
	conns    int64 // TCP connections the server accepted
	closed   int64 // connections that ended while calls were running
	failed   int64 // calls that failed as scripted
	requests int64 // requests the server answered
}

// runReuse runs the connection-reuse workload once with impl against a new
// server, calls creates in all, and returns what the server saw. It fails tb
// if a call fails other than as scripted. Besides "raw" and "sdk", impl may
// be "raw+closeidle": the hand-written call, closing the client's idle
// connections after every failed call, as go-retryablehttp does on a client
// it does not guard.
func runReuse(tb testing.TB, impl string, failures bool, calls int) reuseResult {
	tb.Helper()
	var conns, closed, requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var p plantstore.NewPlant
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		io.Copy(io.Discard, r.Body) //nolint:errcheck // read to the end, as a server does
		w.Header().Set("Content-Type", "application/json")
		if failures && p.ID%reuseFailEvery == 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":9,"message":"try again later"}`) //nolint:errcheck // as above
			return
		}
		io.WriteString(w, baseline.PlantBody) //nolint:errcheck // as above
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			closed.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	// The SDK retries at once, so the run is quick; the hand-written call
	// makes the same number of attempts. The SDK has no retry budget here:
	// one call in ten failing three times is 20 % retries, the default
	// budget's edge, and this measures the pool, not the budget.
	create, closeIdle := newCreate(tb, strings.TrimSuffix(impl, "+closeidle"), srv.URL,
		plantstore.WithRetryBackoff(0, 0), plantstore.WithoutRetryBudget())
	defer closeIdle()
	switch impl {
	case "raw":
		create = retry503(create)
	case "raw+closeidle":
		create = closeIdleOnError(retry503(create), closeIdle)
	}

	var (
		wg         sync.WaitGroup
		failed     atomic.Int64
		unexpected atomic.Int64
		first      atomic.Value
	)
	if b, ok := tb.(*testing.B); ok {
		b.ResetTimer()
	}
	for w := 0; w < reuseWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			for i := w; i < calls; i += reuseWorkers {
				id := int64(i)
				err := create(ctx, baseline.Plant(id))
				switch {
				case err == nil && !(failures && id%reuseFailEvery == 0):
				case err != nil && failures && id%reuseFailEvery == 0 && isExhausted503(err):
					failed.Add(1)
				default:
					if unexpected.Add(1) == 1 {
						first.Store(errors.Join(errors.New("unexpected outcome of create"), err))
					}
				}
			}
		}()
	}
	wg.Wait()
	r := reuseResult{conns: conns.Load(), closed: closed.Load(), failed: failed.Load(), requests: requests.Load()}
	if n := unexpected.Load(); n > 0 {
		tb.Fatalf("%s: %d of %d creates had an unexpected outcome, first: %v", impl, n, calls, first.Load())
	}
	return r
}

// closeIdleOnError makes create close the idle connections of its client
// after every failed call.
func closeIdleOnError(create createFunc, closeIdle func()) createFunc {
	return func(ctx context.Context, p plantstore.NewPlant) error {
		err := create(ctx, p)
		if err != nil {
			closeIdle()
		}
		return err
	}
}

// retry503 makes create try up to reuseAttempts times while it gets a 503,
// as a user retrying by hand would.
func retry503(create createFunc) createFunc {
	return func(ctx context.Context, p plantstore.NewPlant) error {
		var err error
		for i := 0; i < reuseAttempts; i++ {
			var se *baseline.StatusError
			if err = create(ctx, p); !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
				return err
			}
		}
		return err
	}
}

// isExhausted503 reports whether err is a 503 answered to every attempt.
func isExhausted503(err error) bool {
	var apiErr *plantstore.APIError
	var callErr *plantstore.CallError
	if errors.As(err, &apiErr) && errors.As(err, &callErr) {
		return apiErr.StatusCode == http.StatusServiceUnavailable && callErr.Call.Attempts == reuseAttempts
	}
	var se *baseline.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusServiceUnavailable
}

// BenchmarkConnectionReuse runs the connection-reuse workload: 32 goroutines
// sharing one client make b.N creates in all, and "conns" is the number of
// TCP connections the server accepted. Run it with -benchtime 9600x for the
// issue's workload of 300 creates per goroutine.
func BenchmarkConnectionReuse(b *testing.B) {
	for _, failures := range []bool{false, true} {
		name := "calls=ok"
		if failures {
			name = "calls=1in10-503"
		}
		for _, impl := range []string{"raw", "sdk"} {
			b.Run(name+"/impl="+impl, func(b *testing.B) {
				r := runReuse(b, impl, failures, b.N)
				b.ReportMetric(float64(r.conns), "conns")
			})
		}
	}
}

// TestConnectionReuseUnderLoad checks that 32 goroutines sharing one Client
// keep reusing their connections, with every call succeeding and with one
// call in ten exhausting its retries on 503s: a failed call must not empty
// the pool the other goroutines use.
//
// The bar is at most 32 connections (40 with failures). net/http
// cannot promise that from a cold pool: while the first 32 connections are
// being dialed, a caller whose dial is still pending is handed a connection
// another caller just released, and the dial it started still completes and
// joins the pool. That happens in the first few calls only and hits the
// hand-written baseline as much as the SDK (both were seen anywhere from 32
// to 63 connections on a loaded 2-core machine; BenchmarkConnectionReuse
// reports both). So the test allows one extra connection per caller, and
// checks what a torn-down pool would show and a cold-start race cannot: a
// connection closed while the calls were running. A client that closes its
// idle connections after each failure is run too, to show that the check
// catches it.
//
// A torn-down pool closes hundreds of connections in this workload; on a
// loaded machine a healthy pool was seen to lose one or two (in 3 of 16 runs
// at a load average of 7 to 10, for the hand-written call as well as the
// SDK), so up to maxStrayCloses are tolerated.
func TestConnectionReuseUnderLoad(t *testing.T) {
	testenv.Long(t)
	const (
		maxConns       = 2 * reuseWorkers
		maxStrayCloses = 4
	)
	calls := reuseWorkers * reuseCalls
	for _, tc := range []struct {
		failures     bool
		wantFailed   int64
		wantRequests int64
	}{
		{failures: false, wantFailed: 0, wantRequests: int64(calls)},
		{failures: true, wantFailed: int64(calls / reuseFailEvery),
			wantRequests: int64(calls + calls/reuseFailEvery*(reuseAttempts-1))},
	} {
		name := "all succeed"
		if tc.failures {
			name = "one in ten exhausts its retries"
		}
		t.Run(name, func(t *testing.T) {
			sdk := runReuse(t, "sdk", tc.failures, calls)
			t.Logf("%d callers × %d creates opened %d connections", reuseWorkers, reuseCalls, sdk.conns)
			if sdk.failed != tc.wantFailed || sdk.requests != tc.wantRequests {
				t.Errorf("sdk: %d calls failed after %d requests, want %d after %d", sdk.failed, sdk.requests, tc.wantFailed, tc.wantRequests)
			}
			if sdk.closed > maxStrayCloses {
				t.Errorf("sdk: %d connections were closed while the calls ran, want at most %d (the pool was torn down)", sdk.closed, maxStrayCloses)
			}
			if sdk.conns > maxConns {
				t.Errorf("sdk: %d callers opened %d connections, want at most %d", reuseWorkers, sdk.conns, maxConns)
			}
		})
	}
	t.Run("the check catches a client that closes idle connections on failure", func(t *testing.T) {
		// Each failure closes the pool, and redialling 32 connections at
		// a time is slow, so a few calls per goroutine are enough.
		churn := runReuse(t, "raw+closeidle", true, 2*reuseFailEvery*reuseWorkers)
		t.Logf("raw+closeidle opened %d connections and closed %d while running", churn.conns, churn.closed)
		if churn.closed <= maxStrayCloses {
			t.Errorf("raw+closeidle: %d connections closed while the calls ran, want more than %d (the check is blind)", churn.closed, maxStrayCloses)
		}
	})
}
