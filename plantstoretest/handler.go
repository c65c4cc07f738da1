package plantstoretest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// Handler is the fake Plant Store as an http.Handler, for tests that mount
// it in a server of their own; [NewServer] serves one for you. It serves
// POST /plants only, against state of its own, and is safe for concurrent
// use. Create one with [NewHandler]; the zero Handler is not usable.
//
// Each request is checked in this order, and the first failure is the reply:
//
//   - A path other than /plants is 404 with [CodeNotFound]: /plants/ and
//     /plants/1 are too. The path is compared segment by segment, each
//     decoded once, so /pl%61nts is /plants but /plants%2F is not. Another
//     method on /plants is 405 with an "Allow: POST" header and
//     [CodeMethodNotAllowed].
//   - A missing or malformed Authorization header, or a token other than
//     the one configured, is 401 with [CodeUnauthorized] and the header
//     WWW-Authenticate: Bearer realm="plantstore", followed, as RFC 6750
//     asks, by error="invalid_request" for a malformed header and
//     error="invalid_token" for a wrong token (and by nothing when no
//     credentials were sent). The Authorization header must be "Bearer",
//     matched without regard to case, one or more spaces and the token
//     (RFC 7235); the token is compared in constant time.
//   - A Content-Type other than application/json, optionally with
//     charset=utf-8, is 400 with [CodeContentType]: not 415, as the
//     specification answers every failed create with 400.
//   - A body over 1 MiB is 400 with [CodeTooLarge], not 413. The fake reads
//     no more of it; net/http then keeps the connection if at most 256 KiB
//     is left, and otherwise closes it half a second later.
//   - The body must be exactly one JSON object, in valid UTF-8, with no
//     repeated field names (which JSON leaves undefined), and nothing but
//     whitespace after it; otherwise 400 with [CodeInvalidJSON]. Deeply
//     nested input is rejected the same way.
//   - The object must be a NewPlant; otherwise 400 with [CodeInvalidPlant].
//     "id" is required and must be an integer literal that fits in int64:
//     "1", 1.5, 1.0, 1e3 and 1e100 are all rejected, so a client that sends
//     a float is caught even where a lenient server would accept it. "name"
//     is required and must be a non-empty string. "tag" is optional, but
//     when present it must be a string, not null. Strings must not contain
//     unpaired surrogate escapes such as "\ud800", so a stored name is
//     exactly the name that was sent. Field names match case-sensitively,
//     and unknown fields are ignored.
//   - Each rule added with [WithRule] may reject the plant with 400.
//   - A plant whose id is already stored is 400 with [CodeDuplicateID],
//     unless [WithAllowDuplicateIDs] is set.
//   - A plant that would take the store past [WithMaxPlants], or its
//     [Budget] past its limit, is 400 with [CodeStoreFull].
//
// Before all of these, a request that the [Budget] of [WithBudget] has no
// room to record is 400 with [CodeStoreFull], and is not recorded; then a
// request over the rate of [WithRateLimit], if set, is answered with 429
// and [CodeRateLimited] (it is still checked, for [Request.Invalid]); then
// an injected [Fault] that matches, or else, under [WithChaos], a random
// fault, may take over the reply.
//
// A plant that passes is stored and answered with 200 and a Plant body:
// its name, and its tag when not empty, without the id.
//
// Every reply other than 200 has "Content-Type: application/json" and an
// [ErrorBody] body with both fields. An injected [Fault] replaces the reply
// described here, and [WithProfile] the 401s and the duplicate-id 400 with
// the replies the profile gives (see [Profile]).
type Handler struct {
	token       []byte
	allowDupIDs bool
	maxRequests int // -1 for no limit
	maxPlants   int
	bodyLimit   int // of the bodies in the journal
	rules       []func(plantstore.NewPlant) *ErrorBody
	routes      []route // the route table: routes, and those tests add
	logger      *slog.Logger
	tb          testing.TB       // nil for a Handler from NewHandler
	site        string           // the test's line that called NewServer; see callSite
	logToTB     bool             // WithLogging
	limiter     *rateLimiter     // nil without WithRateLimit
	chaos       *chaos           // nil without WithChaos
	now         func() time.Time // time.Now, but for tests of the rate limit
	profile     *Profile         // nil without WithProfile

	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu       sync.Mutex
	gen      int    // counts Resets, so a request held across one leaves no trace
	seq      uint64 // the Seq of the last request recorded
	plants   []plantstore.NewPlant
	ids      map[int64]struct{} // the ids in plants; nil under WithAllowDuplicateIDs
	requests []Request          // the journal: see record
	head     int                // the index of the oldest request in requests
	faults   []*scriptedFault
	faultSeq int     // numbers faults in the order they were injected
	budget   *Budget // WithBudget; nil without one, and once closed
	kept     kept    // what the state above holds of budget
}

