//go:build go1.25

package plantstoretest

import (
	"testing"
	"testing/synctest"

	"github.com/plantstore/plantstore-go/internal/bubble"
)

// exploreSupported reports whether Explore can run: from Go 1.25 it can,
// with one process under the race detector of Go 1.25 and 1.26 (see
// bubble.OneProcUnderRace).
func exploreSupported(t *testing.T) bool {
	bubble.OneProcUnderRace(t)
	return true
}

// runInBubble runs f in a testing/synctest bubble.
func runInBubble(t *testing.T, f func(*testing.T)) { synctest.Test(t, f) }
