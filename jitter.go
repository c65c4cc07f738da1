package plantstore

import (
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// WithRetryJitterSource makes the Client draw the random part of its retry
// backoff (see [WithRetryBackoff]) from src instead of math/rand/v2's global
// generator, so that the waits between attempts can be replayed: give a
// seeded source, such as rand.NewPCG(seed, 0), and the same sequence of
// retries waits the same times. That reproduces a production incident's
// timing from its logged seed, and makes a test in fake time
// (testing/synctest) give the same timeline in every run.
//
// The Client draws once per retry, in the order its calls decide to retry:
// calls made one after another draw in a fixed order; concurrent calls
// draw in the order the scheduler runs them. src is used under the
// Client's own lock, so it need not be safe for concurrent use, but it must
// not be shared with anything else. Waits keep their bounds: only which
// point of the window is chosen depends on src. Clients that retry at once
// in production should keep the default, so that they spread out (two
// clients seeded alike would wait alike). A nil src is an error.
func WithRetryJitterSource(src rand.Source) Option {
	return func(c *config) error {
		if src == nil {
			return errors.New("plantstore: retry jitter source must not be nil")
		}
		c.jitter = src
		return nil
	}
}

// jitter draws the random part of backoffs from a source of the caller's.
type jitter struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newJitter(src rand.Source) *jitter {
	if src == nil {
		return nil
	}
	return &jitter{r: rand.New(src)}
}

// n returns a random duration in [0, d); d must be positive.
func (j *jitter) n(d time.Duration) time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	return time.Duration(j.r.Int64N(int64(d)))
}

// backoff is [backoff] with c's backoff window (see [WithRetryBackoff])
// and c's jitter source, if it has one.
func (c *Client) backoff(attempt int, ra time.Duration) time.Duration {
	if c.jitter == nil {
		return backoff(c.retryWaitMin, c.retryWaitMax, attempt, ra)
	}
	return backoffDrawn(c.retryWaitMin, c.retryWaitMax, attempt, ra, c.jitter.n)
}
