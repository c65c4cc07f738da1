package plantstoretest

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore-go"
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
)

// maxBodyBytes is the largest request body the fake accepts.
const maxBodyBytes = 1 << 20

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

// Request is a request as it reached the fake, recorded for
// [Handler.Requests].
type Request struct {
	// Method and Path are the request's method and URL path.
	Method string
	Path   string
	// Header is a copy of the request headers with the credentials in
	// Authorization replaced by "REDACTED", so "Bearer REDACTED".
	Header http.Header
	// Body is a copy of the request body, cut off at 1 MiB.
	Body []byte
	// Plant is the decoded body when the request passed every check
	// (Invalid is nil), and the zero NewPlant otherwise.
	Plant plantstore.NewPlant
	// Invalid is the error the fake's checks found, or nil if the request
	// passed them all: path, method, token, content type, body and the
	// rules added with [WithRule]. The checks run for every request, those a
	// [Fault] answers included, so a test can confirm its client sent valid
	// requests even when the reply was scripted. A duplicate id is not a
	// check failure: it depends on what was stored before.
	Invalid *ErrorBody
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
	rules       []func(plantstore.NewPlant) *ErrorBody
	logger      *slog.Logger
	logf        func(format string, args ...any) // nil, or the test's Logf
	fatalf      func(format string, args ...any) // reports misuse
	errorf      func(format string, args ...any) // reports a callback's panic

	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu       sync.Mutex
	gen      int // counts Resets, so a request held across one leaves no trace
	plants   []plantstore.NewPlant
	ids      map[int64]bool
	requests []Request
	faults   []*scriptedFault
	faultSeq int // numbers faults in the order they were injected
}

// NewHandler returns a fake Plant Store with no plants stored. It accepts
// the same options as [NewServer] but ignores [WithTLS] and [WithLogging]. It
// panics if an option is invalid (an empty token). Call [Handler.Close]
// before shutting down the server it is mounted in.
func NewHandler(opts ...Option) *Handler {
	c := newConfig(opts)
	if err := c.check(); err != nil {
		panic(err.Error())
	}
	return newHandler(c)
}

// panicf reports misuse, or a callback's panic, where there is no test to
// fail.
func panicf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

func newHandler(c *config) *Handler {
	h := &Handler{
		token:       []byte(c.token),
		allowDupIDs: c.allowDupIDs,
		maxRequests: -1,
		rules:       c.rules,
		logger:      c.logger,
		fatalf:      panicf,
		errorf:      panicf,
		done:        make(chan struct{}),
		ids:         make(map[int64]bool),
	}
	if c.maxRequests != nil {
		h.maxRequests = *c.maxRequests
	}
	if c.tb != nil {
		h.fatalf = c.tb.Fatalf
		h.errorf = c.tb.Errorf
		if c.logToTB {
			h.logf = c.tb.Logf
		}
	}
	return h
}

// Plants returns the stored plants in the order they arrived. The slice is a
// copy that the caller may modify.
func (h *Handler) Plants() []plantstore.NewPlant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]plantstore.NewPlant(nil), h.plants...)
}

// Requests returns every request that reached the fake, in the order they
// arrived, whatever the reply: rejected requests and those a [Fault]
// answered included. Under [WithRequestLimit] it returns only the most
// recent ones. The slice and the requests' headers and bodies are copies
// that the caller may modify.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	recorded := h.requests
	if h.maxRequests >= 0 && len(recorded) > h.maxRequests {
		recorded = recorded[len(recorded)-h.maxRequests:]
	}
	out := make([]Request, len(recorded))
	for i, r := range recorded {
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

// Reset forgets the stored plants, the recorded requests and the injected
// faults not yet used (without reporting them), so that subtests can share a
// server. A request still held by a [Fault]'s Delay when Reset runs is
// answered as it would have been, but stores nothing in the state after
// Reset.
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.plants = nil
	h.ids = make(map[int64]bool)
	h.requests = nil
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
	start := time.Now()
	var (
		status    int    // status written; 0 if none
		faultKind string // what kind of fault answered, if any
	)
	defer func() { h.logRequest(r, status, faultKind, time.Since(start)) }()

	body, readErr := readBody(w, r)
	req := Request{
		Method: r.Method,
		Path:   r.URL.Path,
		Header: redact(r.Header),
		Body:   body,
	}
	plant, rej := h.check(r, body, readErr)
	if rej == nil {
		req.Plant = plant
	} else {
		req.Invalid = &rej.body
	}

	f, rep, processed, gen := h.arrive(req, plant, rej)
	if f == nil {
		status = rep.write(w, nil)
		return
	}

	faultKind = f.kind()
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
		status = f.write(w)
		return
	}
	if !processed {
		h.mu.Lock()
		if h.gen == gen {
			rep = h.store(plant, rej)
		} else {
			rep = replyWithoutStoring(plant, rej) // Reset ran during the delay
		}
		h.mu.Unlock()
	}
	status = rep.write(w, f.Header)
}

