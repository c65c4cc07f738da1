//go:build go1.25

package plantstoretest

import (
	"testing"
	"testing/synctest"

	"github.com/plantstore/plantstore-go/internal/bubble"
)

// requireSynctest readies t for Explore's bubbles: from Go 1.25 they run,
// with one process under the race detector of Go 1.25 and 1.26 (see
// bubble.OneProcUnderRace).
func requireSynctest(t *testing.T) { bubble.OneProcUnderRace(t) }

// runInBubble runs f in a testing/synctest bubble.
func runInBubble(t *testing.T, f func(*testing.T)) { synctest.Test(t, f) }
