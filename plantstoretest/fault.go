package plantstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore-go/internal/bubble"
)

// Fault scripts the fake's reply to a request, to provoke the failures a
// real deployment produces. Five sources place Faults, asked in this order
// for each request, the first to place one answering it: [WithRateLimit]
// (its 429), [Handler.Inject], [WithSchedule], [WithChaos] and a
// [Profile]'s Traffic. [Request.Fault] names the source and the Fault.
//
// A request a Fault answers is still checked and recorded
// ([Request.Invalid]); then the Fault acts, in this order: Store, Hang,
// Delay, Drop, Status, GoAway. Without Status the request gets its usual
// reply, with Header added, worked out after the delay unless Store worked
// it out first. A request held by Hang or Delay whose body was over 1 MiB
// waits until the Handler is closed or the delay ends: the fake sees a
// client give up only once it has read the whole body.
type Fault struct {
	// Match selects the requests the Fault answers; nil matches every
	// request. It sees the whole [Request], its Plant not cut: Method and
	// Path select an operation, Plant a create, RetryCount an attempt. It
	// runs under the Handler's lock: it must be quick and must not call the
	// Handler. A panic in it fails the test and counts as no match; in a
	// Handler from [NewHandler] it goes on out of ServeHTTP.
	Match func(Request) bool
	// Times is how many matching requests the Fault answers; 0 means one,
	// and less is an error.
	Times int
	// Delay is how long to wait before replying (negative is an error). If
	// the client gives up or the Handler is closed first, the connection is
	// dropped. In real time its last 1.5 ms spin on the clock (at most half
	// the process's Ps spin at once), so that a short wait is exact.
	Delay time.Duration
	// Status, if not zero, is the status of the scripted reply, 200 to 599.
	// Header is added to the reply, such as {"Retry-After": {"1"}}. Body is
	// sent as it is (an empty non-nil slice sends none); a nil Body sends an
	// [ErrorBody] with [CodeFault]. A 204 or 304 has no body. The
	// Content-Type is application/json unless Header sets another.
	Status int
	Header http.Header
	Body   []byte
	// Hang never replies: the request waits until the client gives up or the
	// Handler is closed, and then the connection is dropped.
	Hang bool
	// Drop ends the request without a response: on HTTP/1.1 by closing the
	// connection; on HTTP/2 by resetting its stream (RST_STREAM
	// INTERNAL_ERROR), as net/http does for a handler that aborts, and the
	// connection serves on. With Store, a create is stored and then dropped.
	Drop bool
	// GoAway makes the connection take no more requests once this one is
	// answered, as a deployment that drains does: GOAWAY(NO_ERROR) with the
	// reply on HTTP/2, "Connection: close" on HTTP/1.1. It needs a reply, so
	// it is an error with Hang or Drop.
	GoAway bool
	// Store processes the request as usual, storing a valid plant, before
	// the scripted outcome, which it needs: alone it is an error.
	Store bool
	// Crash, with Drop, is the code under test's process dying at this
	// request, as [Disk] says: with Store, after a valid plant is stored
	// and before the answer; without, as it sends, nothing stored. A
	// Server made without [WithSchedule], whose clients it could not stop,
	// refuses it.
	Crash bool
	// Note is the caller's own, given back by [Handler.Faults].
	Note string
}

// check says what keeps f from doing what it says, or "".
func (f *Fault) check() string {
	switch {
	case f.Times < 0:
		return fmt.Sprintf("Times is %d, want 0 or more", f.Times)
	case f.Delay < 0:
		return fmt.Sprintf("Delay is %v, want 0 or more", f.Delay)
	case f.Status != 0 && (f.Status < 200 || f.Status > 599):
		return fmt.Sprintf("Status is %d, want 0 or 200 to 599", f.Status)
	case f.Hang && f.Drop:
		return "Hang and Drop are alternatives; set one"
	case (f.Hang || f.Drop) && f.Status != 0:
		return "a Fault with Hang or Drop sends no reply, so Status must be 0"
	case (f.Hang || f.Drop) && (f.Header != nil || f.Body != nil):
		return "a Fault with Hang or Drop sends no reply, so Header and Body must be nil"
	case f.GoAway && (f.Hang || f.Drop):
		return "GoAway goes with a reply, and Hang and Drop send none; set one"
	case f.Hang && f.Delay != 0:
		return "a Fault with Hang never replies, so Delay must be 0"
	case f.Crash && !f.Drop:
		return "Crash needs Drop: a dead process hears no answer"
	case f.Status == 0 && f.Body != nil:
		return "Body needs a Status"
	case f.Store && f.Status == 0 && !f.Hang && !f.Drop && !f.GoAway && f.Delay == 0 && !addsHeaders(f.Header):
		return "Store alone changes nothing; add Status, Header, Delay, Hang, Drop or GoAway"
	}
	return ""
}