// arrive records req and takes the first injected fault that matches it.
// Unless a fault takes over without Store, it also processes the request:
// it stores the plant or decides how to reject it. processed reports
// whether it did; gen is the state's generation (see [Handler.Reset]).
func (h *Handler) arrive(req Request, p plantstore.NewPlant, rej *rejection) (f *Fault, rep reply, processed bool, gen int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.record(req)
	f = h.takeFault(req)
	if f != nil && !f.Store {
		return f, reply{}, false, h.gen
	}
	return f, h.store(p, rej), true, h.gen
}

// record keeps req for [Handler.Requests], within [WithRequestLimit]'s limit.
// Under a limit n it holds at most 2n requests, and moves the newest n down
// once every n requests, so recording stays O(1) per request. h.mu must be
// held.
func (h *Handler) record(req Request) {
	switch {
	case h.maxRequests == 0:
		return
	case h.maxRequests > 0 && len(h.requests) == 2*h.maxRequests:
		n := copy(h.requests, h.requests[h.maxRequests:])
		clear(h.requests[n:]) // release the bodies
		h.requests = h.requests[:n]
	}
	h.requests = append(h.requests, req)
}

// store stores p, unless the checks rejected it or its id is taken, and
// returns the reply. h.mu must be held.
func (h *Handler) store(p plantstore.NewPlant, rej *rejection) reply {
	if rej == nil && !h.allowDupIDs && h.ids[p.ID] {
		return badRequest(CodeDuplicateID, fmt.Sprintf("plant %d already exists", p.ID))
	}
	if rej == nil {
		h.ids[p.ID] = true
		h.plants = append(h.plants, p)
	}
	return replyWithoutStoring(p, rej)
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
// a dropped connection) and is answered with 500; without a test, h.errorf
// panics again, so the panic goes on as any handler's would.
func (h *Handler) applyRule(rule func(plantstore.NewPlant) *ErrorBody, p plantstore.NewPlant) (rej *rejection) {
	defer func() {
		if r := recover(); r != nil {
			h.errorf("plantstoretest: a WithRule rule panicked on %+v: %v", p, r)
			rej = rejectf(http.StatusInternalServerError, CodeCallbackPanic, "a WithRule rule panicked: %v", r)
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
	values := header.Values("Authorization")
	switch len(values) {
	case 0:
		return unauthorized("", "missing Authorization header")
	case 1:
	default:
		return unauthorized("invalid_request", "more than one Authorization header")
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
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

// readBody reads at most maxBodyBytes of r's body, and a
// *http.MaxBytesError if there was more. A body of announced length is read
// into a buffer of that size: the fake keeps every body it records.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	body := http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if r.ContentLength < 0 || r.ContentLength > maxBodyBytes {
		return io.ReadAll(body)
	}
	// One byte to spare, so that reading the end of the body does not need
	// a buffer of its own.
	buf := make([]byte, 0, r.ContentLength+1)
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) { // more than announced
			buf = slices.Grow(buf, 512)
		}
	}
}

// redact returns a copy of header in which the credentials of each
// Authorization value are replaced by "REDACTED", keeping the scheme.
func redact(header http.Header) http.Header {
	out := header.Clone()
	if out == nil {
		out = http.Header{}
	}
	values := out.Values("Authorization")
	for i, v := range values {
		scheme, _, ok := strings.Cut(v, " ")
		switch {
		case scheme == "Bearer" && ok:
			values[i] = "Bearer REDACTED" // the usual case, without building a string
		case ok:
			values[i] = scheme + " REDACTED"
		default:
			values[i] = "REDACTED"
		}
	}
	return out
}

// reply is a response worked out before it is written.
type reply struct {
	status    int
	plant     *plantstore.Plant // the 200 body
	body      *ErrorBody        // the body of any other status
	challenge string            // the WWW-Authenticate value of a 401
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
func (h *Handler) logRequest(r *http.Request, status int, faultKind string, d time.Duration) {
	if h.logger != nil {
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Duration("duration", d),
		}
		if faultKind != "" {
			attrs = append(attrs, slog.String("fault", faultKind))
		}
		h.logger.LogAttrs(r.Context(), slog.LevelInfo, "plantstoretest request", attrs...)
	}
	if h.logf != nil {
		outcome := "no response"
		if status != 0 {
			outcome = fmt.Sprint(status)
		}
		if faultKind != "" {
			outcome += " (fault: " + faultKind + ")"
		}
		h.logf("plantstoretest: %s %s -> %s in %v", r.Method, r.URL.Path, outcome, d)
	}
}
