package plantstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The workload: 1,000 calls, 200 in flight.
const (
	outageCalls    = 1000
	outageInFlight = 200
)

// budgetRun is what a batch of calls did.
type budgetRun struct {
	requests  int64 // requests the server got
	failed    int   // calls that returned an error
	denied    int64 // retries the budget refused, as the hooks saw them
	deniedErr int   // calls whose error matches ErrRetryBudgetExhausted
	errs      []error
}

// budgetRig is a fake server whose answers a test scripts, a Client with
// the default budget on a clock the test moves, and hooks that count the
// retries the budget refused.
type budgetRig struct {
	srv      *plantstoretest.Server
	client   *plantstore.Client
	clock    atomic.Int64 // the budget's time, in nanoseconds
	requests atomic.Int64
	denied   atomic.Int64
	nextID   atomic.Int64
}

func newBudgetRig(t *testing.T, opts ...plantstore.Option) *budgetRig {
	t.Helper()
	r := &budgetRig{srv: plantstoretest.NewServer(t, plantstoretest.WithJournalLimit(0), plantstoretest.WithInMemoryNetwork())}
	// The script answers for ever: it is not a Fault left unused.
	t.Cleanup(r.srv.ClearFaults)
	opts = append([]plantstore.Option{plantstore.WithHooks(plantstore.Hooks{
		AttemptEnd: func(_ context.Context, _ *plantstore.CallInfo, a plantstore.Attempt) {
			if a.RetryDenied {
				r.denied.Add(1)
			}
		},
	})}, opts...)
	// Server.Client's backoff (1 to 10 ms) keeps the test fast; the budget
	// is the default one.
	r.client = r.srv.Client(opts...)
	plantstore.SetRetryBudgetClock(r.client, func() time.Duration { return time.Duration(r.clock.Load()) })
	return r
}

// answer makes the server answer 503 to the requests for which fail
// returns true (nil: every request) and normally to the others, counting
// every request.
func (r *budgetRig) answer(fail func(plantstoretest.Request) bool) {
	r.srv.ClearFaults()
	r.srv.Inject(plantstoretest.Fault{
		Times:  1 << 30,
		Status: 503,
		Match: func(req plantstoretest.Request) bool {
			r.requests.Add(1)
			return fail == nil || fail(req)
		},
	})
}

// run makes n calls, inFlight at a time, and reports what they did.
func (r *budgetRig) run(t *testing.T, n, inFlight int) budgetRun {
	t.Helper()
	req0, denied0 := r.requests.Load(), r.denied.Load()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		ids  = make(chan int64)
	)
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ids {
				_, err := r.client.CreatePlant(context.Background(), plantstore.NewPlant{ID: id, Name: "Monstera"})
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for range n {
		ids <- r.nextID.Add(1)
	}
	close(ids)
	wg.Wait()
	run := budgetRun{requests: r.requests.Load() - req0, failed: len(errs), denied: r.denied.Load() - denied0, errs: errs}
	for _, err := range errs {
		if errors.Is(err, plantstore.ErrRetryBudgetExhausted) {
			run.deniedErr++
		}
	}
	return run
}

// fivePercent fails about 5 % of requests, chosen by a hash of the plant's
// ID and the attempt's number, so that the same requests fail on every run
// however the calls interleave, and (for this seed) no call fails on all
// three of its attempts.
func fivePercent(req plantstoretest.Request) bool {
	x := uint64(req.Plant.ID)*0x9e3779b97f4a7c15 + uint64(req.RetryCount)*0xbf58476d1ce4e5b9 + 0x5eed
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x%100 < 5
}