// addsHeaders reports whether header has a value: a name with no values
// adds nothing.
func addsHeaders(header http.Header) bool {
	for _, vs := range header {
		if len(vs) > 0 {
			return true
		}
	}
	return false
}

// act plays f, which source by placed, as [Fault] says, and returns f's
// reply if it has a Status, else rep (status 0 if not yet worked out).
func (h *Handler) act(w http.ResponseWriter, r *http.Request, f *Fault, by string, rep reply) reply {
	if f.Hang {
		h.wait(r, nil)
	}
	if f.Delay > 0 {
		h.delay(r, f.Delay)
	}
	if f.Drop {
		panic(http.ErrAbortHandler)
	}
	if f.GoAway {
		w.Header().Set("Connection", "close") // on HTTP/2, net/http sends GOAWAY for it
	}
	if f.Status != 0 {
		return f.reply(by)
	}
	return rep
}

// wait blocks until timer fires (a nil one never does), or drops the
// connection when the client goes away or the Handler is closed first.
func (h *Handler) wait(r *http.Request, timer <-chan time.Time) {
	select {
	case <-timer:
	case <-r.Context().Done():
		panic(http.ErrAbortHandler)
	case <-h.done:
		panic(http.ErrAbortHandler)
	}
}

// reply is f's scripted reply, sent with its Header; a nil Body is an
// [ErrorBody] with [CodeFault] that names the source, by: "chaos: 502 Bad
// Gateway".
func (f *Fault) reply(by string) reply {
	body := f.Body
	switch {
	case f.Status == http.StatusNoContent || f.Status == http.StatusNotModified:
		body = nil // HTTP allows no body with these
	case body == nil:
		msg := fmt.Sprintf("%s: %d %s", by, f.Status, http.StatusText(f.Status))
		body, _ = json.Marshal(ErrorBody{Code: CodeFault, Message: strings.TrimSpace(msg)}) // cannot fail
	}
	return reply{kind: scripted, status: f.Status, raw: body}
}

// InjectedFault is a [Fault] with replies left, as [Handler.Faults]
// reports it.
type InjectedFault struct {
	// ID numbers a Handler's Faults from 1 in the order injected;
	// [Request.Fault] ("inject#3 …") and the reports of unused faults name it.
	ID int
	// Fault is a copy of the Fault as injected, Times 0 made 1.
	Fault Fault
	// Times is how many replies it was injected for, Left how many are unused.
	Times int
	Left  int
}

// scriptedFault is an injected Fault as the queue keeps it.
type scriptedFault struct {
	InjectedFault
	at string // the test's line that injected it (see callSite), under NewServer
}

// Inject adds f to the faults waiting for requests. A request is answered
// by the first fault, in the order injected, whose Match accepts it; that
// fault then has one reply fewer, and goes when it has none. A fault that
// can never act as written, or that the [Budget] has no room for, is
// misuse, as an invalid [Option] is. A [Server] fails the test for each
// fault with replies left when it ends. Inject copies f's Header and Body.
func (h *Handler) Inject(f Fault) {
	if h.cfg.tb != nil {
		h.cfg.tb.Helper()
	}
	if _, err := h.AddFault(f); err != nil {
		h.cfg.misuse(err.Error())
	}
}

