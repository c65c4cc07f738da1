package plantstoretest

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// The codes the fake puts in the "error" field of its [ErrorBody] bodies. They are
// the fake's own: the specification does not say which values the real
// service uses, so code under test must not hard-code them. It should branch
// on the HTTP status, or take a code its deployment documents as
// configuration (as examples/inventory does); tests compare these codes to
// check which rule the fake applied.
const (
	// CodeInvalidJSON means the body is empty, not valid UTF-8, not valid JSON,
	// not a JSON object, has a repeated field name, or has data after the
	// object.
	CodeInvalidJSON int32 = 1
	// CodeInvalidPlant means the object is not a valid NewPlant: id or name is
	// missing, null or of the wrong type, name is empty, or tag is not a
	// string.
	CodeInvalidPlant int32 = 2
	// CodeContentType means the Content-Type header is missing or is not
	// application/json (with an optional charset=utf-8).
	CodeContentType int32 = 3
	// CodeTooLarge means the body is larger than 1 MiB.
	CodeTooLarge int32 = 4
	// CodeDuplicateID means a plant with the same id is already stored (see
	// [WithAllowDuplicateIDs]).
	CodeDuplicateID int32 = 5
	// CodeUnauthorized means the Authorization header is missing, is not
	// "Bearer <token>", or carries the wrong token. The status is 401.
	CodeUnauthorized int32 = 6
	// CodeNotFound means the path is not /plants. The status is 404.
	CodeNotFound int32 = 7
	// CodeMethodNotAllowed means the path is /plants but the method is not POST.
	// The status is 405.
	CodeMethodNotAllowed int32 = 8
	// CodeFault is in the default body of a reply scripted with [Fault].
	CodeFault int32 = 9
	// CodeCallbackPanic means a [WithRule] rule panicked. The status is 500, and
	// the test that owns the [Server] fails with the panic's value. (A
	// Handler from [NewHandler] lets the panic go on instead.)
	CodeCallbackPanic int32 = 10
	// CodeStoreFull means the store already holds as many plants as
	// [WithMaxPlants] allows (cmd/plantstore-mock: -max-plants); nothing is
	// stored. The status is 400.
	CodeStoreFull int32 = 11
	// CodeRateLimited means the request came over the rate [WithRateLimit]
	// allows (cmd/plantstore-mock: -rate-limit); nothing is stored. The
	// status is 429, with a Retry-After header that says in how many whole
	// seconds the next request will be let through.
	CodeRateLimited int32 = 12
)

// maxBodyBytes is the largest request body the fake accepts, the same cap
// the client reads a response with.
const maxBodyBytes = wire.MaxBodyBytes

// ErrorBody is the body of every response from the fake other than 200, in
// the wire shape the specification gives: {"error": code, "message": text}.
// Rules added with [WithRule] return one to reject a plant. It is a body
// shape, not a Go error: a method that fails returns an error, such as a
// [*SeedError], which may carry an ErrorBody.
type ErrorBody struct {
	// Code is a machine-readable code: one of the Code constants, or the
	// value a rule chose.
	Code int32 `json:"error"`
	// Message says what was wrong, for people. It names the field or header
	// at fault and never contains the token.
	Message string `json:"message"`
}

