//go:build go1.25

package plantstoretest

import (
	"testing"
	"testing/synctest"
)

// exploreSupported reports whether Explore can run: from Go 1.25 it can,
// with one process under the race detector of Go 1.25 and 1.26 (see
// oneProcForRaceBubbles).
func exploreSupported(t *testing.T) bool {
	oneProcForRaceBubbles(t)
	return true
}

// runInBubble runs f in a testing/synctest bubble.
func runInBubble(t *testing.T, f func(*testing.T)) { synctest.Test(t, f) }
