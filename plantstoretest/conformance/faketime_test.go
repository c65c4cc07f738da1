//go:build go1.25

package conformance_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// TestNewServerInFakeTime runs the whole kit, control checks included,
// inside a synctest bubble against a fake on its in-memory network, as a
// consumer's fake-time test would: the same answers as on loopback, and
// the kit's timeouts and the faults' Retry-After cost no real time.
func TestNewServerInFakeTime(t *testing.T) {
	oneProcForRaceBubble(t)
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		// Run's subtests cannot start inside a bubble (t.Run panics
		// there), so a fake-time test takes the report and checks it.
		rep, err := conformance.RunReport(context.Background(), conformance.Target{
			URL:    srv.URL,
			Token:  plantstoretest.DefaultToken,
			Client: srv.HTTPClient(),
			Fake:   srv,
		})
		if err != nil {
			t.Fatal(err)
		}
		checkAgreesWithFake(t, rep)
		for _, id := range []string{"retry-after-429", "retry-after-503", "control-stored"} {
			if c := rep.Check(id); c.Outcome == conformance.Skipped {
				t.Errorf("check %s skipped: %s", id, c.Problem)
			}
		}
	})
}