// NewHandler returns a fake Plant Store with no plants stored (or those of
// [WithPlants]). It panics on an invalid [Option], and on [WithTLS],
// [WithInMemoryNetwork] and [WithLogging], which only a server can honour.
// Call [Handler.Close] before shutting down the server it is mounted in.
func NewHandler(opts ...Option) *Handler {
	c := newConfig(opts)
	if len(c.serverOnly) > 0 {
		panic(fmt.Sprintf("plantstoretest: NewHandler: %s is an option of NewServer only: "+
			"TLS, the network and logging through a test belong to the server a Handler is mounted in (use WithLogger to log)",
			c.serverOnly[0]))
	}
	if err := c.check(); err != nil {
		panic(err.Error())
	}
	return newHandler(c)
}

// newHandler builds the Handler c describes, which c.check accepted, and
// stores the plants of WithPlants, reporting a bad one as misuse.
func newHandler(c *config) *Handler {
	if c.tb != nil {
		c.tb.Helper()
	}
	h := &Handler{
		token:       []byte(c.token),
		allowDupIDs: c.allowDupIDs,
		maxRequests: -1,
		maxPlants:   c.maxPlants,
		bodyLimit:   c.bodyLimit,
		rules:       c.rules,
		routes:      append(routes[:len(routes):len(routes)], c.routes...),
		logger:      c.logger,
		tb:          c.tb,
		site:        c.site,
		logToTB:     c.tb != nil && c.logToTB,
		now:         time.Now,
		profile:     c.profile,
		done:        make(chan struct{}),
		budget:      c.budget,
	}
	if !c.allowDupIDs {
		h.ids = make(map[int64]struct{})
	}
	if c.maxRequests != nil {
		h.maxRequests = *c.maxRequests
	}
	if c.rateN > 0 {
		h.limiter = newRateLimiter(c.rateN, c.ratePer)
	}
	if c.chaos > 0 {
		h.chaos = &chaos{fraction: c.chaos, seed: c.chaosSeed}
	}
	if len(c.plants) > 0 {
		var seedErr *SeedError
		if err := h.Seed(c.plants); errors.As(err, &seedErr) {
			h.misuse(fmt.Sprintf("plantstoretest: WithPlants: plant %d: %s", seedErr.Index, seedErr.Body.Message))
		}
	}
	return h
}

// misuse reports that the caller used the fake wrongly, as [Option] says:
// each function on the way calls tb.Helper.
func (h *Handler) misuse(msg string) {
	if h.tb == nil {
		panic(msg)
	}
	h.tb.Helper()
	h.tb.Fatalf("%s", msg)
}

// callback calls f, which runs a callback of the test's (a [WithRule] rule
// or a [Fault.Match]), and returns what the callback panicked with, or nil.
// Under [NewServer] a panic fails the test at the test's line that gave the
// callback; without a test it goes on, with the message what returns.
func (h *Handler) callback(at string, what func() string, f func()) (panicked any) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("plantstoretest: %s: %v", what(), r)
			if h.tb == nil {
				panic(msg)
			}
			h.report(at, true, msg)
			panicked = r
		}
	}()
	f()
	return nil
}

