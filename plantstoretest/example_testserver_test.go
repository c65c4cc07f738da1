//go:build go1.27

package plantstoretest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// On Go 1.27 or later, httptest.NewTestServer serves any handler on an
// in-memory network of its own, which works inside a synctest bubble too:
// mount the Handler there, and give plantstore.NewClient the server's
// client, which sends every request to the server whatever the host.
// Close the Handler before the server: the cleanup registered last runs
// first, and releases requests held by a Hang or a Delay. Unlike
// NewServer, this reports no unused Fault at the end of the test.
//
// In a _test.go file of your own, the function given to asTest is the body
// of a test; an Example has no *testing.T, so asTest supplies one.
func ExampleHandler_newTestServer() {
	asTest("ExampleHandler_newTestServer", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := plantstoretest.NewHandler()
			ts := httptest.NewTestServer(t, h)
			t.Cleanup(h.Close)
			client, err := plantstore.NewClient("https://plants.example.com",
				plantstore.WithToken(plantstoretest.DefaultToken),
				plantstore.WithHTTPClient(ts.Client()))
			if err != nil {
				t.Fatal(err)
			}

			h.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"30"}}})
			start := time.Now()
			p, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("created %s after %v of fake time, in %d attempts\n", p.Name, time.Since(start), len(h.Requests()))
		})
	})
	// Output:
	// created Fern after 30s of fake time, in 2 attempts
}
