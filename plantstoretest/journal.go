package plantstoretest

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
)

// Request is a request as it reached the fake, and what became of it: an
// entry of the journal that [Handler.Requests] returns.
type Request struct {
	// Seq numbers the requests of a Handler in the order they were
	// recorded: 1, 2, 3… It is never reused: [Handler.Reset] and
	// [Handler.ClearRequests] do not restart it. Pass the last Seq seen to
	// [Handler.RequestsSince] to read only what came after.
	Seq uint64
	// Time is when the request arrived: when the fake began to serve it,
	// before it read the body.
	Time time.Time
	// Method and Path are the request's method and URL path.
	Method string
	Path   string
	// Proto is the protocol the request came on: "HTTP/1.1" (or
	// "HTTP/1.0"), or "HTTP/2.0" over h2 and h2c ([WithHTTP2]).
	Proto string
	// Header is a copy of the request headers with the credentials in
	// Authorization and Proxy-Authorization replaced by "REDACTED", so
	// "Bearer REDACTED".
	Header http.Header
	// Body is a copy of the request body, cut at [WithJournalBodyLimit].
	Body []byte
	// BodyTruncated reports that Body is shorter than the body that was
	// sent: it was cut at the journal's body limit, or the body was over
	// the 1 MiB the fake accepts.
	BodyTruncated bool
	// Plant is the decoded body when the request passed every check
	// (Invalid is nil), and the zero NewPlant otherwise. Its Name and Tag
	// are cut like Body, on a character boundary.
	Plant plantstore.NewPlant
	// Invalid is the error the fake's checks found, or nil if the request
	// passed them all: path, method, token, content type, body and the
	// rules added with [WithRule]. The checks run for every request, those a
	// [Fault] answers included, so a test can confirm its client sent valid
	// requests even when the reply was scripted. A duplicate id or a full
	// store is not a check failure: it depends on what was stored before.
	Invalid *ErrorBody
	// Duplicate, for a create refused because its id was stored, says
	// which request stored it and whether it stored the same plant; nil
	// for every other request.
	Duplicate *Duplicate

	// Outcome is what became of the request so far: [OutcomeHeld] until a
	// reply is written or the connection dropped.
	Outcome Outcome
	// Status is the status sent, or 0 when none was (Outcome is not
	// [OutcomeSent]).
	Status int
	// Fault says what answered the request instead of the usual reply, or
	// is "" when nothing did: an injected [Fault] as "#" followed by its
	// [InjectedFault.ID] and what it does ("#3 Status 503, Header"); the rate
	// limit of [WithRateLimit] as "rate limit"; a fault chosen by
	// [WithChaos] as "chaos: " followed by what it does ("chaos: 502"); and
	// a failure replayed from a [Profile]'s Traffic as "traffic: " followed
	// by its outcome ("traffic: 503 Retry-After 2").
	Fault string
	// Duration is how long the request took from Time until its reply
	// began to be written (its status line; the body follows) or its
	// connection dropped; 0 while Outcome is [OutcomeHeld].
	Duration time.Duration
	// RequestID is the X-Request-Id header, which clients send to tell
	// their calls apart, or "" when there is none.
	RequestID string
	// RetryCount is the X-Retry-Count header, which says how many times a
	// client has retried the call, or -1 when the header is missing or is
	// not one non-negative decimal integer. Together with RequestID it
	// groups a call's attempts.
	RetryCount int
}

// Duplicate is what a create refused for its id found stored: so that a
// test can tell a retry of its own create (the same plant) from another
// writer's plant under the same id.
type Duplicate struct {
	// StoredBy is the [Request.Seq] of the create that stored the id, or 0
	// when a seed stored it ([WithPlants], [Handler.Seed]).
	StoredBy uint64
	// Same reports whether the plant sent equals the one stored: the same
	// id, name and tag.
	Same bool
}

// Outcome is what became of a recorded [Request].
type Outcome string

// The outcomes of a [Request].
const (
	// OutcomeHeld means no reply has been sent yet: the request is still
	// being served, or is held by a [Fault] with Hang or Delay.
	OutcomeHeld Outcome = "held"
	// OutcomeSent means a reply with [Request.Status] was written, or is
	// being written: the entry says so before the reply goes out, so a
	// client that has the response finds it here.
	OutcomeSent Outcome = "sent"
	// OutcomeDropped means the connection was closed without a reply: by a
	// [Fault] with Drop, by [Handler.Close] or a client that gave up while
	// the request was held, or by a panic in a [WithRule] rule or a
	// [Fault]'s Match in a Handler from [NewHandler].
	OutcomeDropped Outcome = "dropped"
)

// Requests returns the journal: every request that reached the fake, in
// the order they arrived, whatever the reply, with what became of each so
// far, within [WithJournalLimit]. The slice and the requests' headers and
// bodies are copies that the caller may modify.
func (h *Handler) Requests() []Request {
	return h.RequestsSince(0)
}

// RequestsSince returns the recorded requests whose Seq is greater than
// seq, oldest first, as [Handler.Requests] does: a test or a poller that
// remembers the last Seq it saw reads only what is new. Requests that the
// journal's limit ([WithJournalLimit]), [Handler.ClearRequests] or
// [Handler.Reset] removed are not returned.
func (h *Handler) RequestsSince(seq uint64) []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.journal.since(seq)
}

// ClearRequests empties the journal, leaving the plants and the faults as
// they are. Seq goes on counting. A request held when ClearRequests runs is
// not recorded again when it ends.
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
		if r.Invalid != nil {
			e := *r.Invalid
			r.Invalid = &e
		}
		if r.Duplicate != nil {
			d := *r.Duplicate
			r.Duplicate = &d
		}
		out[i] = r
	}
	return out
}

// clear empties the journal and gives back what it held.
func (j *journal) clear() {
	j.requests, j.head = nil, 0
	j.release()
}

// entry returns the i-th oldest request in the journal, which holds more
// than i. The journal's entries have consecutive Seqs.
func (j *journal) entry(i int) *Request {
	return &j.requests[(j.head+i)%len(j.requests)]
}

// enter numbers req and returns it as the journal keeps it: a copy, for
// Fault.Match sees the plant whole, with the plant's name and tag cut like
// the body. It takes the room the entry needs in the Budget, less that of
// the entry it pushes out of a full journal; if there is none, enter
// returns the error, under errors.Is [ErrStoreFull], and req is not
// numbered.
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

// record keeps req, which enter numbered, for [Handler.Requests]. Under
// [WithJournalLimit] n, j.requests is a ring of at most n requests whose
// oldest is at j.head.
func (j *journal) record(req Request) {
	req.Outcome = OutcomeHeld
	switch {
	case j.max == 0:
		return
	case j.max > 0 && len(j.requests) == j.max:
		j.requests[j.head] = req
		j.head = (j.head + 1) % len(j.requests)
		return
	}
	j.requests = append(j.requests, req)
}

// cutText returns s if it has at most n bytes, and otherwise a copy (not to
// keep s alive) of its longest prefix of at most n bytes that ends on a
// character boundary.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// dropped records that the request numbered seq was dropped, and returns
// its Duration. A seq of 0 is a request that a [WithRule] rule's panic
// kept from arriving: dropped records it first, if the [Budget] has room.
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

// complete records the outcome of the request numbered seq, if the journal
// still holds it: status 0 means the connection was dropped, and dup, if
// not nil, what a refused repeat found stored.
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
