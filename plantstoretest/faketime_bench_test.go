//go:build go1.25

package plantstoretest_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The benchmarks below measure the wall time of tests in fake time
// (issue 16): each op is one synctest bubble with a fake on the in-memory
// network and a client with the SDK's production retry settings. Each
// reports fake-s/op, the fake time the op covers, which the same test
// would wait in real time on a loopback server: the ratio of fake-s/op to
// sec/op is what fake time saves. synctest.Test needs a *testing.T, so the
// ops run inside asTest.

// inBubbles runs op b.N times, each in a bubble of its own, and reports the
// fake time an op covers (the same for every op, or the last one's). Under
// -race on Go 1.25 and 1.26 the ops run with GOMAXPROCS 1, which a runtime
// crash there needs (see bubble.OneProcUnderRace).
func inBubbles(b *testing.B, name string, op func(t *testing.T) time.Duration) {
	b.Helper()
	var fake time.Duration
	bubble.OneProcUnderRace(b)
	b.ResetTimer()
	ok := asTest(name, func(t *testing.T) {
		for range b.N {
			synctest.Test(t, func(t *testing.T) { fake = op(t) })
		}
	})
	b.StopTimer()
	if !ok {
		b.Fatalf("%s failed", name)
	}
	b.ReportMetric(fake.Seconds(), "fake-s/op")
}

// BenchmarkScenarioS is scenario S of TestScenarioS, once per op.
func BenchmarkScenarioS(b *testing.B) {
	inBubbles(b, "ScenarioS", func(t *testing.T) time.Duration {
		start := time.Now()
		scenarioS(t, scenarioSeed)
		return time.Since(start)
	})
}

// BenchmarkRetryStorm is a storm: 1,000 calls, 200 in flight, every answer
// a 503 without Retry-After, so every call makes its 3 attempts with the
// production backoff between them. With -short (CI's brief pass of every
// benchmark, 100 ops each) it is a tenth of that. The client has no retry
// budget (issue 18): against a server that fails everything the default
// budget rightly refuses most retries (1,200 requests instead of 3,000),
// which its own tests check; the storm measures retries in fake time, the
// workload issue 16's bar was set for.
func BenchmarkRetryStorm(b *testing.B) {
	calls, inFlight := 1000, 200
	if testing.Short() {
		calls, inFlight = 100, 20
	}
	inBubbles(b, "RetryStorm", func(t *testing.T) time.Duration {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		srv.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Times: 3 * calls})
		client := srv.ProductionClient(plantstore.WithoutRetryBudget())
		start := time.Now()
		var wg sync.WaitGroup
		for w := range inFlight {
			wg.Go(func() {
				for i := w; i < calls; i += inFlight {
					_, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i), Name: "Fern"})
					if err == nil {
						t.Errorf("call %d succeeded against a 503 fault", i)
					}
				}
			})
		}
		wg.Wait()
		if got := len(srv.Requests()); got != 3*calls {
			t.Errorf("the storm made %d requests, want %d", got, 3*calls)
		}
		return time.Since(start)
	})
}

// BenchmarkConsumerRetryAfter is a consumer's test of a 503 with
// "Retry-After: 1", the Fault documentation's own example, with production
// settings: the call waits a fake second and succeeds.
func BenchmarkConsumerRetryAfter(b *testing.B) {
	inBubbles(b, "ConsumerRetryAfter", func(t *testing.T) time.Duration {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		srv.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"1"}}})
		start := time.Now()
		if _, err := srv.ProductionClient().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	})
}

// BenchmarkConsumerRetryAfterLoopback is the baseline of
// BenchmarkConsumerRetryAfter: the same test in real time, on a loopback
// server, where the Retry-After costs a real second. Skipped with -short.
func BenchmarkConsumerRetryAfterLoopback(b *testing.B) {
	if testing.Short() {
		b.Skip("waits a real second per op")
	}
	for range b.N {
		ok := asTest("ConsumerRetryAfterLoopback", func(t *testing.T) {
			srv := plantstoretest.NewServer(t)
			srv.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"1"}}})
			if _, err := srv.ProductionClient().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
				t.Fatal(err)
			}
		})
		if !ok {
			b.Fatal("ConsumerRetryAfterLoopback failed")
		}
	}
}
