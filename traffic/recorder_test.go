package traffic

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// script answers the requests of a test server one after the other.
type script struct {
	mu    sync.Mutex
	steps []func(w http.ResponseWriter, r *http.Request)
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	step := s.steps[0]
	s.steps = s.steps[1:]
	s.mu.Unlock()
	io.Copy(io.Discard, r.Body)
	step(w, r)
}

func status(code int, header, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		if header != "" {
			k, v, _ := strings.Cut(header, ": ")
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

const plantJSON = `{"id":"p1","name":"fern"}`

// outcomeCounts is what TestRecorderClassifies compares: an outcome with
// its counts, latency summed up.
type outcomeCounts struct {
	Name        string
	Count       int64
	RetryAfters string
}

func countsOf(rec *Recording) []outcomeCounts {
	var out []outcomeCounts
	for _, o := range rec.Outcomes {
		out = append(out, outcomeCounts{Name: o.name(), Count: o.Count, RetryAfters: retryAftersOf(o)})
	}
	return out
}

// TestRecorderClassifies records calls against a server scripted with one
// of each outcome, in a known order, and checks what the recording counts.
func TestRecorderClassifies(t *testing.T) {
	t.Parallel()
	slow := make(chan struct{})
	s := &script{steps: []func(http.ResponseWriter, *http.Request){
		status(200, "", plantJSON),
		status(201, "", plantJSON),
		status(400, "", `{"error":3,"message":"name is required"}`), // fail, run of 1
		status(200, "", plantJSON),
		status(404, "", `<html>not found</html>`),                          // fail: no code
		status(429, "Retry-After: 3", `{"error":9,"message":"slow down"}`), // fail
		status(503, "Retry-After: 1", ""),                                  // fail
		status(503, "", ""),                                                // retried: fail
		hangUp,                                                             // broken after send, retried
		func(http.ResponseWriter, *http.Request) { <-slow },                // attempt timeout, retried
		status(201, "", plantJSON),                                         // the call's last attempt: run of 5
		status(500, "", ""),
		status(200, "", plantJSON),
	}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	defer close(slow) // before Close, which waits for the handlers
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	r := NewRecorder()
	c, err := plantstore.NewClient(srv.URL, plantstore.WithToken("t"), plantstore.WithHooks(r.Hooks()),
		plantstore.WithMaxRetries(0), plantstore.WithRetryBackoff(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	create := func(opts ...plantstore.CallOption) error {
		_, err := c.CreatePlant(context.Background(), plantstore.NewPlant{Name: "fern"}, opts...)
		return err
	}
	for range 7 {
		create()
	}
	if err := create(plantstore.WithCallRetries(5), plantstore.WithAttemptTimeout(200*time.Millisecond)); err != nil {
		t.Fatalf("the call retried to a 201: %v", err)
	}
	create()
	create()
	// A call whose context ends is not the service's answer.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.CreatePlant(ctx, plantstore.NewPlant{Name: "fern"})
	// Nothing listens: the dial fails, before sending.
	c2, err := plantstore.NewClient(closed.URL, plantstore.WithToken("t"), plantstore.WithHooks(r.Hooks()), plantstore.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	c2.CreatePlant(context.Background(), plantstore.NewPlant{Name: "fern"})

	rec := r.snapshot()
	if err := rec.Check(); err != nil {
		t.Fatalf("snapshot().Check: %v", err)
	}
	want := []outcomeCounts{
		{Name: "2xx 200", Count: 3},
		{Name: "2xx 201", Count: 2},
		{Name: "4xx 400 code 3", Count: 1},
		{Name: "4xx 404", Count: 1},
		{Name: "429", Count: 1, RetryAfters: "3s×1 "},
		{Name: "5xx 500", Count: 1, RetryAfters: "none×1 "},
		{Name: "5xx 503", Count: 2, RetryAfters: "none×1 1s×1 "},
		{Name: "broken_before_send", Count: 1},
		{Name: "broken_after_send", Count: 1},
		{Name: "attempt_timeout", Count: 1},
	}
	if diff := cmp.Diff(want, countsOf(rec)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	// 400 | 404 429 503 503 broken timeout | 500 | broken-before-send: a
	// 4xx is in no run, and ends none.
	wantRuns := Runs{Runs: 3, Failures: 9, Lengths: []RunLength{{1, 2}, {5, 1}}}
	if diff := cmp.Diff(wantRuns, rec.FailureRuns); diff != "" {
		t.Errorf("failure runs (-want +got):\n%s", diff)
	}
	// Never under the 200 ms timeout; over it by what a loaded machine
	// takes to wake the attempt (286 to 312 ms seen with CI's fuzzing
	// beside), but far under the next timeout a bug could wait for.
	for _, o := range rec.Outcomes {
		if o.Kind == KindAttemptTimeout && (o.Latency[0].ToUS < 200_000 || o.Latency[0].FromUS > 1_000_000) {
			t.Errorf("the attempt timeout took [%g, %g) µs, want 200 ms to 1 s", o.Latency[0].FromUS, o.Latency[0].ToUS)
		}
	}
}

// feed drives r's hooks as a client does for one call of one attempt with
// outcome a, without a network: the memory and concurrency tests' load.
func feed(h plantstore.Hooks, info *plantstore.CallInfo, a plantstore.Attempt, callErr error) {
	ctx := h.CallStart(context.Background(), info)
	if next := h.AttemptStart(ctx, info, plantstore.Attempt{Number: 1}); next != nil {
		ctx = next
	}
	h.AttemptEnd(ctx, info, a)
	h.CallEnd(ctx, info, callErr)
}

// mix returns the i-th attempt of a varied load: every kind, several
// statuses and codes, Retry-After values.
func mix(i int) (plantstore.Attempt, error) {
	switch i % 10 {
	case 1:
		return plantstore.Attempt{StatusCode: 503, RetryAfter: time.Duration(i%7) * time.Second, WillRetry: true}, nil
	case 2:
		return plantstore.Attempt{StatusCode: 429, RetryAfter: time.Duration(i%90) * time.Second, WillRetry: true}, nil
	case 3:
		st := 400 + (i/10)%30 // 429 included: the 429 outcome
		return plantstore.Attempt{StatusCode: st}, &plantstore.APIError{StatusCode: st, Code: int32((i / 10) % 7)}
	case 4:
		return plantstore.Attempt{Err: io.ErrUnexpectedEOF, MaybeSent: i%20 < 10}, io.ErrUnexpectedEOF
	}
	return plantstore.Attempt{StatusCode: 200 + i%3}, nil
}

// TestRecorderMemoryFlat records 1,000,000 attempts of every kind and
// checks that the live heap does not grow with them, and that the
// Recorder's fixed size is within 64 KiB.
func TestRecorderMemoryFlat(t *testing.T) {
	if testing.Short() || testenv.Race {
		t.Skip("records 1,000,000 attempts; the race detector's heap is not the program's")
	}
	if size := unsafe.Sizeof(Recorder{}); size > 64<<10 {
		t.Errorf("a Recorder takes %d bytes, more than 64 KiB", size)
	} else {
		t.Logf("a Recorder takes %d bytes", size)
	}
	r := NewRecorder()
	h := r.Hooks()
	info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
	var before, after runtime.MemStats
	for i := range 1000 { // every outcome and value seen once
		a, err := mix(i)
		feed(h, info, a, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 1_000_000
	for i := range n {
		a, err := mix(i)
		feed(h, info, a, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("the live heap grew by %d bytes over %d attempts", grew, n)
	if grew > 16<<10 {
		t.Errorf("the live heap grew by %d bytes over %d attempts: want it flat (≤ 16 KiB of noise)", grew, n)
	}
	rec := r.snapshot()
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	if rec.Attempts != n+1000 {
		t.Errorf("recorded %d attempts, want %d", rec.Attempts, n+1000)
	}
	if o := rec.Outcomes[len(rec.Outcomes)-1]; len(rec.Outcomes) != 29 || o.Kind != KindBrokenAfterSend || !slices.ContainsFunc(rec.Outcomes, func(o Outcome) bool { return o.Kind == Kind4xx && o.Status == 0 }) {
		t.Errorf("%d outcomes, the last %s: want 29 (25 with a status), the 4xx past the keyed places in one catch-all, broken_after_send last", len(rec.Outcomes), o.name())
	}
}

// TestRecorderConcurrent records from many goroutines at once (run it
// with -race) and checks that every attempt is counted, once.
func TestRecorderConcurrent(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	h := r.Hooks()
	const goroutines, each = 16, 2000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
			for i := range each {
				a, err := mix(g*each + i)
				feed(h, info, a, err)
				if i%500 == 0 {
					r.snapshot() // snapshots while recording
				}
			}
		}()
	}
	wg.Wait()
	rec := r.snapshot()
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	if rec.Attempts != goroutines*each {
		t.Errorf("recorded %d attempts, want %d", rec.Attempts, goroutines*each)
	}
	var lengths, want int64
	for _, l := range rec.FailureRuns.Lengths {
		lengths += int64(l.Length) * l.Count
	}
	for _, o := range rec.Outcomes {
		if o.Kind.Failure() && o.Kind != Kind4xx {
			want += o.Count
		}
	}
	if lengths != want {
		t.Errorf("the runs hold %d failures, the outcomes %d but 4xx", lengths, want)
	}
}

// TestRecorderRunsInStartOrder ends attempts out of order, within the
// window, and checks the runs are those of the order they started in.
func TestRecorderRunsInStartOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	fails := make([]bool, n)
	for i := range fails {
		fails[i] = rng.IntN(3) == 0
	}
	want := NewRecorder()
	for i, f := range fails {
		want.count(uint64(i), kindOf(f), 503, nil, 0, time.Millisecond)
	}
	got := NewRecorder()
	order := rng.Perm(n)
	// Shuffle within blocks of 1000: every attempt ends within the window.
	for b := 0; b < n; b += 1000 {
		block := order[:0:0]
		for i := b; i < b+1000; i++ {
			block = append(block, i)
		}
		rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
		for _, i := range block {
			got.count(uint64(i), kindOf(fails[i]), 503, nil, 0, time.Millisecond)
		}
	}
	if diff := cmp.Diff(want.snapshot().FailureRuns, got.snapshot().FailureRuns); diff != "" {
		t.Errorf("runs (-in order +shuffled):\n%s", diff)
	}
}

func kindOf(fail bool) uint8 {
	if fail {
		return k5xx
	}
	return kOK
}

// TestRecordingHoldsNoSecret records calls against a server that echoes
// the token, raw, JSON-escaped and percent-encoded, in every header, body
// and Location, and checks that the written document holds none of it.
func TestRecordingHoldsNoSecret(t *testing.T) {
	t.Parallel()
	const token = `s3cr3t-"tok/en"+<x>`
	forms := []string{token, strings.ReplaceAll(token, `"`, `\"`), url.QueryEscape(token), url.PathEscape(token), `\u0073` + token[1:]}
	echo := strings.Join(forms, " ")
	n := 0
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		for k, v := range r.Header { // every header it got, back
			w.Header()[k] = v
		}
		for j, f := range forms {
			w.Header().Set(fmt.Sprintf("X-Echo-%d", j), url.PathEscape(f))
		}
		w.Header().Set("X-Request-Id", "req-"+url.PathEscape(token))
		w.Header().Set("Location", "/plants/"+url.PathEscape(token)+"?t="+url.QueryEscape(token))
		w.Header().Set("Retry-After", "1")
		codes := []int{200, 400, 429, 503, 302, 201}
		w.WriteHeader(codes[i%len(codes)])
		fmt.Fprintf(w, `{"id":"%s","name":"fern","error":4,"message":%q}`, url.PathEscape(token), echo)
	}))
	defer srv.Close()
	r := NewRecorder()
	c, err := plantstore.NewClient(srv.URL+"/v1/"+url.PathEscape(token)+"?t="+url.QueryEscape(token), plantstore.WithToken(token),
		plantstore.WithHooks(r.Hooks()), plantstore.WithMaxRetries(1), plantstore.WithRetryBackoff(0, 0), plantstore.WithMaxRetryAfter(0))
	if err != nil {
		c, err = plantstore.NewClient(srv.URL, plantstore.WithToken(token),
			plantstore.WithHooks(r.Hooks()), plantstore.WithMaxRetries(1), plantstore.WithRetryBackoff(0, 0), plantstore.WithMaxRetryAfter(0))
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 12 {
		c.CreatePlant(context.Background(), plantstore.NewPlant{Name: "fern"}, plantstore.WithRequestID("req-"+strings.Repeat("x", 8)))
	}
	var doc bytes.Buffer
	if _, err := r.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.String() != wire.Redact(doc.String(), []string{token}) {
		t.Errorf("the document holds the token in some form:\n%s", doc.String())
	}
	for _, s := range []string{"req-", "fern", "/v1", "plants/", "?"} {
		if strings.Contains(doc.String(), s) {
			t.Errorf("the document holds %q:\n%s", s, doc.String())
		}
	}
	if !strings.Contains(doc.String(), `"source": "traffic.Recorder: `+srv.URL+`"`) {
		t.Errorf("the document's source is not the server's scheme and host:\n%s", doc.String())
	}
	rec, err := Read(&doc)
	if err != nil {
		t.Fatalf("Read what WriteTo wrote: %v", err)
	}
	if rec.Attempts < 12 {
		t.Errorf("recorded %d attempts, want at least 12", rec.Attempts)
	}
}

// TestRecorderNoAllocations checks that recording an attempt allocates
// only the call's context.
func TestRecorderNoAllocations(t *testing.T) {
	r := NewRecorder()
	h := r.Hooks()
	info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
	i := 0
	allocs := testing.AllocsPerRun(1000, func() {
		a, err := mix(i)
		i++
		feed(h, info, a, err)
	})
	if allocs > 1.5 { // mix's APIError aside, one call context
		t.Errorf("a recorded call allocates %.1f times, want 1 (its context)", allocs)
	}
}

// TestRecorderSource checks the source WriteTo writes: the scheme and host
// of the calls' URLs, "and others" when they went to more than one, and
// nothing of a URL that does not parse or holds more than a host.
func TestRecorderSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		urls []string
		want string
	}{
		{nil, "traffic.Recorder"},
		{[]string{"https://a.example/plants", "https://a.example/plants/1"}, "traffic.Recorder: https://a.example"},
		{[]string{"http://a.example:8080/v1/plants"}, "traffic.Recorder: http://a.example:8080"},
		{[]string{"https://a.example/plants", "https://b.example/plants"}, "traffic.Recorder: https://a.example and others"},
		{[]string{"https://a.example/plants", "https://a.example.evil/plants"}, "traffic.Recorder: https://a.example and others"},
		{[]string{"https://u:p@a.example/plants"}, "traffic.Recorder"},
		{[]string{"://no scheme", "https://a.example/plants"}, "traffic.Recorder"},
	} {
		r := NewRecorder()
		for _, u := range tc.urls {
			r.Hooks().CallStart(context.Background(), &plantstore.CallInfo{URL: u})
		}
		if got := r.source(); got != tc.want {
			t.Errorf("after calls to %q: source %q, want %q", tc.urls, got, tc.want)
		}
	}
}

// TestRetryAfterCounted checks how an outcome counts the Retry-After its
// answers asked for: rounded to whole seconds, zero as none, a longer one
// than maxRetryAfterSeconds as that, and a value first seen past
// maxRetryAfters as the nearest one kept.
func TestRetryAfterCounted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ras  []time.Duration
		want string
	}{
		{"none and zero", []time.Duration{0, -time.Second}, "none×2 "},
		{"rounded", []time.Duration{1400 * time.Millisecond, 1600 * time.Millisecond, 2499 * time.Millisecond}, "1s×1 2s×2 "},
		{"under half a second", []time.Duration{time.Millisecond}, "0s×1 "},
		{"capped", []time.Duration{maxRetryAfterSeconds * time.Second, 30 * 24 * time.Hour}, "86400s×2 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := slot{kind: k5xx}
			for _, ra := range tc.ras {
				s.count++
				s.countRetryAfter(ra)
			}
			if diff := cmp.Diff(tc.want, retryAftersOf(s.outcome())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Run("past maxRetryAfters", func(t *testing.T) {
		s := slot{kind: k5xx}
		for i := range maxRetryAfters { // 10, 20, …, 640 s
			s.countRetryAfter(time.Duration(10*(i+1)) * time.Second)
		}
		for _, sec := range []int{14, 16, 5000} { // nearest: 10, 20, 640
			s.countRetryAfter(time.Duration(sec) * time.Second)
		}
		got := map[int64]int64{}
		for _, ra := range s.outcome().RetryAfter {
			got[*ra.Seconds] = ra.Count
		}
		if len(got) != maxRetryAfters || got[10] != 2 || got[20] != 2 || got[640] != 2 || got[30] != 1 {
			t.Errorf("counts by seconds %v: want %d values, 10 s, 20 s and 640 s counted twice", got, maxRetryAfters)
		}
	})
}

// retryAftersOf writes o's Retry-After counts as "none×2 3s×1 ".
func retryAftersOf(o Outcome) string {
	var s string
	for _, ra := range o.RetryAfter {
		if ra.Seconds == nil {
			s += fmt.Sprintf("none×%d ", ra.Count)
		} else {
			s += fmt.Sprintf("%ds×%d ", *ra.Seconds, ra.Count)
		}
	}
	return s
}

// TestRecorderEdges checks what the Recorder's doc says it approximates:
// a status of no kind counts in the catch-all 4xx, a retried 4xx and code
// 0 count without a code, an attempt that ends past the window is placed
// where it ends, and counting stops at 2^32-1 attempts.
func TestRecorderEdges(t *testing.T) {
	t.Parallel()
	info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
	t.Run("statuses", func(t *testing.T) {
		r := NewRecorder()
		h := r.Hooks()
		feed(h, info, plantstore.Attempt{StatusCode: 302}, nil)
		feed(h, info, plantstore.Attempt{StatusCode: 101}, nil)
		feed(h, info, plantstore.Attempt{StatusCode: 409, WillRetry: true}, nil)
		feed(h, info, plantstore.Attempt{StatusCode: 400}, &plantstore.APIError{StatusCode: 400, Code: 0})
		feed(h, info, plantstore.Attempt{StatusCode: 400}, &plantstore.APIError{StatusCode: 400, Code: 5})
		want := []outcomeCounts{{Name: "4xx other", Count: 2}, {Name: "4xx 400", Count: 1}, {Name: "4xx 400 code 5", Count: 1}, {Name: "4xx 409", Count: 1}}
		if diff := cmp.Diff(want, countsOf(r.snapshot())); diff != "" {
			t.Errorf("outcomes (-want +got):\n%s", diff)
		}
	})
	t.Run("past the window", func(t *testing.T) {
		r := NewRecorder()
		r.count(0, kOK, 200, nil, 0, 0)
		// Attempt 1 (a failure) is still running while window more start
		// and succeed, then ends: a run of its own, not one with attempt 2.
		r.count(2, k5xx, 503, nil, 0, 0)
		for seq := uint64(3); seq < 3+window; seq++ {
			r.count(seq, kOK, 200, nil, 0, 0)
		}
		r.count(1, k5xx, 503, nil, 0, 0)
		want := Runs{Runs: 2, Failures: 2, Lengths: []RunLength{{1, 2}}}
		if diff := cmp.Diff(want, r.snapshot().FailureRuns); diff != "" {
			t.Errorf("runs (-want +got):\n%s", diff)
		}
	})
	t.Run("count bound", func(t *testing.T) {
		r := NewRecorder()
		r.attempts = math.MaxUint32 - 1
		r.count(0, kOK, 200, nil, 0, 0)
		r.count(1, kOK, 200, nil, 0, 0)
		if r.attempts != math.MaxUint32 || r.slots[0].count != 1 {
			t.Errorf("%d attempts, %d counted: want 2^32-1, 1", r.attempts, r.slots[0].count)
		}
	})
}

// TestRecorderReset records two periods through one Recorder's hooks and
// checks that Reset returns each as a Recorder of its own would have
// recorded it, and that an attempt in flight at the Reset counts in
// neither period.
func TestRecorderReset(t *testing.T) {
	t.Parallel()
	info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
	r := NewRecorder()
	h := r.Hooks()
	periods := [2]*Recorder{NewRecorder(), NewRecorder()}
	// An attempt that starts in the first period and ends in the second.
	ctx := h.CallStart(context.Background(), info)
	if next := h.AttemptStart(ctx, info, plantstore.Attempt{Number: 1}); next != nil {
		ctx = next
	}
	for p, from := range []int{0, 1000} {
		for i := from; i < from+1000; i++ {
			a, err := mix(i)
			feed(h, info, a, err)
			feed(periods[p].Hooks(), info, a, err)
		}
		got := r.Reset()
		if p == 0 {
			h.AttemptEnd(ctx, info, plantstore.Attempt{StatusCode: 503}) // in flight at the Reset
			h.CallEnd(ctx, info, nil)
		}
		if err := got.Check(); err != nil {
			t.Errorf("period %d: %v", p+1, err)
		}
		// The latencies are the hooks' own clock's: not compared.
		if diff := cmp.Diff(periods[p].snapshot(), got, cmpopts.IgnoreFields(Outcome{}, "Latency")); diff != "" {
			t.Errorf("period %d: Reset's recording (-a Recorder of its own +Reset):\n%s", p+1, diff)
		}
	}
	if rec := r.snapshot(); rec.Attempts != 0 || len(rec.Outcomes) != 0 {
		t.Errorf("after Reset, the Recorder holds %d attempts in %d outcomes, want none", rec.Attempts, len(rec.Outcomes))
	}
}

// TestRecorderAfterBreaks checks AfterBreaks: the answer to the attempt
// right after a break after sending, in the same call, is counted as OK (a
// 2xx) or Refused (a 4xx, retried or the call's last); any other, or an
// attempt further on, is not.
func TestRecorderAfterBreaks(t *testing.T) {
	t.Parallel()
	info := &plantstore.CallInfo{URL: "https://plants.example.com/plants"}
	broke := plantstore.Attempt{Err: io.ErrUnexpectedEOF, MaybeSent: true, WillRetry: true}
	r := NewRecorder()
	h := r.Hooks()
	call := func(callErr error, attempts ...plantstore.Attempt) {
		ctx := h.CallStart(context.Background(), info)
		for i, a := range attempts {
			actx := ctx
			if next := h.AttemptStart(ctx, info, plantstore.Attempt{Number: i + 1}); next != nil {
				actx = next
			}
			h.AttemptEnd(actx, info, a)
		}
		h.CallEnd(ctx, info, callErr)
	}
	dup := &plantstore.APIError{StatusCode: 400, Code: 5}
	call(nil, broke, plantstore.Attempt{StatusCode: 200})                                                       // OK
	call(dup, broke, plantstore.Attempt{StatusCode: 400})                                                       // Refused, the call's last
	call(nil, broke, plantstore.Attempt{StatusCode: 409, WillRetry: true}, plantstore.Attempt{StatusCode: 200}) // Refused, retried
	call(nil, broke, plantstore.Attempt{StatusCode: 503, WillRetry: true}, plantstore.Attempt{StatusCode: 200}) // neither
	call(nil, plantstore.Attempt{StatusCode: 200})                                                              // no break
	rec := r.snapshot()
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&AfterBreaks{OK: 1, Refused: 2}, rec.AfterBreaks); diff != "" {
		t.Errorf("AfterBreaks (-want +got):\n%s", diff)
	}
	var doc bytes.Buffer
	if _, err := r.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec.AfterBreaks, back.AfterBreaks); diff != "" {
		t.Errorf("AfterBreaks written and read back (-recorded +read):\n%s", diff)
	}
}