// AddFault is [Handler.Inject] for callers without a test to fail: it
// returns the fault's ID, or the error Inject reports ([ErrStoreFull] for
// the Budget) and adds nothing.
func (h *Handler) AddFault(f Fault) (id int, err error) {
	if why := f.check(); why != "" {
		return 0, errors.New("plantstoretest: invalid Fault: " + why)
	}
	if f.Crash && h.crashless() {
		return 0, errCrashless
	}
	f = f.copied()
	f.Times = max(f.Times, 1)
	at := ""
	if h.cfg.tb != nil {
		at = callSite()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.faults.add(f, at)
}

// faultQueue is the injected faults with replies left, in order, and their
// share of the Budget. The Handler's mu guards it.
type faultQueue struct {
	list []*scriptedFault
	seq  int // numbers faults in the order they were injected
	account
}

// add adds f, injected at the test's line at, and returns its ID.
func (q *faultQueue) add(f Fault, at string) (int, error) {
	if err := q.take(costOfFault(&f)); err != nil {
		return 0, err
	}
	q.seq++
	q.list = append(q.list, &scriptedFault{InjectedFault{ID: q.seq, Fault: f, Times: f.Times, Left: f.Times}, at})
	return q.seq, nil
}

// place is the queue as a fault source (see [Handler.decide]): it uses up
// a reply of the first fault that matches req, and names it "inject#3" by
// its ID. A fault used up goes, and gives back what it held.
func (q *faultQueue) place(h *Handler, req Request) (*Fault, string) {
	for i, f := range q.list {
		if f.Fault.Match != nil && !h.matches(f, req) {
			continue
		}
		f.Left--
		if f.Left == 0 {
			q.list = append(q.list[:i:i], q.list[i+1:]...)
			_ = q.take(-costOfFault(&f.Fault))
		}
		return &f.Fault, "inject#" + strconv.Itoa(f.ID)
	}
	return nil, ""
}

// clear forgets the faults and gives back what they held.
func (q *faultQueue) clear() {
	q.list = nil
	q.release()
}

// Faults returns the injected faults with replies left, in the order they
// were injected. The slice and the faults' Header and Body are copies.
func (h *Handler) Faults() []InjectedFault {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]InjectedFault, len(h.faults.list))
	for i, f := range h.faults.list {
		out[i] = f.InjectedFault
		out[i].Fault = f.Fault.copied()
	}
	return out
}

// copied returns f with its own Header and Body; an empty Body stays
// non-nil, for it sends no body where nil sends one.
func (f Fault) copied() Fault {
	f.Header = f.Header.Clone()
	f.Body = bytes.Clone(f.Body)
	return f
}

// ClearFaults forgets the injected faults, without reporting them as
// unused. A request a fault holds (Hang, Delay) is not released;
// [Handler.Close] does that. IDs go on counting.
func (h *Handler) ClearFaults() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults.clear()
}

// reportUnused fails the test for each fault with replies left, at the
// line that injected it.
func (h *Handler) reportUnused() {
	h.cfg.tb.Helper()
	var unused []scriptedFault
	h.mu.Lock()
	for _, f := range h.faults.list {
		unused = append(unused, *f)
	}
	h.mu.Unlock()
	for _, f := range unused {
		at := ""
		if f.at != "" {
			at = " at " + f.at
		}
		what := f.Fault.String()
		if f.Fault.Match != nil {
			what += ", Match"
		}
		h.report(f.at, true, fmt.Sprintf("plantstoretest: injected Fault #%d (%s)%s was used %d of %d times",
			f.ID, what, at, f.Times-f.Left, f.Times))
	}
}

// matches calls f.Match; a panic in it is no match (see [Handler.callback]).
func (h *Handler) matches(f *scriptedFault, req Request) (ok bool) {
	what := func() string { return fmt.Sprintf("the Match of injected Fault #%d panicked", f.ID) }
	h.callback(f.at, what, func() { ok = f.Fault.Match(req) })
	return ok
}

// timerSlack is how late a timer may fire in real time when the process is
// idle, the runtime then sleeping in whole milliseconds: a 250 µs timer
// fires after about 1.05 ms (measured on two shared cores).
const timerSlack = 1500 * time.Microsecond

// spinning counts the requests that spin out the end of a [Fault]'s Delay,
// in every Handler of the process: at most half the Ps, and one.
var spinning atomic.Int32

// delay waits d as wait does. A recorded latency may be shorter than a
// timer's slack, so a timer waits all but the last timerSlack and the
// request spins out the rest on the clock, yielding; unless as many
// requests spin already, or in a testing/synctest bubble, whose fake time
// is exact and would not move under a spin: then a timer waits the rest.
func (h *Handler) delay(r *http.Request, d time.Duration) {
	end := time.Now().Add(d)
	h.sleep(r, d-timerSlack)
	rest := time.Until(end)
	if rest <= 0 {
		return
	}
	// Asked only now: bubble.Inside costs microseconds, within the wait.
	if n := spinning.Add(1); int(n) > max(1, runtime.GOMAXPROCS(0)/2) || bubble.Inside() {
		spinning.Add(-1)
		h.sleep(r, rest)
		return
	}
	defer spinning.Add(-1)
	for time.Now().Before(end) {
		select {
		case <-r.Context().Done():
			panic(http.ErrAbortHandler)
		case <-h.done:
			panic(http.ErrAbortHandler)
		default:
			runtime.Gosched()
		}
	}
}

// sleep waits d on a timer, if d is above 0, as wait does.
func (h *Handler) sleep(r *http.Request, d time.Duration) {
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		h.wait(r, t.C)
	}
}
