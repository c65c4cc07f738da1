//go:build go1.25

package bubble

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestOneProcUnderRace runs, in bubbles, what crashes the Go 1.25 and
// 1.26 runtime under the race detector without OneProcUnderRace:
// many goroutines of one bubble selecting on expired timers at once, the
// way go-retryablehttp waits between attempts. On those versions without
// the workaround the test binary dies within a few bubbles (SIGSEGV or
// "ThreadSanitizer: CHECK failed"); with it, or without -race, or on Go
// 1.27, every timer fires and the test passes.
func TestOneProcUnderRace(t *testing.T) {
	t.Parallel()
	OneProcUnderRace(t)
	const bubbles, goroutines, timers = 40, 200, 20
	for range bubbles {
		synctest.Test(t, func(t *testing.T) {
			var wg sync.WaitGroup
			var mu sync.Mutex
			fired := 0
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					for range timers {
						timer := time.NewTimer(0)
						select {
						case <-ctx.Done():
							timer.Stop()
						case <-timer.C:
							mu.Lock()
							fired++
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			if fired != goroutines*timers {
				t.Errorf("%d timers fired, want %d", fired, goroutines*timers)
			}
		})
	}
}
