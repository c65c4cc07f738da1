package plantstoretest

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// Request is a request as it reached the fake, and what became of it: an
// entry of the journal that [Handler.Requests] returns.
type Request struct {
	// Seq numbers a Handler's requests from 1 in the order recorded, for
	// [Handler.RequestsSince]; Reset and ClearRequests do not restart it.
	Seq uint64
	// Time is when the fake began to serve the request, before the body.
	Time time.Time
	// Method and Path are the request's method and URL path.
	Method string
	Path   string
	// Proto is "HTTP/1.1" (or "HTTP/1.0"), or "HTTP/2.0" over h2 and h2c.
	Proto string
	// Header is a copy of the request headers, credentials (Authorization,
	// Proxy-Authorization) replaced: "Bearer REDACTED".
	Header http.Header
	// Body is a copy of the request body, cut at [WithJournalBodyLimit].
	Body []byte
	// BodyTruncated reports that Body was cut at the journal's limit, or that
	// the body was over the 1 MiB the fake accepts.
	BodyTruncated bool
	// Plant is the decoded body if Invalid is nil, and otherwise zero. Its
	// Name and Tag are cut like Body, on a character boundary.
	Plant plantstore.NewPlant
	// Invalid is the error the fake's checks found (path, method, token,
	// content type, body, [WithRule]), or nil; they run even on a request a
	// [Fault] answers. A duplicate id or a full store is no check failure.
	Invalid *ErrorBody
	// Duplicate, for a create refused because its id was stored, says which
	// request stored it and whether with the same plant; nil otherwise.
	Duplicate *Duplicate
	// Outcome is what became of the request so far.
	Outcome Outcome
	// Status is the status sent, or 0 when none was.
	Status int
	// Fault names the [Fault] that answered the request instead of the
	// usual reply, or "": its source ("rate-limit", "inject#3" for the
	// injected Fault of ID 3, "schedule", "chaos" or "traffic"), then the
	// request's Seq and the Fault as [ParseFault] reads it, such as "chaos
	// 7:store-drop", an item of [WithSchedule].
	Fault string
	// Duration is the time from Time until the reply's status line was
	// written or the connection dropped; 0 while held.
	Duration time.Duration
	// RequestID is the X-Request-Id header, or "".
	RequestID string
	// RetryCount is the X-Retry-Count header, the client's count of retries
	// of the call, or -1 when it is missing or not a non-negative integer.
	// With RequestID it groups a call's attempts.
	RetryCount int
}

// Duplicate is what a create refused for its id found stored, so that a
// test can tell a retry of its own create from another writer's plant.
type Duplicate struct {
	// StoredBy is the [Request.Seq] of the create that stored the id, or 0 for
	// a seed ([WithPlants], [Handler.Seed]).
	StoredBy uint64
	// Same reports whether the plant sent equals the one stored.
	Same bool
}

// Outcome is what became of a recorded [Request].
type Outcome string

// The outcomes of a [Request].
const (
	// OutcomeHeld: no reply yet; the request is being served, or a [Fault]
	// holds it.
	OutcomeHeld Outcome = "held"
	// OutcomeSent: a reply with [Request.Status] is written, or being written
	// (the entry says so first, so a client that has the response finds it);
	// if the write then fails, the entry turns to OutcomeDropped.
	OutcomeSent Outcome = "sent"
	// OutcomeDropped: the connection was closed without a reply, by a [Fault]
	// with Drop, by [Handler.Close] or a client that gave up while it was
	// held, or by a panic in a [WithRule] rule or a Match under [NewHandler];
	// or the reply's write failed, as it does once a Delay has outlasted the
	// server's write timeout.
	OutcomeDropped Outcome = "dropped"
)

// Requests returns the journal: each request that reached the fake, oldest
// first, with what became of it so far, within [WithJournalLimit]. The
// slice, headers and bodies are the caller's.
func (h *Handler) Requests() []Request {
	return h.RequestsSince(0)
}

// RequestsSince returns the recorded requests whose Seq is greater than
// seq, as [Handler.Requests] does, so a poller reads only what is new.
func (h *Handler) RequestsSince(seq uint64) []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.journal.since(seq)
}

// ClearRequests empties the journal; the plants and faults stay, Seq goes
// on. A request held meanwhile is not recorded again when it ends.
func (h *Handler) ClearRequests() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.journal.clear()
}

// journal is the Handler's record of the requests, and its share of the
// Budget. The Handler's mu guards it.
type journal struct {
	seq       uint64    // the Seq of the last request recorded
	requests  []Request // see record
	head      int       // the index of the oldest request in requests
	max       int       // WithJournalLimit; -1 for no limit
	bodyLimit int       // WithJournalBodyLimit
	account
}

