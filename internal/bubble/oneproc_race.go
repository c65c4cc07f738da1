//go:build go1.25 && race && !go1.27

package bubble

import (
	"runtime"
	"sync"
	"testing"
)

// OneProcUnderRace sets GOMAXPROCS to 1 until tb and every other test
// that called it have ended, so that no two goroutines run at once. It
// works around a crash of the Go 1.25 and 1.26 runtime under the race
// detector (this file's build tags): inside a testing/synctest bubble,
// every timer that fires runs under one race context shared by the whole
// bubble, and when two goroutines of a bubble fire timers at the same
// instant on two threads (a select on an expired timer's channel, as
// go-retryablehttp's Client.Do makes between attempts with a
// time.NewTimer(0)), ThreadSanitizer's state is corrupted: SIGSEGV in
// runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK failed".
// Go 1.27 runs them under the thread's own context instead. A test that
// runs many goroutines in a bubble calls it before synctest.Test. It costs
// the bubble nothing measurable (bench/BENCHMARKS.md), but slows tests
// running beside it in parallel, so only those tests call it.
func OneProcUnderRace(tb testing.TB) {
	oneProc.mu.Lock()
	if oneProc.users == 0 {
		oneProc.prev = runtime.GOMAXPROCS(1)
	}
	oneProc.users++
	oneProc.mu.Unlock()
	tb.Cleanup(func() {
		oneProc.mu.Lock()
		defer oneProc.mu.Unlock()
		if oneProc.users--; oneProc.users == 0 {
			runtime.GOMAXPROCS(oneProc.prev)
		}
	})
}

var oneProc struct {
	mu    sync.Mutex
	users int // tests running with GOMAXPROCS 1
	prev  int // GOMAXPROCS before the first of them
}