// Handler is the fake Plant Store as an http.Handler, for tests that mount
// it in a server of their own; [NewServer] serves one for you. It serves
// POST /plants only, against state of its own, and is safe for concurrent
// use. Create one with [NewHandler]; the zero Handler is not usable.
//
// Each request is checked in this order, and the first failure is the reply:
//
//   - A path other than /plants (including /plants/) is 404 with
//     [CodeNotFound]. Another method on /plants is 405 with an
//     "Allow: POST" header and [CodeMethodNotAllowed].
//   - A missing or malformed Authorization header, or a token other than
//     the one configured, is 401 with [CodeUnauthorized] and the header
//     WWW-Authenticate: Bearer realm="plantstore", followed, as RFC 6750
//     asks, by error="invalid_request" for a malformed header and
//     error="invalid_token" for a wrong token (and by nothing when no
//     credentials were sent). The Authorization header must be "Bearer",
//     matched without regard to case, one or more spaces and the token
//     (RFC 7235); the token is compared in constant time.
//   - A Content-Type other than application/json, optionally with
//     charset=utf-8, is 400 with [CodeContentType]. The fake answers 400 and
//     not 415 because the specification answers every failed create with
//     400; it never invents statuses the specification does not list,
//     except 401, 404 and 405 above.
//   - A body over 1 MiB is 400 with [CodeTooLarge], for the same reason not
//     413.
//   - The body must be exactly one JSON object, in valid UTF-8, with no
//     repeated field names (which JSON leaves undefined), and nothing but
//     whitespace after it; otherwise 400 with [CodeInvalidJSON]. Deeply
//     nested input is rejected the same way.
//   - The object must be a NewPlant; otherwise 400 with [CodeInvalidPlant].
//     "id" is required and must be an integer literal that fits in int64:
//     "1", 1.5, 1.0, 1e3 and 1e100 are all rejected, so a client that sends
//     a float is caught even where a lenient server would accept it. "name"
//     is required and must be a non-empty string (the plantstore client
//     never sends an empty one). "tag" is optional, but when present it must
//     be a string: null is rejected, as the specification does not make it
//     nullable. Strings must not contain unpaired surrogate escapes such as
//     "\ud800", which a decoder would silently replace, so a stored name is
//     exactly the name that was sent. Field names match case-sensitively,
//     and unknown fields are ignored.
//   - Each rule added with [WithRule] may reject the plant with 400.
//   - A plant whose id is already stored is 400 with [CodeDuplicateID],
//     unless [WithAllowDuplicateIDs] is set.
//   - A plant that would take the store past [WithMaxPlants] is 400 with
//     [CodeStoreFull].
//
// Before all of these, a request over the rate of [WithRateLimit], if set,
// is answered with 429 and [CodeRateLimited] (it is still checked, for
// [Request.Invalid]); then an injected [Fault] that matches, or else, under
// [WithChaos], a random fault, may take over the reply.
//
// A plant that passes is stored and answered with 200 and a Plant body:
// its name, and its tag when not empty, without the id.
//
// Every reply other than 200 has "Content-Type: application/json" and an
// [ErrorBody] body with both fields. An injected [Fault] replaces the reply
// described here.
type Handler struct {
	token       []byte
	allowDupIDs bool
	maxRequests int // -1 for no limit
	maxPlants   int
	bodyLimit   int // of the bodies in the journal
	rules       []func(plantstore.NewPlant) *ErrorBody
	logger      *slog.Logger
	tb          testing.TB                       // nil for a Handler from NewHandler
	logf        func(format string, args ...any) // nil, or the test's Logf
	limiter     *rateLimiter                     // nil without WithRateLimit
	chaos       *chaos                           // nil without WithChaos
	now         func() time.Time                 // time.Now, but for tests of the rate limit

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
	faultSeq int // numbers faults in the order they were injected
}

