//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// A test of your own against the traffic your deployment answered: the
// fake replays the recording in testdata/traffic.json (a profile document,
// as traffic.Recorder's WriteTo writes it) with its failures, bursts,
// Retry-After waits and latencies, in fake time, so 1,000 calls take a
// fraction of a second. The test asserts the service's own promise, here
// that no more than 1 % of creates take over 2 seconds, and fails if the
// recorded mix breaks it. WithChaosSeed fixes the sequence; vary it to
// explore others. Needs Go 1.25 or later (see ExampleWithInMemoryNetwork).
func ExampleProfile_traffic() {
	asTest("ExampleProfile_traffic", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			data, err := os.ReadFile("testdata/traffic.json")
			if err != nil {
				t.Fatal(err)
			}
			p, err := plantstoretest.ParseProfile(data)
			if err != nil {
				t.Fatal(err)
			}
			srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork(), plantstoretest.WithProfile(p), plantstoretest.WithChaosSeed(1))
			client := srv.ProductionClient() // or your code, given srv.URL and srv.HTTPClient()
			// … 1,000 creates through client, counting in slow those over 2s; then:
			slow, failed, maybe := 0, 0, 0
			for i := range 1000 {
				start := time.Now()
				_, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i + 1), Name: "Fern"})
				if time.Since(start) > 2*time.Second {
					slow++
				}
				if err != nil {
					failed++
				}
				if errors.Is(err, plantstore.ErrMaybeCreated) {
					maybe++
				}
			}
			if slow > 10 {
				t.Errorf("%d of 1,000 creates took over 2s, more than the 1%% the service allows", slow)
			}
			replayed := 0
			for _, r := range srv.Requests() {
				if strings.HasPrefix(r.Fault, "traffic ") {
					replayed++
				}
			}
			fmt.Printf("%d requests, %d replayed failures; %d creates failed, %d maybe created\n", len(srv.Requests()), replayed, failed, maybe)
		})
	})
	// Output:
	// 1005 requests, 6 replayed failures; 1 creates failed, 1 maybe created
}
