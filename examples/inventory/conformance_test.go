package inventory_test

import (
	"os"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// The inventory's tests are only as true as the fake's answers: the
// conformance kit holds the fake, and the deployment when one is named, to
// the specification, and prints the answers it leaves open side by side.

// TestFakeConformance checks the fake these tests run against. Fake lets
// the kit script it (a 429, a 503 with Retry-After) through its Go API.
func TestFakeConformance(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t)
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Fake: srv})
}

// TestDeploymentConformance checks the deployment PLANTSTORE_URL names,
// with the token in PLANTSTORE_TOKEN; without one it is skipped.
func TestDeploymentConformance(t *testing.T) {
	if os.Getenv("PLANTSTORE_URL") == "" {
		t.Skip("PLANTSTORE_URL is not set: no deployment to check")
	}
	conformance.Run(t, conformance.Target{
		URL:   os.Getenv("PLANTSTORE_URL"),
		Token: os.Getenv("PLANTSTORE_TOKEN"),
		Live:  true, // a real deployment: it keeps the (at most 10) plants the run creates
	})
}