// NewHandler returns a fake Plant Store with no plants stored (or those of
// [WithPlants]). It accepts the options of [NewServer] except [WithTLS] and
// [WithLogging], which only a server can honour: given either, or an
// invalid option (an empty token, a negative limit, a [WithPlants] plant
// that fails its checks), it panics with a message that starts with
// "plantstoretest:". Call [Handler.Close] before shutting down the server it
// is mounted in.
func NewHandler(opts ...Option) *Handler {
	c := newConfig(opts)
	if len(c.serverOnly) > 0 {
		panic(fmt.Sprintf("plantstoretest: NewHandler: %s is an option of NewServer only: "+
			"TLS and logging through a test belong to the server a Handler is mounted in (use WithLogger to log)",
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
		logger:      c.logger,
		tb:          c.tb,
		now:         time.Now,
		done:        make(chan struct{}),
	}
	if !c.allowDupIDs {
		h.ids = make(map[int64]struct{})
	}
	if c.maxRequests != nil {
		h.maxRequests = *c.maxRequests
	}
	if c.tb != nil && c.logToTB {
		h.logf = c.tb.Logf
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

// misuse reports that the caller used the fake wrongly: under [NewServer]
// it fails the test with tb.Fatalf, at the line of the test that called the
// exported function (each function on the way calls tb.Helper); without a
// test it panics.
func (h *Handler) misuse(msg string) {
	if h.tb == nil {
		panic(msg)
	}
	h.tb.Helper()
	h.tb.Fatalf("%s", msg)
}

// callbackPanicked reports that a callback of the test (a rule or a Match)
// panicked: under [NewServer] it fails the test with tb.Errorf and returns
// "". Without a test it returns msg, which the caller panics with once the
// request is journaled, so that the panic goes on out of ServeHTTP as any
// handler's would and the journal shows the request as dropped.
func (h *Handler) callbackPanicked(msg string) (repanic string) {
	if h.tb == nil {
		return msg
	}
	h.tb.Errorf("%s", msg)
	return ""
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
// server. A request still held by a [Fault]'s Delay when Reset runs is
// answered as it would have been, but stores nothing in the state after
// Reset. Reset leaves the rest as it is: [Request.Seq] and fault IDs go on
// counting, the bucket of [WithRateLimit] is not refilled, and [WithChaos]
// goes on with its sequence of choices rather than starting it again.
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.plants = nil
	if h.ids != nil {
		h.ids = make(map[int64]struct{})
	}
	h.clearJournal()
	h.faults = nil
}

// Close releases every request held by a [Fault] with Hang or Delay, which
// then ends by dropping its connection, so that http.Server.Shutdown and
// httptest.Server.Close do not wait for them. Requests that arrive later are
// served as usual, except that hangs and delays end at once. Close does not
// stop a server the Handler is mounted in, and may be called more than once.
func (h *Handler) Close() {
	h.closeOnce.Do(func() { close(h.done) })
}

// ServeHTTP answers r as described on [Handler].
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.now()
	body, readErr := readBody(w, r)
	req := Request{
		Time:       start,
		Method:     r.Method,
		Path:       r.URL.Path,
		Header:     redact(r.Header),
		RequestID:  r.Header.Get("X-Request-Id"),
		RetryCount: retryCount(r.Header),
	}
	if h.maxRequests != 0 {
		req.Body, req.BodyTruncated = h.journalBody(body, readErr)
	}
	plant, rej := h.check(r, body, readErr)
	if rej == nil {
		req.Plant = plant
	} else {
		req.Invalid = &rej.body
	}

	ans := h.arrive(req, plant, rej)
	status := 0 // written; 0 if none, when the connection is dropped
	var d time.Duration
	defer func() {
		if status == 0 { // dropped: no reply began
			d = h.now().Sub(start)
			h.mu.Lock()
			h.complete(ans.seq, 0, d)
			h.mu.Unlock()
		}
		h.logRequest(r, status, ans.fault, d)
	}()
	if ans.repanic != "" {
		panic(ans.repanic) // a callback panicked; see callbackPanicked
	}
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
	if f.Status != 0 {
		status, d = h.begin(ans.seq, f.Status, start)
		f.write(w)
		return
	}
	rep := ans.rep
	if !ans.processed {
		h.mu.Lock()
		if h.gen == ans.gen {
			rep = h.store(plant, rej)
		} else {
			rep = replyWithoutStoring(plant, rej) // Reset ran during the delay
		}
		h.mu.Unlock()
	}
	status, d = h.begin(ans.seq, rep.status, start)
	rep.write(w, f.Header)
}

// begin records in the journal that the reply to the request numbered seq,
// which arrived at start, is about to be written with status, and returns
// status and the request's Duration. It comes before the write, so that a
// client that has the status in hand finds it in the journal, even while
// a large body is still on its way.
func (h *Handler) begin(seq uint64, status int, start time.Time) (int, time.Duration) {
	d := h.now().Sub(start)
	h.mu.Lock()
	h.complete(seq, status, d)
	h.mu.Unlock()
	return status, d
}

// journalBody is the part of body that the journal keeps, and whether it
// was cut. It is a copy when it is cut, or when body's buffer has more room
// than the byte readBody keeps to spare (a body of unannounced length), so
// that the journal holds no more than it shows.
func (h *Handler) journalBody(body []byte, readErr error) ([]byte, bool) {
	var tooLarge *http.MaxBytesError
	truncated := errors.As(readErr, &tooLarge)
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
	processed bool   // whether the plant was stored or its rejection worked out
	repanic   string // a callback's panic for ServeHTTP to go on with, or ""
}

// arrive numbers and records req, and decides who answers it: the rate
// limit, the first injected fault that matches, chaos, or the fake itself.
// Unless a fault takes over without Store, it also processes the request:
// it stores the plant or decides how to reject it.
func (h *Handler) arrive(req Request, p plantstore.NewPlant, rej *rejection) (ans answer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	req.Seq = h.seq
	ans.seq, ans.gen = h.seq, h.gen
	defer func() {
		req.Fault = ans.fault
		h.record(req)
	}()

	if rej != nil && rej.repanic != "" { // a rule panicked, in a Handler without a test
		ans.repanic = rej.repanic
		return ans
	}
	if h.limiter != nil {
		if wait, ok := h.limiter.take(h.now()); !ok {
			ans.fault, ans.rep, ans.processed = "rate limit", h.limiter.reply(wait), true
			return ans
		}
	}
	sf, repanic := h.takeFault(req)
	if repanic != "" { // a Match panicked, in a Handler without a test
		ans.repanic = repanic
		return ans
	}
	if sf != nil {
		ans.scripted, ans.fault = &sf.Fault, sf.describe()
	} else if h.chaos != nil {
		ans.scripted, ans.fault = h.chaos.next()
	}
	if ans.scripted == nil || ans.scripted.Store {
		ans.rep, ans.processed = h.store(p, rej), true
	}
	return ans
}

// store stores p, unless the checks rejected it, its id is taken or the
// store is full, and returns the reply. h.mu must be held.
func (h *Handler) store(p plantstore.NewPlant, rej *rejection) reply {
	if rej != nil {
		return replyWithoutStoring(p, rej)
	}
	if h.ids != nil {
		if _, dup := h.ids[p.ID]; dup {
			return badRequest(CodeDuplicateID, duplicateMessage(p.ID))
		}
	}
	if len(h.plants) >= h.maxPlants {
		return badRequest(CodeStoreFull, h.storeFullMessage())
	}
	if h.ids != nil {
		h.ids[p.ID] = struct{}{}
	}
	h.plants = append(h.plants, p)
	return replyWithoutStoring(p, nil)
}

func duplicateMessage(id int64) string {
	return fmt.Sprintf("plant %d already exists", id)
}

func (h *Handler) storeFullMessage() string {
	return fmt.Sprintf("the store is full: it holds %d plants, the most that WithMaxPlants "+
		"(plantstore-mock: -max-plants) allows", h.maxPlants)
}

// replyWithoutStoring is the reply to a checked request: its rejection, or
// the stored Plant.
func replyWithoutStoring(p plantstore.NewPlant, rej *rejection) reply {
	if rej != nil {
		return reply{status: rej.status, body: &rej.body, challenge: rej.challenge}
	}
	return reply{status: http.StatusOK, plant: &plantstore.Plant{Name: p.Name, Tag: p.Tag}}
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

// rejection is why the checks refused a request.
type rejection struct {
	status    int
	body      ErrorBody
	challenge string // the WWW-Authenticate value of a 401
	repanic   string // a rule's panic to go on with, without a test; see callbackPanicked
}

func rejectf(status int, code int32, format string, args ...any) *rejection {
	return &rejection{status: status, body: ErrorBody{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// check runs the stateless checks documented on Handler, in order, and
// returns the plant the body holds.
func (h *Handler) check(r *http.Request, body []byte, readErr error) (plantstore.NewPlant, *rejection) {
	if r.URL.Path != "/plants" {
		return plantstore.NewPlant{}, rejectf(http.StatusNotFound, CodeNotFound, "no such path %q; the API serves POST /plants", r.URL.Path)
	}
	if r.Method != http.MethodPost {
		return plantstore.NewPlant{}, rejectf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s is not allowed on /plants; use POST", r.Method)
	}
	if rej := h.authorize(r.Header); rej != nil {
		return plantstore.NewPlant{}, rej
	}
	if msg := checkContentType(r.Header); msg != "" {
		return plantstore.NewPlant{}, rejectf(http.StatusBadRequest, CodeContentType, "%s", msg)
	}
	if readErr != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(readErr, &tooLarge) {
			return plantstore.NewPlant{}, rejectf(http.StatusBadRequest, CodeTooLarge, "body is larger than %d bytes", maxBodyBytes)
		}
		return plantstore.NewPlant{}, rejectf(http.StatusBadRequest, CodeInvalidJSON, "reading body: %v", readErr)
	}
	p, e := decodePlant(body)
	if e != nil {
		return plantstore.NewPlant{}, &rejection{status: http.StatusBadRequest, body: *e}
	}
	for _, rule := range h.rules {
		if rej := h.applyRule(rule, p); rej != nil {
			return plantstore.NewPlant{}, rej
		}
	}
	return p, nil
}

// applyRule runs a [WithRule] rule. A panic in it fails the test (it would
// otherwise vanish into net/http's recovery, and the client would only see
// a dropped connection) and is answered with 500; without a test, the
// rejection carries the panic for the caller to go on with (see
// callbackPanicked).
func (h *Handler) applyRule(rule func(plantstore.NewPlant) *ErrorBody, p plantstore.NewPlant) (rej *rejection) {
	defer func() {
		if r := recover(); r != nil {
			repanic := h.callbackPanicked(fmt.Sprintf("plantstoretest: a WithRule rule panicked on %+v: %v", p, r))
			rej = rejectf(http.StatusInternalServerError, CodeCallbackPanic, "a WithRule rule panicked: %v", r)
			rej.repanic = repanic
		}
	}()
	if e := rule(p); e != nil {
		return &rejection{status: http.StatusBadRequest, body: *e}
	}
	return nil
}

// authorize returns the 401 for the request's credentials, or nil if they
// carry the configured token. The message never contains a token.
func (h *Handler) authorize(header http.Header) *rejection {
	token, problem := wire.ParseBearer(header)
	switch problem {
	case wire.BearerMissing:
		return unauthorized("", "missing Authorization header")
	case wire.BearerRepeated:
		return unauthorized("invalid_request", "more than one Authorization header")
	case wire.BearerMalformed:
		return unauthorized("invalid_request", `Authorization header must be "Bearer <token>"`)
	}
	if subtle.ConstantTimeCompare([]byte(token), h.token) != 1 {
		return unauthorized("invalid_token", "invalid token")
	}
	return nil
}

// unauthorized is a 401 whose challenge carries the RFC 6750 error code
// oauthErr, or none when the request sent no credentials at all.
func unauthorized(oauthErr, msg string) *rejection {
	challenge := `Bearer realm="plantstore"`
	if oauthErr != "" {
		challenge += `, error="` + oauthErr + `"`
	}
	return &rejection{
		status:    http.StatusUnauthorized,
		body:      ErrorBody{Code: CodeUnauthorized, Message: msg},
		challenge: challenge,
	}
}

// checkContentType returns what is wrong with the request's Content-Type,
// or "" if it is JSON.
func checkContentType(header http.Header) string {
	values := header.Values("Content-Type")
	switch len(values) {
	case 0:
		return "missing Content-Type header; want application/json"
	case 1:
	default:
		return "more than one Content-Type header"
	}
	if values[0] == "application/json" { // what most clients send, without parsing
		return ""
	}
	mediaType, params, err := mime.ParseMediaType(values[0])
	if err != nil || mediaType != "application/json" {
		return fmt.Sprintf("Content-Type must be application/json, got %q", values[0])
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Sprintf("charset must be utf-8, got %q", cs)
	}
	return ""
}

// readBody reads at most [wire.MaxBodyBytes] of r's body, and a
// *http.MaxBytesError if there was more. The buffer grows with the bytes
// that actually arrive, never by the length the request announces (see
// [wire.ReadBody]): a client that declares 1 MiB and sends 7 bytes costs a
// small buffer, not 1 MiB. A short announced length only makes the first
// buffer smaller, with a byte to spare for reading the end.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var buf []byte
	if r.ContentLength >= 0 && r.ContentLength < firstReadSize {
		buf = make([]byte, 0, r.ContentLength+1)
	}
	return wire.ReadBody(buf, http.MaxBytesReader(w, r.Body, wire.MaxBodyBytes))
}

// firstReadSize is the buffer wire.ReadBody starts with when given none.
const firstReadSize = 512

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

// reply is a response worked out before it is written.
type reply struct {
	status     int
	plant      *plantstore.Plant // the 200 body
	body       *ErrorBody        // the body of any other status
	challenge  string            // the WWW-Authenticate value of a 401
	retryAfter string            // the Retry-After value of a 429
}

func badRequest(code int32, msg string) reply {
	return reply{status: http.StatusBadRequest, body: &ErrorBody{Code: code, Message: msg}}
}

// write sends rep, with extra headers added, and returns the status.
func (rep reply) write(w http.ResponseWriter, extra http.Header) int {
	switch rep.status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", rep.challenge)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", http.MethodPost)
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	var v any = rep.body
	if rep.status == http.StatusOK {
		v = rep.plant
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Neither body type can fail to marshal.
		panic(err)
	}
	return writeRaw(w, rep.status, extra, b)
}

// writeRaw sends status, the headers in extra, and body, as JSON unless
// extra says otherwise, and returns status.
func writeRaw(w http.ResponseWriter, status int, extra http.Header, body []byte) int {
	for k, vs := range extra {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body) // A client that went away gets nothing either way.
	return status
}

// logRequest logs one line about a finished request to the configured
// logger and test, if any.
func (h *Handler) logRequest(r *http.Request, status int, fault string, d time.Duration) {
	if h.logger != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", d),
		}
		if fault != "" {
			attrs = append(attrs, slog.String("fault", fault))
		}
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "plantstoretest request", attrs...)
	}
	if h.logf != nil {
		outcome := "no response"
		if status != 0 {
			outcome = fmt.Sprint(status)
		}
		if fault != "" {
			outcome += " (fault: " + fault + ")"
		}
		h.logf("plantstoretest: %s %s -> %s in %v", r.Method, r.URL.Path, outcome, d)
	}
}
