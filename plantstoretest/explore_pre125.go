//go:build !go1.25

package plantstoretest

import (
	"runtime"
	"testing"
)

// requireSynctest fails t: before Go 1.25 there is no testing/synctest.
func requireSynctest(t *testing.T) {
	t.Helper()
	t.Fatalf("plantstoretest: Explore needs Go 1.25 or later (testing/synctest); this is %s", runtime.Version())
}

func runInBubble(t *testing.T, f func(*testing.T)) { panic("unreachable") }