// since returns copies of the requests whose Seq is greater than seq.
func (j *journal) since(seq uint64) []Request {
	n := len(j.requests)
	skip := 0
	if n > 0 && seq >= j.entry(0).Seq {
		skip = int(min(seq-j.entry(0).Seq+1, uint64(n)))
	}
	out := make([]Request, n-skip)
	for i := range out {
		r := *j.entry(skip + i)
		r.Header = r.Header.Clone()
		r.Body = append([]byte(nil), r.Body...)
		r.Invalid, r.Duplicate = copyOf(r.Invalid), copyOf(r.Duplicate)
		out[i] = r
	}
	return out
}

// clear empties the journal and gives back what it held.
func (j *journal) clear() {
	j.requests, j.head = nil, 0
	j.release()
}

// entry returns the i-th oldest request; their Seqs are consecutive.
func (j *journal) entry(i int) *Request {
	return &j.requests[(j.head+i)%len(j.requests)]
}

// enter numbers a copy of req (Match saw the plant whole) with the plant's
// name and tag cut like the body, and takes its room in the Budget, less
// that of the entry it pushes out; with no room it returns the error
// ([ErrStoreFull]) and numbers nothing.
func (j *journal) enter(req Request) (Request, error) {
	req.Plant.Name = cutText(req.Plant.Name, j.bodyLimit)
	req.Plant.Tag = cutText(req.Plant.Tag, j.bodyLimit)
	if j.max != 0 {
		need := costOfRequest(&req)
		if j.max > 0 && len(j.requests) == j.max {
			need -= costOfRequest(j.entry(0))
		}
		if err := j.take(need); err != nil {
			return req, err
		}
	}
	j.seq++
	req.Seq = j.seq
	return req, nil
}

// record keeps req, which enter numbered. Under [WithJournalLimit] n,
// requests is a ring of at most n whose oldest is at head.
func (j *journal) record(req Request) {
	req.Outcome = OutcomeHeld
	switch {
	case j.max == 0:
	case j.max > 0 && len(j.requests) == j.max:
		j.requests[j.head] = req
		j.head = (j.head + 1) % len(j.requests)
	default:
		j.requests = append(j.requests, req)
	}
}

// keep returns what the journal keeps of a body readBody read, and whether
// it was cut, there or by readBody: the buffer itself when it has no more
// room than readBody's spare byte (an allocation fewer a create,
// BenchmarkHandler), else a copy cut at the limit. It reads only the
// limits, which never change: no lock needed.
func (j *journal) keep(body []byte, readErr error) (kept []byte, cut bool) {
	switch {
	case j.max == 0:
		return nil, false
	case len(body) > j.bodyLimit:
		return append([]byte(nil), body[:j.bodyLimit]...), true
	case cap(body) > len(body)+1:
		kept = append([]byte(nil), body...)
	default:
		kept = body
	}
	return kept, errors.Is(readErr, wire.ErrBodyTooLarge)
}

// cutText returns s, or a copy (not to keep s alive) of its longest prefix
// of at most n bytes that ends on a character boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// dropped records that request seq was dropped, and returns its Duration.
// A seq of 0 is a request a [WithRule] rule's panic kept from arriving:
// dropped records it first, if the [Budget] has room.
func (h *Handler) dropped(req Request, seq uint64) time.Duration {
	d := h.now().Sub(req.Time)
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq == 0 {
		req.Invalid = &ErrorBody{Code: CodeCallbackPanic, Message: "a WithRule rule panicked"}
		if entry, err := h.journal.enter(req); err == nil {
			seq = entry.Seq
			h.journal.record(entry)
		}
	}
	h.journal.complete(seq, 0, d, nil)
	return d
}

// complete records the outcome of request seq, still held or sent: status
// 0 is a dropped connection, and dup what a refused repeat found stored.
func (j *journal) complete(seq uint64, status int, d time.Duration, dup *Duplicate) {
	if len(j.requests) == 0 {
		return
	}
	first := j.entry(0).Seq
	if seq < first || seq-first >= uint64(len(j.requests)) {
		return // cleared, reset or pushed out by the limit
	}
	r := j.entry(int(seq - first))
	r.Outcome = OutcomeDropped
	if status != 0 {
		r.Outcome = OutcomeSent
	}
	r.Status = status
	r.Duration = d
	if dup != nil {
		r.Duplicate = dup
	}
}
