package traffic

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore-go"
)

// Recorder records the attempts of the [plantstore.Client]s that take its
// [Recorder.Hooks]. Its memory is fixed at creation (unsafe.Sizeof, under
// 64 KiB) and it allocates nothing as it records but one small context a
// call; it is safe for concurrent use.
//
// What it cannot tell it leaves out, or approximates, as follows:
//   - An attempt that the caller's own context ended (cancelled, or past
//     its deadline) says nothing of the service and is not counted.
//   - A 4xx answer's code is that of the call's [plantstore.APIError]: a
//     retried 4xx answer's body is not parsed, so it counts without one,
//     and so does code 0.
//   - A Retry-After is rounded to whole seconds; zero reads as none, as
//     [plantstore.Attempt.RetryAfter] does.
//   - An answer with a status that is none of 2xx, 4xx or 5xx counts in
//     the catch-all 4xx outcome (status 0).
//   - Runs of failures follow the order attempts started, put back in that
//     order as they end within a window of 2,048 attempts; an attempt
//     that ends after 2,048 later ones started is placed where it ends.
//   - It counts up to 2^32-1 attempts, and then no more.
type Recorder struct {
	seq atomic.Uint64 // the next attempt's sequence number

	origin atomic.Pointer[string] // "scheme://host/" of the first call
	mixed  atomic.Bool            // calls went to more than one origin

	mu       sync.Mutex
	attempts uint32
	keyed    int // slots taken by an outcome with a status, catch-alls aside
	nslots   int
	slots    [maxOutcomes]slot

	runs runCounter
	// The reorder window: next is the first sequence number not folded
	// into the runs, win[seq%window] the state of an attempt that ended.
	next uint64
	win  [window]uint8
	// from is the first sequence number of the period (see Reset): an
	// attempt before it that ends after the Reset is not counted.
	from uint64
	// afterOK and afterRefused are Recording.AfterBreaks.
	afterOK, afterRefused uint32
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return new(Recorder) }

// Hooks returns the hooks that record a client's attempts: give them to
// [plantstore.NewClient] with [plantstore.WithHooks], beside any others.
// Its CallStart hook returns a context that derives from its argument;
// a hook after it whose CallStart returns one that does not hides the
// call from the Recorder.
func (r *Recorder) Hooks() plantstore.Hooks {
	return plantstore.Hooks{
		CallStart:    r.callStart,
		AttemptStart: r.attemptStart,
		AttemptEnd:   r.attemptEnd,
		CallEnd:      r.callEnd,
	}
}

// call is the Recorder's context of a call: what it knows of the open
// attempt, and of a 4xx answer that waits for the call's error to tell its
// code. The call's hooks run one at a time, on the calling goroutine. It
// is the context itself, with its own Value, so that a call allocates once.
type call struct {
	context.Context
	r     *Recorder
	seq   uint64
	start time.Time
	// status and latency are those of the 4xx answer that ended the call,
	// counted at CallEnd; status is 0 until then.
	status  int
	latency time.Duration
	// broke says the last attempt, breakSeq, broke after sending;
	// afterBreak, that the 4xx counted at CallEnd came right after it.
	broke, afterBreak bool
	breakSeq          uint64
}

// ctxKey finds a Recorder's call in a context.
type ctxKey struct{ r *Recorder }

func (c *call) Value(key any) any {
	if k, ok := key.(ctxKey); ok && k.r == c.r {
		return c
	}
	return c.Context.Value(key)
}

func (r *Recorder) callOf(ctx context.Context) *call {
	c, _ := ctx.Value(ctxKey{r}).(*call)
	return c
}

func (r *Recorder) callStart(ctx context.Context, info *plantstore.CallInfo) context.Context {
	r.noteOrigin(info.URL)
	return &call{Context: ctx, r: r}
}

func (r *Recorder) attemptStart(ctx context.Context, _ *plantstore.CallInfo, _ plantstore.Attempt) context.Context {
	if c := r.callOf(ctx); c != nil {
		c.seq = r.seq.Add(1) - 1
		c.start = time.Now()
	}
	return nil
}

func (r *Recorder) attemptEnd(ctx context.Context, _ *plantstore.CallInfo, a plantstore.Attempt) {
	c := r.callOf(ctx)
	if c == nil {
		return
	}
	d := time.Since(c.start)
	afterBreak := c.broke
	c.broke = false
	var k uint8
	switch {
	case a.Err != nil && c.Context.Err() != nil:
		r.settle(c.seq, skipped)
		return
	case a.Err != nil && ctx.Err() != nil && errors.Is(a.Err, context.DeadlineExceeded):
		k = kAttemptTimeout
	case a.Err != nil && (a.MaybeSent || a.StatusCode != 0):
		k = kBrokenAfterSend // a 2xx whose body broke off was sent too
	case a.Err != nil:
		k = kBrokenBeforeSend
	case a.StatusCode >= 200 && a.StatusCode <= 299:
		k = kOK
	case a.StatusCode == 429:
		k = k429
	case a.StatusCode >= 500 && a.StatusCode <= 599:
		k = k5xx
	case a.StatusCode >= 400 && a.StatusCode <= 499 && !a.WillRetry:
		c.status, c.latency = a.StatusCode, d // the code comes with the call's error
		c.afterBreak = afterBreak
		return
	default:
		k = k4xx
	}
	r.count(c.seq, k, a.StatusCode, nil, a.RetryAfter, d)
	if afterBreak {
		r.noteAfterBreak(c.breakSeq, k)
	}
	c.broke, c.breakSeq = k == kBrokenAfterSend, c.seq
}

// noteAfterBreak counts the answer of kind k to the attempt that came
// right after the break after sending of attempt breakSeq, in the same
// call (AfterBreaks), if the period counted that break.
func (r *Recorder) noteAfterBreak(breakSeq uint64, k uint8) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case breakSeq < r.from:
	case k == kOK:
		r.afterOK++
	case k == k4xx:
		r.afterRefused++
	}
}

func (r *Recorder) callEnd(ctx context.Context, _ *plantstore.CallInfo, err error) {
	c := r.callOf(ctx)
	if c == nil || c.status == 0 {
		return
	}
	var code *int32
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode == c.status && apiErr.Code != 0 {
		code = &apiErr.Code
	}
	r.count(c.seq, k4xx, c.status, code, 0, c.latency)
	if c.afterBreak {
		r.noteAfterBreak(c.breakSeq, k4xx)
	}
}
