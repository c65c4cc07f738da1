//go:build go1.25 && race && !go1.27

package conformance_test

import (
	"runtime"
	"testing"
)

// oneProcForRaceBubble runs the rest of the test on one processor: under
// the race detector, Go 1.25 and 1.26 can crash when two goroutines of a
// synctest bubble fire timers at the same instant on two threads (see
// plantstoretest/racebubbles_race_test.go, and bench/BENCHMARKS.md).
func oneProcForRaceBubble(tb testing.TB) {
	prev := runtime.GOMAXPROCS(1)
	tb.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}
