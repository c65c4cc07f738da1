//go:build go1.25

package plantstoretest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// A test of retries with the SDK's production settings, in fake time: the
// server answers twice with 503 and "Retry-After: 30", the client waits the
// minute it is told to, and the test takes under a millisecond of wall
// time. NewServer is called inside the bubble, with WithInMemoryNetwork,
// because loopback sockets make synctest.Test hang. Needs Go 1.25 or later.
//
// In a _test.go file of your own, the function given to asTest is the body
// of a test, func TestCreateWaitsForRetryAfter(t *testing.T); an Example has
// no *testing.T, so asTest supplies one.
func ExampleWithInMemoryNetwork() {
	asTest("ExampleWithInMemoryNetwork", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
			srv.Inject(plantstoretest.Fault{
				Status: http.StatusServiceUnavailable,
				Header: http.Header{"Retry-After": {"30"}},
				Times:  2,
			})
			client := srv.ProductionClient() // 250ms to 5s backoff, Retry-After up to 30s

			start := time.Now()
			p, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("created %s after %v of fake time\n", p.Name, time.Since(start))
			for _, r := range srv.Requests() {
				fmt.Printf("attempt %d at +%v: %d\n", r.RetryCount+1, r.Time.Sub(start), r.Status)
			}
		})
	})
	// Output:
	// created Fern after 1m0s of fake time
	// attempt 1 at +0s: 503
	// attempt 2 at +30s: 503
	// attempt 3 at +1m0s: 200
}
