package traffic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/latency"
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

// window is how many attempts the Recorder puts back in start order.
const window = 2048

// The states of an attempt in the window.
const (
	pending uint8 = iota
	ended         // a success
	failed
	skipped // not in the runs: the caller's context ended it, or a 4xx
)

// slot counts one outcome.
type slot struct {
	kind    uint8 // index in kinds
	hasCode bool
	nra     uint8
	status  uint16
	code    int32
	count   uint32
	latency [latency.Buckets]uint32
	ra      [maxRetryAfters]raCount // kinds 429 and 5xx only
}

// raCount counts one Retry-After value, in seconds; -1 for none.
type raCount struct {
	seconds int32
	count   uint32
}

// The kinds by their index in kinds, as the hooks classify attempts:
// comparing Kind strings would cost the hot path.
const (
	kOK uint8 = iota
	k4xx
	k429
	k5xx
	kBrokenBeforeSend
	kBrokenAfterSend
	kAttemptTimeout
)

// keyedSlots is how many distinct outcomes with a status a Recorder keeps:
// the others hold the four kinds without a status, 429, and the catch-alls
// of 2xx, 4xx and 5xx.
const keyedSlots = maxOutcomes - 7

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
// code. The call's hooks run one at a time, on the calling goroutine.
// It is the context itself, with its own Value, so that a recorded call
// allocates once (TestRecorderNoAllocations), where context.WithValue
// would add a second allocation to every call of a production client.
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

// count records one attempt of sequence number seq.
func (r *Recorder) count(seq uint64, k uint8, status int, code *int32, ra, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attempts == math.MaxUint32 || seq < r.from {
		return
	}
	r.attempts++
	s := r.slot(k, status, code)
	s.count++
	s.latency[latency.Of(d)]++
	if k == k429 || k == k5xx {
		s.countRetryAfter(ra)
	}
	state := failed
	switch k {
	case kOK:
		state = ended
	case k4xx:
		state = skipped // the caller's own mistake: see Runs
	}
	r.settleLocked(seq, state)
}

// slot returns the slot of an outcome, taking a free one, or the catch-all
// of its kind once the keyed ones are all taken. r.mu is held.
func (r *Recorder) slot(ki uint8, status int, code *int32) *slot {
	if ki > k5xx || !kinds[ki].statusFits(status) {
		status, code = 0, nil
	}
	var c int32
	if code != nil {
		c = *code
	}
	for i := range r.nslots {
		s := &r.slots[i]
		if s.kind == ki && int(s.status) == status && s.hasCode == (code != nil) && s.code == c {
			return s
		}
	}
	if status != 0 && ki != k429 {
		if r.keyed == keyedSlots {
			return r.slot(ki, 0, nil)
		}
		r.keyed++
	}
	s := &r.slots[r.nslots]
	r.nslots++
	*s = slot{kind: ki, status: uint16(status), hasCode: code != nil, code: c}
	return s
}

// countRetryAfter counts the wait ra asked for.
func (s *slot) countRetryAfter(ra time.Duration) {
	sec := int32(-1)
	if ra > 0 {
		sec = int32(min((ra+time.Second/2)/time.Second, maxRetryAfterSeconds))
	}
	best := -1
	for i := range int(s.nra) {
		if s.ra[i].seconds == sec {
			s.ra[i].count++
			return
		}
		if best < 0 || abs(s.ra[i].seconds-sec) < abs(s.ra[best].seconds-sec) {
			best = i
		}
	}
	if s.nra < maxRetryAfters {
		s.ra[s.nra] = raCount{seconds: sec, count: 1}
		s.nra++
		return
	}
	s.ra[best].count++
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// settle records the state of attempt seq for the runs.
func (r *Recorder) settle(seq uint64, state uint8) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq >= r.from {
		r.settleLocked(seq, state)
	}
}

// settleLocked puts attempt seq in the window and folds into the runs the
// attempts, in order of start, that have all ended. An attempt that ends
// after the window moved past it is folded as it ends; one that would fall
// beyond the window moves it on, past attempts still pending. r.mu is held.
func (r *Recorder) settleLocked(seq uint64, state uint8) {
	if seq < r.next {
		r.runs.fold(state)
		return
	}
	for seq-r.next >= window {
		r.advance()
	}
	r.win[seq%window] = state
	for r.win[r.next%window] != pending {
		r.advance()
	}
}

// advance folds the window's first attempt into the runs, if it ended, and
// moves the window past it. r.mu is held.
func (r *Recorder) advance() {
	i := r.next % window
	r.runs.fold(r.win[i])
	r.win[i] = pending
	r.next++
}

// runCounter counts the runs of failures: by length-1, and the open one.
type runCounter struct {
	byLength [maxRunLength]uint32
	open     int
}

// fold adds an attempt's state to the runs; a pending or skipped attempt
// adds nothing.
func (rc *runCounter) fold(state uint8) {
	switch state {
	case failed:
		rc.open++
	case ended:
		rc.close()
	}
}

// close counts the open run, if any.
func (rc *runCounter) close() {
	if rc.open > 0 {
		rc.byLength[min(rc.open, maxRunLength)-1]++
		rc.open = 0
	}
}

// noteOrigin notes the scheme and host of a call's URL.
func (r *Recorder) noteOrigin(u string) {
	o := r.origin.Load()
	if o == nil {
		first := originOf(u)
		r.origin.CompareAndSwap(nil, &first)
		o = r.origin.Load()
	}
	if !r.mixed.Load() && !strings.HasPrefix(u, *o) {
		r.mixed.Store(true) // or the origin is "-", which source leaves out
	}
}

