package plantstore

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRetryJitterSourceReplays checks that two clients given sources seeded
// alike choose the same waits, inside the backoff's window, and that a
// differently seeded one does not.
func TestRetryJitterSourceReplays(t *testing.T) {
	t.Parallel()
	waits := func(seed uint64) []time.Duration {
		t.Helper()
		c, err := NewClient("https://plants.example.com", WithToken("t"),
			WithRetryBackoff(250*time.Millisecond, 5*time.Second), WithRetryJitterSource(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		var out []time.Duration
		for i := range 40 {
			attempt := i % 6
			d := c.backoff(attempt, 0)
			ceiling := backoffCeiling(250*time.Millisecond, 5*time.Second, attempt)
			if d < ceiling/2 || d > ceiling {
				t.Fatalf("wait before retry %d = %v, want within [%v, %v]", attempt, d, ceiling/2, ceiling)
			}
			out = append(out, d)
		}
		return out
	}
	first := waits(7)
	if diff := cmp.Diff(first, waits(7)); diff != "" {
		t.Errorf("the same seed gave other waits (-first +second):\n%s", diff)
	}
	if cmp.Equal(first, waits(8)) {
		t.Errorf("seeds 7 and 8 gave the same 40 waits: %v", first)
	}
}

func TestRetryJitterSourceNil(t *testing.T) {
	t.Parallel()
	_, err := NewClient("https://plants.example.com", WithToken("t"), WithRetryJitterSource(nil))
	if want := "plantstore: retry jitter source must not be nil"; err == nil || err.Error() != want {
		t.Errorf("NewClient(WithRetryJitterSource(nil)) error = %v, want %q", err, want)
	}
}

// TestRetryJitterSourceConcurrent holds the doc's promise that a source
// need not be safe for concurrent use: the Client draws from it under its
// own lock, so concurrent retries give the race detector nothing to report,
// and every wait stays in its window.
func TestRetryJitterSourceConcurrent(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://plants.example.com", WithToken("t"), WithRetryJitterSource(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				attempt := (g + i) % 6
				d := c.backoff(attempt, 0)
				ceiling := backoffCeiling(c.retryWaitMin, c.retryWaitMax, attempt)
				if d < ceiling/2 || d > ceiling {
					errs <- fmt.Sprintf("wait before retry %d = %v, want within [%v, %v]", attempt, d, ceiling/2, ceiling)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