// checkOutage checks the calls of a full outage: each failed with the 503,
// and those the budget cut short say so.
func checkOutage(t *testing.T, run budgetRun) {
	t.Helper()
	if run.failed != outageCalls {
		t.Fatalf("%d of %d calls failed, want all", run.failed, outageCalls)
	}
	for _, err := range run.errs {
		var apiErr *plantstore.APIError
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 {
			t.Fatalf("error %v: want an *APIError with status 503", err)
		}
		var callErr *plantstore.CallError
		if !errors.As(err, &callErr) {
			t.Fatalf("error %v: want a *CallError", err)
		}
		denied := errors.Is(err, plantstore.ErrRetryBudgetExhausted)
		if said := strings.Contains(err.Error(), "retry budget is exhausted"); said != denied {
			t.Fatalf("error %q: says the budget refused a retry: %v, matches ErrRetryBudgetExhausted: %v", err, said, denied)
		}
		if !denied && callErr.Call.Attempts != 3 {
			t.Fatalf("error %q: %d attempts, but neither all 3 nor refused by the budget", err, callErr.Call.Attempts)
		}
	}
	if int64(run.deniedErr) != run.denied {
		t.Errorf("%d errors match ErrRetryBudgetExhausted, but the hooks saw %d refused retries", run.deniedErr, run.denied)
	}
}

// checkFivePercent checks the second target: with about 5 % of
// answers a 503, every call succeeds and no retry is refused.
func checkFivePercent(t *testing.T, run budgetRun, n int) {
	t.Helper()
	if run.failed != 0 {
		t.Errorf("%d of %d calls failed, want none; the first: %v", run.failed, n, run.errs[0])
	}
	if run.denied != 0 {
		t.Errorf("the budget refused %d retries, want none", run.denied)
	}
	// The failures the test meant to cause did happen.
	if retries := run.requests - int64(n); retries < int64(n)*3/100 || retries > int64(n)*8/100 {
		t.Errorf("%d retries for %d calls, want about 5 %%", retries, n)
	}
}

// TestRetryBudgetOutage is the first target: in a full outage,
// 1,000 calls with the default settings send at most 1,200 requests, where
// without a budget they send 3,000.
func TestRetryBudgetOutage(t *testing.T) {
	tests := []struct {
		name     string
		opts     []plantstore.Option
		min, max int64 // requests sent
	}{
		{"default budget", nil, outageCalls, outageCalls * 12 / 10},
		{"WithoutRetryBudget", []plantstore.Option{plantstore.WithoutRetryBudget()}, outageCalls * 3, outageCalls * 3},
		{"WithRetryBudget(0.05, 10)", []plantstore.Option{plantstore.WithRetryBudget(0.05, 10)}, outageCalls, outageCalls + 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newBudgetRig(t, tt.opts...)
			r.answer(nil)
			run := r.run(t, outageCalls, outageInFlight)
			t.Logf("%d calls sent %d requests (%.2fx); the budget refused %d retries", outageCalls, run.requests,
				float64(run.requests)/outageCalls, run.denied)
			if run.requests < tt.min || run.requests > tt.max {
				t.Errorf("%d calls sent %d requests, want %d to %d", outageCalls, run.requests, tt.min, tt.max)
			}
			checkOutage(t, run)
		})
	}
}

// TestRetryBudgetFivePercent is the second and third targets: with
// 5 % of answers a random 503 no retry is refused and every call succeeds;
// and so again once the service has answered normally for 10 s after an
// outage that spent the budget.
func TestRetryBudgetFivePercent(t *testing.T) {
	t.Run("from the start", func(t *testing.T) {
		r := newBudgetRig(t)
		r.answer(fivePercent)
		checkFivePercent(t, r.run(t, outageCalls, outageInFlight), outageCalls)
	})
	t.Run("10 s after an outage", func(t *testing.T) {
		r := newBudgetRig(t)
		r.answer(nil)
		checkOutage(t, r.run(t, outageCalls, outageInFlight))

		// Right after the outage the budget is spent: within a few calls
		// that fail, a retry is refused at once.
		if run := r.run(t, 5, 1); run.denied == 0 {
			t.Fatalf("right after the outage, 5 failing calls made %d requests and none was refused a retry", run.requests)
		}

		// The service recovers and answers normally for 10 s.
		r.answer(func(plantstoretest.Request) bool { return false })
		for range 10 {
			if run := r.run(t, 50, 10); run.failed != 0 {
				t.Fatalf("a call failed against the recovered service: %v", run.errs[0])
			}
			r.clock.Add(int64(time.Second))
		}

		r.answer(fivePercent)
		checkFivePercent(t, r.run(t, outageCalls, outageInFlight), outageCalls)
	})
}
