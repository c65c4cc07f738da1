//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// scenarioSeed seeds scenario S: the chaos and the client's backoff jitter.
const scenarioSeed = 16

// The SDK's production backoff, which scenario S keeps: the wait before
// retry k (from 0) is drawn from [c/2, c] with c = min(5s, 250ms·2^k), or
// is the response's Retry-After when that is longer. These are the
// documented defaults of plantstore.WithRetryBackoff; the client does not
// export them.
const (
	prodBackoffBase  = 250 * time.Millisecond
	prodBackoffLimit = 5 * time.Second
)

// TestScenarioS runs scenario S of issue 16 in fake time, 100 times with the
// same seed: a client with the SDK's production retry settings against a
// fake on the in-memory network, with two 503s with "Retry-After: 30", a
// Hang under a 30s attempt timeout, a Delay of 20s, a Store and Drop, a rate
// limit of 1 request per 10s, and 50 calls under WithChaos(0.5, seed). It
// checks that
//
//   - every gap between two attempts of a call lies inside the window the
//     client documents for it, exactly: [max(c/2, Retry-After), max(c,
//     Retry-After)] for retry k, with c = min(5s, 250ms·2^k);
//   - every run gives a byte-identical journal: each call's outcome, and
//     each request's outcome, status, fault and times relative to the start;
//   - no goroutine is left behind: synctest.Test fails a test whose bubble
//     still has goroutines when its function and cleanups have returned
//     (so the test can run in parallel with others), and the package's
//     TestMain checks the whole process with goleak.
func TestScenarioS(t *testing.T) {
	t.Parallel()
	// 100 runs take 3 to 5 s under the race detector, which checks the
	// same code in every run: scripts/test.sh (-race) makes 20, and CI's
	// fake-time step (go1.25 and the newest Go, no -race) the 100.
	runs := 100
	switch {
	case testing.Short():
		runs = 10
	case testenv.Race:
		runs = 20
	}
	bubble.OneProcUnderRace(t)
	var first string
	for i := range runs {
		var journal string
		synctest.Test(t, func(t *testing.T) {
			journal = scenarioS(t, scenarioSeed)
		})
		if t.Failed() {
			t.Fatalf("run %d failed; journal:\n%s", i+1, journal)
		}
		if i == 0 {
			first = journal
			continue
		}
		if diff := cmp.Diff(first, journal); diff != "" {
			t.Fatalf("run %d's journal differs from run 1's (-run 1 +run %d):\n%s", i+1, i+1, diff)
		}
	}
	// The scenario must exercise what it names, or identical journals
	// prove little.
	for _, want := range []string{
		"inject#1 1:503 retry-after=30", "inject#2 4:hang", "inject#3 7:delay after=20s", "inject#4 8:store-drop",
		"rate-limit 6:429 retry-after=10", "chaos 13:503", "chaos 5:502", "chaos 3:drop", "chaos 12:delay after=415ms",
		"attempt timed out",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("the journal never mentions %q:\n%s", want, first)
		}
	}
	t.Logf("journal of each of %d runs:\n%s", runs, first)
}

