package plantstore

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// ErrRetryBudgetExhausted matches the error of a call whose retry the
// [Client]'s retry budget ([WithRetryBudget]) refused; the error is still
// the last attempt's outcome, noted as [CallError.Error] says.
var ErrRetryBudgetExhausted = errors.New("plantstore: retry budget exhausted")

// retryBudgetNote is what the text of an error that matches
// [ErrRetryBudgetExhausted] says.
const retryBudgetNote = " (not retried: the client's retry budget is exhausted)"

// The retry budget's defaults and fixed parameters. They are Finagle's
// RetryBudget's: deposits expire after 10 s, 20 % of requests may be
// retried, and 10 retries per second are allowed whatever the traffic.
const (
	defaultBudgetRatio        = 0.2
	defaultBudgetMinPerSecond = 10
	// budgetWindow is how long a call and a retry count against the
	// budget, in whole seconds: budgetSlots slots of a second each.
	budgetSlots = 10
	// budgetUnit is what one retry costs, in the budget's fixed-point
	// units; a call adds ratio × budgetUnit. Ratios are kept to 1/1000.
	budgetUnit = 1000
	// maxBudgetRatio and maxBudgetMinPerSecond bound what WithRetryBudget
	// accepts: beyond them the budget no longer limits anything a Client
	// can do, and the arithmetic stays far from overflow.
	maxBudgetRatio        = 1000
	maxBudgetMinPerSecond = 1_000_000
)

// budgetConfig is what [WithRetryBudget] and [WithoutRetryBudget] set.
type budgetConfig struct {
	off          bool
	ratio        float64
	minPerSecond int
}

// WithRetryBudget sets the retry budget that all calls of the Client share:
// over any 10 seconds, they may retry at most ratio × the calls made in
// those 10 seconds, or minPerSecond × 10 when that is more; a retry beyond
// that is not made ([ErrRetryBudgetExhausted]). The default, Finagle's
// (0.2, 10), gives a service that fails every request at most 1.2 times
// the calls of a busy Client, while one where up to about one answer in
// six fails still gets every retry. ratio must be 0 to 1000 and
// minPerSecond 0 to 1,000,000, not both zero; anything else is an error.
func WithRetryBudget(ratio float64, minPerSecond int) Option {
	return func(c *config) error {
		if math.IsNaN(ratio) || ratio < 0 || ratio > maxBudgetRatio {
			return fmt.Errorf("plantstore: retry budget ratio must be 0 to %d, got %v", maxBudgetRatio, ratio)
		}
		if minPerSecond < 0 || minPerSecond > maxBudgetMinPerSecond {
			return fmt.Errorf("plantstore: retry budget minimum must be 0 to %d per second, got %d", maxBudgetMinPerSecond, minPerSecond)
		}
		if ratio == 0 && minPerSecond == 0 {
			return errors.New("plantstore: a retry budget of zero allows no retry: use WithMaxRetries(0), or WithoutRetryBudget for no budget")
		}
		c.budget = budgetConfig{ratio: ratio, minPerSecond: minPerSecond}
		return nil
	}
}

// WithoutRetryBudget removes the retry budget ([WithRetryBudget]), for
// when something else bounds the retries, such as a rate limiter.
func WithoutRetryBudget() Option {
	return func(c *config) error {
		c.budget = budgetConfig{off: true}
		return nil
	}
}

// retryBudget is a Client's retry budget: Finagle's RetryBudget, with the
// floor as a minimum rather than a reserve added to the deposits, so that
// a full outage costs the service at most 1 + ratio times the calls.
//
// A call that succeeds at once touches only calls, with one atomic add: no
// lock and no clock. The rest is kept under mu and read only when a call
// would retry. There, slots hold, for each of the last budgetSlots seconds
// in which a retry was considered, the value of calls when that second was
// first seen and the retries made in it. The calls of the window are
// counted from the oldest slot still in it, so seconds in which no retry
// was considered are not counted: the count errs low, never high, and a
// Client that starts failing after a quiet spell relies on its floor until
// its calls are counted again.
type retryBudget struct {
	calls atomic.Uint64 // first attempts since the Client was made

	deposit uint64 // units a call adds: ratio × budgetUnit
	floor   uint64 // units a window always allows: minPerSecond × budgetSlots × budgetUnit

	// now is the time since the budget was made; tests replace it.
	now func() time.Duration

	mu    sync.Mutex
	slots [budgetSlots]budgetSlot
}

// budgetSlot is one second of the budget's window.
type budgetSlot struct {
	sec     int64  // which second since the budget was made; -1 for none
	calls   uint64 // retryBudget.calls when the second was first seen
	retries uint64 // retries allowed in it
}

// newRetryBudget returns the budget cfg asks for, or nil for none.
func newRetryBudget(cfg budgetConfig) *retryBudget {
	if cfg.off {
		return nil
	}
	start := time.Now()
	b := &retryBudget{
		deposit: uint64(math.Round(cfg.ratio * budgetUnit)),
		floor:   uint64(cfg.minPerSecond) * budgetSlots * budgetUnit,
		now:     func() time.Duration { return time.Since(start) },
	}
	for i := range b.slots {
		b.slots[i].sec = -1
	}
	// Second 0 is seen now, so that a new Client counts all its calls.
	b.slots[0].sec = 0
	return b
}

// called records a call's first attempt. A nil budget records nothing.
func (b *retryBudget) called() {
	if b != nil {
		b.calls.Add(1)
	}
}

// allow reports whether a call may retry, and if so counts the retry. A
// nil budget allows every retry.
func (b *retryBudget) allow() bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	// Read under the lock, so that the seconds the slots see never go
	// back, however long a caller waited for the lock.
	sec := int64(b.now() / time.Second)
	calls := b.calls.Load()
	cur := &b.slots[sec%budgetSlots]
	if cur.sec != sec {
		*cur = budgetSlot{sec: sec, calls: calls}
	}
	oldest, retries := calls, uint64(0)
	for i := range b.slots {
		s := &b.slots[i]
		if s.sec > sec-budgetSlots && s.sec <= sec {
			oldest = min(oldest, s.calls)
			retries += s.retries
		}
	}
	limit := max(b.floor, (calls-oldest)*b.deposit)
	if (retries+1)*budgetUnit > limit {
		return false
	}
	cur.retries++
	return true
}