// Plants returns the stored plants in the order they arrived. The slice is a
// copy that the caller may modify.
func (h *Handler) Plants() []plantstore.NewPlant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]plantstore.NewPlant(nil), h.plants...)
}

// Reset forgets the stored plants, the recorded requests and the injected
// faults not yet used (without reporting them), so that subtests can share a
// server. A request held by a [Fault]'s Delay across Reset is answered as it
// would have been, but stores nothing. [Request.Seq] and fault IDs go on
// counting, and the states of [WithRateLimit] and [WithChaos] go on.
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.plants = nil
	h.giveBack(&h.kept.plants)
	if h.ids != nil {
		h.ids = make(map[int64]struct{})
	}
	h.clearJournal()
	h.clearFaults()
}

// Close releases every request held by a [Fault] with Hang or Delay, by
// dropping its connection, so that http.Server.Shutdown does not wait for
// them; later, hangs and delays end at once. It gives back all the Handler
// holds of its [Budget], which no longer counts what it keeps after. Close
// does not stop a server the Handler is mounted in, and may be called more
// than once.
func (h *Handler) Close() {
	h.closeOnce.Do(func() {
		close(h.done)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.giveBack(&h.kept.plants)
		h.giveBack(&h.kept.journal)
		h.giveBack(&h.kept.faults)
		h.budget = nil
	})
}

// ServeHTTP answers r as described on [Handler].
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.now()
	body, readErr := readBody(r)
	req := Request{
		Time:       start,
		Method:     strings.Clone(r.Method), // not to keep the request line
		Path:       strings.Clone(r.URL.Path),
		Header:     redact(r.Header),
		RequestID:  r.Header.Get("X-Request-Id"),
		RetryCount: retryCount(r.Header),
	}
	if h.maxRequests != 0 {
		req.Body, req.BodyTruncated = h.journalBody(body, readErr)
	}
	var ans answer // ans.seq is 0 until arrive records the request
	status := 0    // written; 0 if none, when the connection is dropped
	var d time.Duration
	defer func() {
		if status == 0 { // dropped: no reply began, or a callback panicked (see callback)
			d = h.now().Sub(start)
			h.mu.Lock()
			if ans.seq == 0 { // a WithRule rule panicked: the request never arrived
				h.seq++
				req.Seq, ans.seq = h.seq, h.seq
				req.Invalid = &ErrorBody{Code: CodeCallbackPanic, Message: "a WithRule rule panicked"}
				if entry := h.journaled(req); h.admit(&entry) {
					h.record(entry)
				}
			}
			h.complete(ans.seq, 0, d)
			h.mu.Unlock()
		}
		h.logRequest(r, status, ans.fault, d)
	}()
	op, in, rej := h.check(r, body, readErr)
	if rej == nil {
		req.Plant = in.plant
	} else {
		req.Invalid = &rej.body
	}

	h.arrive(&ans, req, op, in, rej)
	f := ans.scripted
	if f == nil {
		status, d = h.begin(ans.seq, ans.rep.status, start)
		ans.rep.write(w, nil)
		return
	}
	if f.Hang {
		h.wait(r, nil)
	}
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		h.wait(r, t.C)
	}
	if f.Drop {
		panic(http.ErrAbortHandler)
	}
	if f.GoAway {
		w.Header().Set("Connection", "close") // on HTTP/2, net/http sends GOAWAY for it
	}
	if f.Status != 0 {
		status, d = h.begin(ans.seq, f.Status, start)
		f.write(w)
		return
	}
	rep := ans.rep
	if !ans.processed {
		h.mu.Lock()
		rep = h.process(op, in, rej, h.gen == ans.gen) // unless Reset ran during the delay
		h.mu.Unlock()
	}
	status, d = h.begin(ans.seq, rep.status, start)
	rep.write(w, f.Header)
}

