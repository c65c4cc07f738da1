package plantstoretest

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
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

// retryCount parses an X-Retry-Count header; see [Request.RetryCount].
func retryCount(header http.Header) int {
	values := header.Values("X-Retry-Count")
	if len(values) != 1 || values[0] == "" || values[0][0] < '0' || values[0][0] > '9' {
		return -1
	}
	n, err := strconv.Atoi(values[0])
	if err != nil {
		return -1
	}
	return n
}

// arrival returns the journal's entry for r as it arrives, not yet
// numbered, and r's body as [readBody] reads it.
func (h *Handler) arrival(r *http.Request) (req Request, body []byte, readErr error) {
	req = Request{
		Time:       h.now(),
		Header:     redact(r.Header),
		RequestID:  r.Header.Get("X-Request-Id"),
		RetryCount: retryCount(r.Header),
	}
	req.Method, req.Path = h.methodAndPath(r)
	req.Proto = protoOf(r)
	body, readErr = readBody(r)
	if h.maxRequests == 0 {
		return req, body, readErr
	}
	// The journal keeps a copy of the body, cut at its limit, unless body's
	// buffer has no more room than the byte readBody keeps to spare, so that
	// it holds no more than it shows.
	req.BodyTruncated = errors.Is(readErr, wire.ErrBodyTooLarge)
	switch {
	case len(body) > h.bodyLimit:
		req.Body, req.BodyTruncated = append([]byte(nil), body[:h.bodyLimit]...), true
	case cap(body) > len(body)+1:
		req.Body = append([]byte(nil), body...)
	default:
		req.Body = body
	}
	return req, body, readErr
}

// protoOf returns r's protocol as a constant, which keeps nothing of the
// request alive.
func protoOf(r *http.Request) string {
	switch {
	case r.ProtoMajor == 2:
		return "HTTP/2.0"
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "HTTP/1.1"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "HTTP/1.0"
	}
	return strings.Clone(r.Proto)
}

// methodAndPath returns r's method and URL path as the journal keeps them:
// not cut from the request line, which they would keep alive, but a
// route's own strings where those are equal (no allocation for the
// requests the fake serves), and copies otherwise.
func (h *Handler) methodAndPath(r *http.Request) (method, path string) {
	for _, rt := range h.routes {
		if rt.method == r.Method {
			method = rt.method
		}
		if rt.pattern == r.URL.Path {
			path = rt.pattern
		}
	}
	if method == "" {
		method = strings.Clone(r.Method)
	}
	if path == "" {
		path = strings.Clone(r.URL.Path)
	}
	return method, path
}

// readBody reads at most [wire.MaxBodyBytes] of r's body, and
// [wire.ErrBodyTooLarge] if there was more, with a buffer that grows with
// the bytes that arrive (see [wire.ReadBody]); a short announced length
// makes the first buffer smaller, with a byte to spare for reading the end.
// Unlike http.MaxBytesReader, it lets net/http keep the connection after a
// body a little too long.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var buf []byte
	if r.ContentLength >= 0 && r.ContentLength < wire.FirstBufferSize {
		buf = make([]byte, 0, r.ContentLength+1)
	}
	return wire.ReadBody(buf, r.Body)
}

// redact returns a copy of header in which the credentials of each
// Authorization and Proxy-Authorization value are replaced by "REDACTED",
// keeping the scheme.
func redact(header http.Header) http.Header {
	out := header.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization"} {
		values := out.Values(name)
		for i, v := range values {
			values[i] = wire.RedactCredentials(v)
		}
	}
	return out
}

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
	n := len(h.requests)
	skip := 0
	if n > 0 && seq >= h.entry(0).Seq {
		skip = int(min(seq-h.entry(0).Seq+1, uint64(n)))
	}
	out := make([]Request, n-skip)
	for i := range out {
		r := *h.entry(skip + i)
		r.Header = r.Header.Clone()
		r.Body = append([]byte(nil), r.Body...)
		if r.Invalid != nil {
			e := *r.Invalid
			r.Invalid = &e
		}
		out[i] = r
	}
	return out
}

// ClearRequests empties the journal, leaving the plants and the faults as
// they are. Seq goes on counting. A request held when ClearRequests runs is
// not recorded again when it ends.
func (h *Handler) ClearRequests() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clearJournal()
}

// clearJournal empties the journal. h.mu must be held.
func (h *Handler) clearJournal() {
	h.requests, h.head = nil, 0
	h.giveBack(&h.kept.journal)
}