// originOf returns "scheme://host/" of URL u, or "-" for one that does
// not parse or has something else in its host.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User != nil || p.Host == "" || strings.ContainsFunc(p.Scheme+p.Host, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]+", c))
	}) {
		return "-"
	}
	return p.Scheme + "://" + p.Host + "/"
}

// snapshot returns what r recorded so far. The runs count the attempts
// that ended, in the order they started, with the open run closed, as if
// the attempts still running had not started.
func (r *Recorder) snapshot() *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordingLocked()
}

// Reset returns what r recorded so far, as [Recorder.WriteTo] writes it, and starts
// a new period with nothing recorded, at one instant: so that a service
// that runs for long records period after period (a day's traffic, to
// write and compare with the last) through the same clients and hooks.
// An attempt in flight at the Reset is counted in neither period. The
// origin of the calls, which WriteTo writes, is kept.
func (r *Recorder) Reset() *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.recordingLocked()
	from := r.seq.Load()
	r.attempts, r.keyed, r.nslots = 0, 0, 0
	r.slots = [maxOutcomes]slot{}
	r.runs = runCounter{}
	r.win = [window]uint8{}
	r.next, r.from = from, from
	r.afterOK, r.afterRefused = 0, 0
	return rec
}

// recordingLocked is snapshot; r.mu is held.
func (r *Recorder) recordingLocked() *Recording {
	rec := &Recording{Attempts: int64(r.attempts), Outcomes: make([]Outcome, 0, r.nslots)}
	for i := range r.nslots {
		rec.Outcomes = append(rec.Outcomes, r.slots[i].outcome())
	}
	slices.SortFunc(rec.Outcomes, func(a, b Outcome) int { return compareOutcomes(&a, &b) })
	for _, o := range rec.Outcomes {
		if o.Kind.Failure() {
			rec.FailureRuns.Failures += o.Count
		}
	}
	// Fold what the window holds into a copy of the runs.
	runs := r.runs
	for seq := r.next; seq < r.next+window; seq++ {
		runs.fold(r.win[seq%window])
	}
	runs.close()
	rec.FailureRuns.Lengths = []RunLength{}
	for i, n := range runs.byLength {
		if n > 0 {
			rec.FailureRuns.Lengths = append(rec.FailureRuns.Lengths, RunLength{Length: i + 1, Count: int64(n)})
			rec.FailureRuns.Runs += int64(n)
		}
	}
	if r.afterOK+r.afterRefused > 0 {
		rec.AfterBreaks = &AfterBreaks{OK: int64(r.afterOK), Refused: int64(r.afterRefused)}
	}
	return rec
}

// outcome returns what s counted, as a Recording holds it.
func (s *slot) outcome() Outcome {
	o := Outcome{Kind: kinds[s.kind], Status: int(s.status), Count: int64(s.count), Latency: []Bucket{}}
	if s.hasCode {
		code := s.code
		o.Code = &code
	}
	for i, n := range s.latency {
		if n > 0 {
			from, to := latency.Bounds(i)
			o.Latency = append(o.Latency, Bucket{FromUS: from, ToUS: to, Count: int64(n)})
		}
	}
	if o.Kind.hasRetryAfter() {
		for _, ra := range s.ra[:s.nra] {
			v := RetryAfter{Count: int64(ra.count)}
			if ra.seconds >= 0 {
				sec := int64(ra.seconds)
				v.Seconds = &sec
			}
			o.RetryAfter = append(o.RetryAfter, v)
		}
		slices.SortFunc(o.RetryAfter, func(a, b RetryAfter) int { return compareAbsentFirst(a.Seconds, b.Seconds) })
	}
	return o
}

// source returns the document's source: "traffic.Recorder: " and the
// origin of the calls recorded.
func (r *Recorder) source() string {
	o := r.origin.Load()
	switch {
	case o == nil || *o == "-":
		return "traffic.Recorder"
	case r.mixed.Load():
		return "traffic.Recorder: " + strings.TrimSuffix(*o, "/") + " and others"
	}
	return "traffic.Recorder: " + strings.TrimSuffix(*o, "/")
}

// WriteTo writes what r recorded so far as a profile document (see the
// package doc): its source says "traffic.Recorder" and the scheme and host
// of the calls, its traffic all recorded so far. Each outcome takes
// a line.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	src := r.source()
	rec := r.snapshot()
	var b bytes.Buffer
	b.WriteString("{\n  \"source\": ")
	writeJSON(&b, src)
	b.WriteString(",\n  \"traffic\": {\n    \"attempts\": ")
	writeJSON(&b, rec.Attempts)
	b.WriteString(",\n    \"outcomes\": [")
	for i := range rec.Outcomes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n      ")
		writeJSON(&b, &rec.Outcomes[i])
	}
	b.WriteString("\n    ],\n    \"failure_runs\": ")
	writeJSON(&b, &rec.FailureRuns)
	if rec.AfterBreaks != nil {
		b.WriteString(",\n    \"after_breaks\": ")
		writeJSON(&b, rec.AfterBreaks)
	}
	b.WriteString("\n  }\n}\n")
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// writeJSON writes v's JSON, which cannot fail for the types written.
func writeJSON(b *bytes.Buffer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic("traffic: " + err.Error())
	}
	b.Write(data)
}