// begin journals the reply to the request numbered seq, which arrived at
// start, before it is written with status (see [OutcomeSent]), and returns
// status and the request's Duration.
func (h *Handler) begin(seq uint64, status int, start time.Time) (int, time.Duration) {
	d := h.now().Sub(start)
	h.mu.Lock()
	h.complete(seq, status, d)
	h.mu.Unlock()
	return status, d
}

// journalBody is the part of body that the journal keeps, and whether it
// was cut: a copy, unless body's buffer has no more room than the byte
// readBody keeps to spare, so that the journal holds no more than it shows.
func (h *Handler) journalBody(body []byte, readErr error) ([]byte, bool) {
	truncated := errors.Is(readErr, wire.ErrBodyTooLarge)
	switch {
	case len(body) > h.bodyLimit:
		return append([]byte(nil), body[:h.bodyLimit]...), true
	case cap(body) > len(body)+1:
		return append([]byte(nil), body...), truncated
	}
	return body, truncated
}

// answer is what [Handler.arrive] decided for a request.
type answer struct {
	seq       uint64 // the request's Seq
	gen       int    // the state's generation (see [Handler.Reset])
	fault     string // what answered instead of the usual reply, as in Request.Fault
	scripted  *Fault // the fault to act out, or nil to send rep
	rep       reply  // the reply, when processed
	processed bool   // whether the operation was done (a plant stored) or its rejection worked out
}

// arrive numbers and records req, and decides in ans who answers it: the
// rate limit, the first injected fault that matches, chaos, or the fake
// itself, which then processes it, as does a fault with Store. A request
// that its [Budget] has no room to record is refused, before all of these,
// and not numbered.
func (h *Handler) arrive(ans *answer, req Request, op *operation, in input, rej *rejection) {
	h.mu.Lock()
	defer h.mu.Unlock()
	entry := h.journaled(req)
	if !h.admit(&entry) {
		ans.rep, ans.processed = h.budgetFullReply(costOfRequest(&entry)), true
		return
	}
	h.seq++
	req.Seq, entry.Seq = h.seq, h.seq
	ans.seq, ans.gen = h.seq, h.gen
	defer func() {
		entry.Fault = ans.fault
		h.record(entry)
	}()

	if h.limiter != nil {
		if wait, ok := h.limiter.take(h.now()); !ok {
			ans.fault, ans.rep, ans.processed = "rate limit", h.limiter.reply(wait), true
			return
		}
	}
	sf := h.takeFault(req)
	if sf != nil {
		ans.scripted, ans.fault = &sf.Fault, sf.describe()
	} else if h.chaos != nil {
		ans.scripted, ans.fault = h.chaos.next()
	}
	if ans.scripted == nil || ans.scripted.Store {
		ans.rep, ans.processed = h.process(op, in, rej, true), true
	}
}

// process works out the reply to a checked request: its rejection, or what
// op does with in (see [operation]). h.mu must be held.
func (h *Handler) process(op *operation, in input, rej *rejection, commit bool) reply {
	if rej != nil {
		return rej.reply()
	}
	return op.serve(h, in, commit)
}

func duplicateMessage(id int64) string {
	return fmt.Sprintf("plant %d already exists", id)
}

func (h *Handler) storeFullMessage() string {
	return fmt.Sprintf("the store is full: it holds %d plants, the most that WithMaxPlants "+
		"(plantstore-mock: -max-plants) allows", h.maxPlants)
}

// wait blocks until timer fires, or, when the client goes away or the
// Handler is closed first, ends the request by dropping the connection. A
// nil timer never fires.
func (h *Handler) wait(r *http.Request, timer <-chan time.Time) {
	select {
	case <-timer:
	case <-r.Context().Done():
		panic(http.ErrAbortHandler)
	case <-h.done:
		panic(http.ErrAbortHandler)
	}
}