// entry returns the i-th oldest request in the journal, which holds more
// than i. The journal's entries have consecutive Seqs. h.mu must be held.
func (h *Handler) entry(i int) *Request {
	return &h.requests[(h.head+i)%len(h.requests)]
}

// answer is what [Handler.arrive] decided for a request.
type answer struct {
	seq      uint64 // the request's Seq
	gen      int    // the state's generation (see [Handler.Reset])
	fault    string // what answered instead of the usual reply, as in Request.Fault
	scripted *Fault // the fault to act out, or nil to send rep
	rep      reply  // the reply, once worked out (status 0 until then): the operation done, or its refusal
}

// arrive numbers and records req, with the plant in or the refusal rej,
// and decides in ans who answers it: the journal's [Budget] (see
// [Handler.enter]), the rate limit, the first injected fault that matches,
// chaos, the replay of a profile's traffic, or the fake itself, which then
// processes it, as does a fault with Store.
func (h *Handler) arrive(ans *answer, req Request, op *operation, in input, rej *reply) {
	if rej == nil {
		req.Plant = in.plant
	} else {
		req.Invalid = rej.body
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	entry, full := h.enter(req)
	if full != nil {
		ans.rep = *full
		return
	}
	req.Seq = entry.Seq
	ans.seq, ans.gen = entry.Seq, h.gen
	defer func() {
		entry.Fault = ans.fault
		h.record(entry)
	}()

	if h.limiter != nil {
		if wait, ok := h.limiter.take(h.now()); !ok {
			ans.fault, ans.rep = "rate limit", h.limiter.reply(wait)
			return
		}
	}
	sf := h.takeFault(req)
	if sf != nil {
		ans.scripted, ans.fault = &sf.Fault, sf.describe()
	} else if h.chaos != nil {
		ans.scripted, ans.fault = h.chaos.next()
	}
	if ans.scripted == nil && h.replay != nil {
		ans.scripted, ans.fault = h.replay.next()
	}
	if ans.scripted == nil || ans.scripted.Store {
		ans.rep = h.process(op, in, rej, true)
	}
}

// enter numbers req and returns it as the journal keeps it: a copy, for
// Fault.Match sees the plant whole, with the plant's name and tag cut like
// the body. It takes the room the entry needs in h's [Budget], less that of
// the entry it pushes out of a full journal; if there is none, enter
// returns the store-full refusal instead, and req is not numbered. h.mu
// must be held.
func (h *Handler) enter(req Request) (Request, *reply) {
	req.Plant.Name = cutText(req.Plant.Name, h.bodyLimit)
	req.Plant.Tag = cutText(req.Plant.Tag, h.bodyLimit)
	if h.budget != nil && h.maxRequests != 0 {
		cost := costOfRequest(&req)
		need := cost
		if h.maxRequests > 0 && len(h.requests) == h.maxRequests {
			need -= costOfRequest(h.entry(0))
		}
		if !h.charge(&h.kept.journal, need) {
			return req, h.budgetFullReply(cost)
		}
	}
	h.seq++
	req.Seq = h.seq
	return req, nil
}

// record keeps req, which [Handler.enter] numbered, for
// [Handler.Requests]. Under [WithJournalLimit] n, h.requests is a ring
// of at most n requests whose oldest is at h.head. h.mu must be held.
func (h *Handler) record(req Request) {
	req.Outcome = OutcomeHeld
	switch {
	case h.maxRequests == 0:
		return
	case h.maxRequests > 0 && len(h.requests) == h.maxRequests:
		h.requests[h.head] = req
		h.head = (h.head + 1) % len(h.requests)
		return
	}
	h.requests = append(h.requests, req)
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
		if entry, full := h.enter(req); full == nil {
			seq = entry.Seq
			h.record(entry)
		}
	}
	h.complete(seq, 0, d)
	return d
}

// complete records the outcome of the request numbered seq, if the journal
// still holds it: status 0 means the connection was dropped. h.mu must be
// held.
func (h *Handler) complete(seq uint64, status int, d time.Duration) {
	if len(h.requests) == 0 {
		return
	}
	first := h.entry(0).Seq
	if seq < first || seq-first >= uint64(len(h.requests)) {
		return // cleared, reset or pushed out by the limit
	}
	r := h.entry(int(seq - first))
	r.Outcome = OutcomeDropped
	if status != 0 {
		r.Outcome = OutcomeSent
	}
	r.Status = status
	r.Duration = d
}
