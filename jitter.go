package plantstore

import (
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// WithRetryJitterSource draws the random part of the retry backoff from src
// instead of math/rand/v2's global generator, so that a seeded source, such
// as rand.NewPCG(seed, 0), replays the same waits (a production incident's,
// a fake-time test's) for calls made one after another. src is used under
// the Client's lock, so it need not be safe for concurrent use, but must
// not be shared. Clients that retry at once in production should keep the
// default, so that they spread out. A nil src is an error.
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

// backoff is [backoff] with c's window ([WithRetryBackoff]) and jitter.
func (c *Client) backoff(attempt int, ra time.Duration) time.Duration {
	n := rand.N[time.Duration]
	if c.jitter != nil {
		n = c.jitter.n
	}
	return backoff(c.retryWaitMin, c.retryWaitMax, attempt, ra, n)
}