// scenarioS runs scenario S once, in the calling goroutine's bubble, checks
// the gaps between attempts, and returns the journal.
func scenarioS(t *testing.T, seed uint64) string {
	srv := plantstoretest.NewServer(t,
		plantstoretest.WithInMemoryNetwork(),
		plantstoretest.WithRateLimit(1, 10*time.Second),
		plantstoretest.WithChaos(0.5, int64(seed)))
	wire := &wireRecorder{next: srv.HTTPClient().Transport}
	client := srv.ProductionClient(
		plantstore.WithHTTPClient(&http.Client{Transport: wire}),
		plantstore.WithRetryJitterSource(rand.NewPCG(seed, seed)))
	start := time.Now()

	type call struct {
		name  string
		fault *plantstoretest.Fault
		opts  []plantstore.CallOption
	}
	calls := []call{
		{"two 503 Retry-After 30", &plantstoretest.Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"30"}}, Times: 2}, nil},
		{"hang", &plantstoretest.Fault{Hang: true}, []plantstore.CallOption{plantstore.WithAttemptTimeout(30 * time.Second)}},
		{"delay 20s", &plantstoretest.Fault{Delay: 20 * time.Second}, nil},
		{"store then drop", &plantstoretest.Fault{Store: true, Drop: true}, nil},
	}
	for i := range 50 {
		calls = append(calls, call{name: fmt.Sprintf("chaos %02d", i+1)})
	}

	var j strings.Builder
	for i, c := range calls {
		if i > 0 {
			// Pace the calls at the rate limit, as a batch job would, so
			// that each first attempt finds a token and a 429 answers
			// only a retry that came too soon.
			time.Sleep(10 * time.Second)
		}
		if c.fault != nil {
			srv.Inject(*c.fault)
		}
		id := fmt.Sprintf("call-%02d", i+1)
		wire.call = id
		callStart := time.Now()
		p := plantstore.NewPlant{ID: int64(i + 1), Name: "plant " + id}
		_, err := client.CreatePlant(context.Background(), p, append(c.opts, plantstore.WithRequestID(id))...)
		fmt.Fprintf(&j, "%s %-22s +%-8v took %-8v %s\n", id, c.name, callStart.Sub(start), time.Since(callStart), outcome(err))
	}
	checkGaps(t, wire.attempts())

	j.WriteString("requests:\n")
	for _, r := range srv.Requests() {
		fmt.Fprintf(&j, "%3d %s retry %d +%-9v %-4s %3d took %-7v %s\n",
			r.Seq, r.RequestID, r.RetryCount, r.Time.Sub(start), r.Outcome, r.Status, r.Duration, r.Fault)
	}
	j.WriteString("attempts as the client saw them:\n")
	for _, a := range wire.attempts() {
		fmt.Fprintf(&j, "%s +%-9v .. +%-9v %s\n", a.call, a.start.Sub(start), a.end.Sub(start), a.result)
	}
	return j.String()
}

// outcome describes a call's result for the journal.
func outcome(err error) string {
	var ce *plantstore.CallError
	if !errors.As(err, &ce) {
		if err != nil {
			return "error without a CallError: " + err.Error()
		}
		return "ok"
	}
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) {
		return fmt.Sprintf("%d attempts, status %d code %d %q", ce.Call.Attempts, apiErr.StatusCode, apiErr.Code, apiErr.Message)
	}
	return fmt.Sprintf("%d attempts, %v", ce.Call.Attempts, ce.Err)
}

// checkGaps checks that each wait between two attempts of a call lies in
// the window of the production backoff or the Retry-After the client was
// given, with no tolerance: in fake time nothing else takes time.
func checkGaps(t *testing.T, attempts []wireAttempt) {
	t.Helper()
	k := 0
	for i := 1; i < len(attempts); i++ {
		prev, next := attempts[i-1], attempts[i]
		if next.call != prev.call {
			k = 0
			continue
		}
		c := min(prodBackoffLimit, prodBackoffBase<<k)
		lo, hi := max(c/2, prev.retryAfter), max(c, prev.retryAfter)
		if gap := next.start.Sub(prev.end); gap < lo || gap > hi {
			t.Errorf("%s: retry %d came %v after attempt %d ended (%s), want within [%v, %v]",
				next.call, k, gap, k+1, prev.result, lo, hi)
		}
		k++
	}
}

// wireRecorder is an http.RoundTripper that records each attempt as the
// client sees it: when it was sent and answered, and the answer.
type wireRecorder struct {
	next http.RoundTripper
	call string // the call under way; calls are made one at a time

	mu  sync.Mutex
	log []wireAttempt
}

type wireAttempt struct {
	call       string
	start, end time.Time
	result     string
	retryAfter time.Duration // from a 429, 502, 503 or 504 with Retry-After
}

func (w *wireRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	a := wireAttempt{call: w.call, start: time.Now()}
	resp, err := w.next.RoundTrip(req)
	a.end = time.Now()
	if err != nil {
		a.result = "error: " + err.Error()
	} else {
		a.result = resp.Status
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			a.result += ", Retry-After: " + ra
			switch resp.StatusCode {
			case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
				secs, perr := strconv.Atoi(ra)
				if perr != nil {
					panic("scenario S: Retry-After in seconds expected, got " + ra)
				}
				a.retryAfter = time.Duration(secs) * time.Second
			}
		}
	}
	w.mu.Lock()
	w.log = append(w.log, a)
	w.mu.Unlock()
	return resp, err
}

func (w *wireRecorder) attempts() []wireAttempt {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wireAttempt(nil), w.log...)
}
