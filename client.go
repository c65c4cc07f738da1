// Package plantstore is a client for the Plant Store HTTP API.
//
// Create a [Client] once with [NewClient] and share it; it is safe for
// concurrent use. Every method takes a [context.Context] and returns an
// [*APIError] when the server rejects a request:
//
//	c, err := plantstore.NewClient("https://plants.example.com", plantstore.WithToken(token))
//	if err != nil {
//		return err
//	}
//	p, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"})
//
// Failed attempts are retried with exponential backoff and jitter, honouring
// Retry-After; see [Client.CreatePlant] for what is retried and how to tell
// whether a failed create may nevertheless have stored the plant.
//
// For tests, package plantstoretest serves a faithful fake of the API
// in-process.
package plantstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/go-retryablehttp"
)

const (
	version   = "0.1.0"
	userAgent = "plantstore-go/" + version

	// maxResponseBytes caps how much of a response body is read. A Plant or
	// an Error is a few hundred bytes; anything near the cap is not one.
	maxResponseBytes = 1 << 20
	// snippetBytes is how much of an unexpected body an error quotes, and
	// messageBytes how much of an Error body's message it keeps.
	snippetBytes = 256
	messageBytes = 1024

	opCreatePlant = "create plant"
)

// Client calls the Plant Store API. Build it with [NewClient]. A Client is
// immutable and safe for concurrent use by many goroutines; share one per
// base URL so that its connection pool is shared too.
type Client struct {
	plantsURL string
	retry     *retryablehttp.Client
	// authorization returns the Authorization header for an attempt, or is
	// nil under WithTransportAuth. It is a closure so that the token is not a
	// field: printing a Client with fmt's %+v must not print the token.
	authorization func(context.Context) (string, error)
	maxRetryAfter time.Duration
	logger        *slog.Logger
}

// NewClient returns a Client for the API at baseURL, such as
// "https://plants.example.com" or "https://example.com/api/" (a trailing slash
// and a path prefix are both fine). Credentials are required: pass
// [WithToken] or [WithTokenFunc], or [WithTransportAuth] with an HTTP client
// that authenticates.
//
// NewClient returns an error, and never a half-working Client, when baseURL is
// empty, malformed, not http or https, has no host, contains a space, has a
// port outside 1 to 65535, or carries user info, a query or a fragment; when
// no credentials are given; when a token would go over plain http to a host
// that is not loopback without [WithInsecureHTTP]; or when an option is given
// an invalid value.
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("plantstore: nil option")
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	u, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	hasToken := cfg.token != "" || cfg.tokenFunc != nil
	switch {
	case cfg.transportAuth && cfg.httpClient == nil:
		return nil, errors.New("plantstore: WithTransportAuth needs WithHTTPClient, with a client whose transport authenticates")
	case cfg.transportAuth && hasToken:
		return nil, errors.New("plantstore: WithTransportAuth and a token are alternatives: give one")
	case !cfg.transportAuth && !hasToken:
		return nil, errors.New("plantstore: no credentials: use WithToken or WithTokenFunc (or WithTransportAuth with an authenticating WithHTTPClient)")
	}
	if u.Scheme == "http" && !cfg.insecureHTTP && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("plantstore: refusing to send a bearer token over plain http to %q: use https, or WithInsecureHTTP to allow it", u.Host)
	}

	c := &Client{
		plantsURL:     u.JoinPath("plants").String(),
		maxRetryAfter: cfg.maxRetryAfter,
		logger:        cfg.logger,
	}
	if !cfg.transportAuth {
		c.authorization = authorization(cfg.token, cfg.tokenFunc)
	}
	c.retry = &retryablehttp.Client{
		HTTPClient:   newHTTPClient(cfg.httpClient, !cfg.transportAuth),
		RetryWaitMin: cfg.retryWaitMin,
		RetryWaitMax: cfg.retryWaitMax,
		RetryMax:     cfg.maxRetries,
		CheckRetry:   c.checkRetry,
		Backoff:      backoff,
		ErrorHandler: keepLastResponse,
	}
	if cfg.tokenFunc != nil {
		c.retry.PrepareRetry = c.reauthorize
	}
	if c.logger != nil {
		c.retry.RequestLogHook = c.logAttempt
	}
	return c, nil
}

// CreatePlant stores p and returns the plant as the server recorded it.
//
// A p with an empty Name, or text that is not valid UTF-8, is refused before
// anything is sent, with a [*ValidationError]. A non-2xx answer is an
// [*APIError]. Any other failure (connection, context, an unreadable 200) is
// an error that wraps the cause, so errors.Is(err, context.DeadlineExceeded)
// works.
//
// Attempts that fail in transport (a refused or broken connection, even one
// that broke after the request was sent) or are answered 429, 502, 503 or
// 504 are retried (see [WithMaxRetries]). 500 is not, because it reports a
// fault in handling this very request that repeating it rarely cures, and
// any other status is final. A retry whose wait, at its longest, would
// reach the context's deadline is not made: the call returns the last
// answer at once.
//
// Every attempt sends the same bytes, so a retry cannot create a second,
// different plant; whether it may store the same one twice depends on how
// the server treats a repeated ID, which the service specification leaves
// open. When the call fails but an attempt may have stored the plant, the
// error matches [ErrMaybeCreated].
func (c *Client) CreatePlant(ctx context.Context, p NewPlant) (*Plant, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(p)
	if err != nil { // unreachable for these field types; kept for safety
		return nil, fmt.Errorf("plantstore: %s: encode request: %w", opCreatePlant, err)
	}
	var out Plant
	err = c.do(ctx, opCreatePlant, http.MethodPost, c.plantsURL, body, func(data []byte) error {
		if err := json.Unmarshal(data, &out); err != nil {
			return err
		}
		if out.Name == "" {
			return errors.New("response has no plant name")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// validate returns a *ValidationError for a plant the server must not see.
func (p *NewPlant) validate() error {
	switch {
	case p.Name == "":
		return &ValidationError{Field: "name", Reason: "is required"}
	case !utf8.ValidString(p.Name):
		return &ValidationError{Field: "name", Reason: "is not valid UTF-8"}
	case !utf8.ValidString(p.Tag):
		return &ValidationError{Field: "tag", Reason: "is not valid UTF-8"}
	}
	return nil
}

// callState is what one call learns across its attempts. It travels in the
// request's context because go-retryablehttp's hooks are shared by every
// call of a Client and see only the request or its context.
type callState struct {
	attempts     int
	maybeCreated bool
	retryAfter   time.Duration

	// Set by the httptrace hooks during an attempt, and read and cleared by
	// checkRetry: whether the transport asked for a connection (so it
	// supports tracing) and whether it got one (so it may have written the
	// request). Atomic because a transport may call hooks from its own
	// goroutines.
	askedConn, gotConn atomic.Bool
}

// trace returns hooks that record in st whether an attempt got as far as a
// connection.
func (st *callState) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn: func(string) { st.askedConn.Store(true) },
		GotConn: func(httptrace.GotConnInfo) { st.gotConn.Store(true) },
	}
}

type callStateKey struct{}

// stateOf returns the state do put in ctx; go-retryablehttp hands every
// hook the request's own context, so it is always there.
func stateOf(ctx context.Context) *callState {
	return ctx.Value(callStateKey{}).(*callState)
}

// do sends body to url with retries and hands a 2xx body to decode. Errors
// come back as *APIError or *requestError.
func (c *Client) do(ctx context.Context, op, method, url string, body []byte, decode func([]byte) error) error {
	if err := ctx.Err(); err != nil {
		return &requestError{op: op, err: err}
	}
	st := new(callState)
	ctx = httptrace.WithClientTrace(context.WithValue(ctx, callStateKey{}, st), st.trace())

	req, err := retryablehttp.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return &requestError{op: op, err: err}
	}
	var auth string
	if c.authorization != nil {
		if auth, err = c.authorization(ctx); err != nil {
			return &requestError{op: op, err: err}
		}
	}
	// The keys are already canonical and the values share one array: this
	// runs on every call, and http.Header.Set would canonicalise each key
	// and allocate each value.
	vals := [...]string{"application/json", userAgent, auth}
	h := req.Header
	h["Content-Type"] = vals[0:1:1]
	h["Accept"] = vals[0:1:1]
	h["User-Agent"] = vals[1:2:2]
	if auth != "" {
		h["Authorization"] = vals[2:3:3]
	}

	resp, err := c.retry.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return &requestError{op: op, attempts: st.attempts, maybeCreated: st.maybeCreated, err: err}
	}
	buf := bodyBuffers.Get().(*[]byte)
	data, readErr := readBody(*buf, resp.Body)
	resp.Body.Close()
	defer func() {
		if cap(data) <= maxPooledBuffer {
			*buf = data[:0]
			bodyBuffers.Put(buf)
		}
	}()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(op, resp, data, st)
	}
	if readErr != nil {
		return &requestError{op: op, attempts: st.attempts, maybeCreated: true, err: fmt.Errorf("read response: %w", readErr)}
	}
	if err := decode(data); err != nil {
		return &requestError{op: op, attempts: st.attempts, maybeCreated: true,
			err: fmt.Errorf("decode response: %w (body: %q)", err, snippet(redact(data, sentToken(resp))))}
	}
	return nil
}

// authorization returns the function that makes an attempt's
// Authorization header: from the fixed token, or by asking tokenFunc.
func authorization(token string, tokenFunc func(context.Context) (string, error)) func(context.Context) (string, error) {
	if tokenFunc == nil {
		header := "Bearer " + token
		return func(context.Context) (string, error) { return header, nil }
	}
	return func(ctx context.Context) (string, error) {
		t, err := tokenFunc(ctx)
		if err != nil {
			return "", fmt.Errorf("token func: %w", err)
		}
		if problem := tokenProblem(t); problem != "" {
			return "", errors.New("token from token func " + problem)
		}
		return "Bearer " + t, nil
	}
}

// reauthorize asks the token func again before each retry, so a token that
// was rotated while the call was backing off is picked up.
func (c *Client) reauthorize(req *http.Request) error {
	auth, err := c.authorization(req.Context())
	if err != nil {
		return err
	}
	// The header map is shared with the previous attempt's request; give this
	// attempt its own before changing it.
	req.Header = req.Header.Clone()
	req.Header.Set("Authorization", auth)
	return nil
}

// bodyBuffers holds buffers for response bodies, which are read whole and
// decoded; decoding copies what it keeps, so a buffer can be reused as soon
// as the call is done with it. Buffers that grew past maxPooledBuffer are
// left to the garbage collector.
var bodyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

const maxPooledBuffer = 64 << 10

// readBody appends body to buf[:0] and returns the result. It reads at most
// maxResponseBytes+1 bytes: a longer body is an error, read no further.
func readBody(buf []byte, body io.Reader) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, max(cap(buf), 512)) // double: few copies on the way to the cap
		}
		n, err := body.Read(buf[len(buf):min(cap(buf), maxResponseBytes+1)])
		buf = buf[:len(buf)+n]
		if len(buf) > maxResponseBytes {
			return buf[:maxResponseBytes], fmt.Errorf("body exceeds %d bytes", maxResponseBytes)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// newAPIError describes a non-2xx response. The body is used when it is an
// Error document, and quoted otherwise; a redirect without a body names its
// target.
func newAPIError(op string, resp *http.Response, data []byte, st *callState) *APIError {
	token := sentToken(resp)
	e := &APIError{
		StatusCode:   resp.StatusCode,
		RetryAfter:   st.retryAfter,
		Attempts:     st.attempts,
		op:           op,
		maybeCreated: st.maybeCreated,
	}
	var body struct {
		Code    *int32  `json:"error"`
		Message *string `json:"message"`
	}
	if json.Unmarshal(data, &body) == nil && body.Code != nil && body.Message != nil {
		e.Code, e.Message = *body.Code, printable(redact(*body.Message, token), messageBytes)
	} else {
		e.Message = snippet(redact(data, token))
	}
	if loc := resp.Header.Get("Location"); e.Message == "" && loc != "" && resp.StatusCode/100 == 3 {
		e.Message = "redirect to " + printable(redact(loc, token), snippetBytes)
	}
	return e
}

// minRedactedToken is the shortest token kept out of errors. Real bearer
// tokens are far longer; replacing a shorter one, such as a "dev" token,
// would mangle every word that contains it.
const minRedactedToken = 8

// sentToken returns the bearer token of the request that resp answers, if it
// is long enough to redact: text from the server goes into errors, and a
// proxy or debug page may echo the request's headers back.
func sentToken(resp *http.Response) string {
	if resp.Request == nil {
		return ""
	}
	auth := resp.Request.Header["Authorization"]
	if len(auth) == 0 || len(auth[0]) < len("Bearer ")+minRedactedToken || !strings.EqualFold(auth[0][:len("Bearer ")], "Bearer ") {
		return ""
	}
	return auth[0][len("Bearer "):]
}

// redact replaces token in text with REDACTED. text is not modified; the
// result is a copy only when it contains the token.
func redact[T string | []byte](text T, token string) T {
	if token == "" || !strings.Contains(string(text), token) {
		return text
	}
	return T(strings.ReplaceAll(string(text), token, "REDACTED"))
}

// snippet returns the start of an unexpected body, for an error message.
// Leading space and control characters are skipped first, so a page that
// begins with many blank lines still shows its text.
func snippet(data []byte) string {
	data = bytes.TrimLeftFunc(data, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if len(data) > snippetBytes+utf8.UTFMax {
		data = data[:snippetBytes+utf8.UTFMax] // printable cuts it to size
	}
	return printable(string(data), snippetBytes)
}

// printable makes text from the server safe to put in an error and a log
// line: valid UTF-8, control characters (newlines included) as spaces, no
// surrounding space, and at most limit bytes, cut at a character boundary
// and marked with "…".
func printable(s string, limit int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// checkRetry is the retry policy. It also records, for the call's error,
// how many attempts were made and whether any may have stored the plant.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	st.attempts++
	askedConn, gotConn := st.askedConn.Swap(false), st.gotConn.Swap(false)
	st.retryAfter = 0
	if err != nil {
		// A redirect that was not followed was an answer that stored
		// nothing. Otherwise a request that got a connection may have been
		// written; without trace events (a transport that does not support
		// httptrace) fall back to what the error says.
		var redirErr *redirectError
		if !errors.As(err, &redirErr) && (gotConn || !askedConn && !certainlyNotSent(err)) {
			st.maybeCreated = true
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if !retryableError(err) || c.nextWait(st) >= timeLeft(ctx) {
			return false, nil
		}
		c.logRetry(ctx, st, slog.String("error", err.Error()))
		return true, nil
	}

	if resp.StatusCode >= 500 {
		st.maybeCreated = true
	}
	if d, ok := retryAfter(resp); ok {
		st.retryAfter = d
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return false, nil
	}
	// Keep this response rather than sleep when the wait would outlast what
	// the caller allows: the caller can reschedule with the server's figure.
	// A cancelled context keeps it too; it is the best answer there is.
	if st.retryAfter > c.maxRetryAfter || c.nextWait(st) >= timeLeft(ctx) || ctx.Err() != nil {
		return false, nil
	}
	c.logRetry(ctx, st, slog.Int("status", resp.StatusCode))
	return true, nil
}

// nextWait is the longest wait [backoff] may choose before the next
// attempt. Checking it, not the shortest, against the deadline means a
// retry never sleeps into the deadline and loses the answer it has.
func (c *Client) nextWait(st *callState) time.Duration {
	return max(st.retryAfter, backoffCeiling(c.retry.RetryWaitMin, c.retry.RetryWaitMax, st.attempts-1))
}

// timeLeft is how long ctx has before its deadline; "forever" without one.
func timeLeft(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return 1<<63 - 1
	}
	return time.Until(dl)
}

// backoff returns an exponential wait with jitter, a random point in the
// upper half of min(limit, base·2^attempt), so that many clients failing at
// once spread out; or the response's Retry-After if that is longer (the
// retry policy has already checked it against the cap).
func backoff(base, limit time.Duration, attempt int, resp *http.Response) time.Duration {
	d := backoffCeiling(base, limit, attempt)
	wait := d/2 + rand.N(d-d/2+1)
	if resp != nil {
		if ra, ok := retryAfter(resp); ok {
			wait = max(wait, ra)
		}
	}
	return wait
}

// retryAfter returns the wait resp's Retry-After header asks for, if it has
// a valid one. Most responses have none, so it does no work for them.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	v := resp.Header["Retry-After"]
	if len(v) == 0 {
		return 0, false
	}
	return parseRetryAfter(v[0], time.Now())
}

// backoffCeiling is min(limit, base·2^attempt), without overflow.
func backoffCeiling(base, limit time.Duration, attempt int) time.Duration {
	if attempt < 62 && base < limit>>attempt {
		return base << attempt
	}
	return limit
}

// parseRetryAfter reads a Retry-After value in either of its forms: a number
// of seconds or an HTTP date. A date in the past means no wait.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	secs, err := strconv.ParseUint(v, 10, 64)
	if err == nil && secs <= uint64((1<<63-1)/time.Second) {
		return time.Duration(secs) * time.Second, true
	}
	if err == nil || errors.Is(err, strconv.ErrRange) {
		return 1<<63 - 1, true // longer than anyone will wait
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// keepLastResponse replaces go-retryablehttp's default, which discards the
// last response when retries run out and returns a bare "giving up" error.
// The caller gets the response, and from it an *APIError.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// retryableError reports whether a transport error may go away on its own.
// Certificate problems, protocol errors and redirect loops will not.
func retryableError(err error) bool {
	var (
		certErr     *tls.CertificateVerificationError
		unknownAuth x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalidErr  x509.CertificateInvalidError
		redirErr    *redirectError
	)
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownAuth),
		errors.As(err, &hostErr), errors.As(err, &invalidErr),
		errors.As(err, &redirErr), errors.Is(err, http.ErrSchemeMismatch):
		return false
	}
	return true
}

// certainlyNotSent reports whether err proves that the request never reached
// the server: no connection was made or the TLS handshake failed. A redirect
// that was not followed counts too: its request was answered without
// storing anything. The retry policy asks only when the transport gave no
// trace events to go by.
func certainlyNotSent(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e := e.(type) {
		case *net.OpError:
			if e.Op == "dial" || e.Op == "proxyconnect" {
				return true
			}
		case *net.DNSError, *tls.CertificateVerificationError, tls.RecordHeaderError,
			tls.AlertError, x509.UnknownAuthorityError, x509.HostnameError,
			x509.CertificateInvalidError, *redirectError:
			return true
		}
	}
	return false
}

func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, retry int) {
	c.logger.LogAttrs(req.Context(), slog.LevelDebug, "plantstore: sending request",
		slog.String("method", req.Method),
		slog.String("url", req.URL.Redacted()),
		slog.Int("attempt", retry+1),
		slog.Any("header", redactedHeader(req.Header)))
}

// logRetry logs that the attempt st just made will be retried, unless it was
// the last one allowed.
func (c *Client) logRetry(ctx context.Context, st *callState, reason slog.Attr) {
	if c.logger == nil || st.attempts > c.retry.RetryMax {
		return
	}
	attrs := []slog.Attr{slog.Int("attempt", st.attempts), reason}
	if st.retryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", st.retryAfter))
	}
	c.logger.LogAttrs(ctx, slog.LevelInfo, "plantstore: retrying", attrs...)
}

// redactedHeader logs a header with its credentials hidden. It is a
// slog.LogValuer, so nothing is copied unless the record is written.
type redactedHeader http.Header

func (h redactedHeader) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(h))
	for k, v := range h {
		val := strings.Join(v, ", ")
		if k == "Authorization" || k == "Proxy-Authorization" {
			val = "REDACTED"
		}
		attrs = append(attrs, slog.String(k, val))
	}
	return slog.GroupValue(attrs...)
}

// validPort reports whether p, the port of a parsed URL, is absent or one a
// connection can be made to. url.Parse checks only that it is digits.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// parseBaseURL checks baseURL and returns it parsed. Its errors never quote
// user info, which might hold a password.
func parseBaseURL(baseURL string) (*url.URL, error) {
	if baseURL == "" {
		return nil, errors.New("plantstore: base URL must not be empty")
	}
	// url.Parse keeps a space in the path, so "https://host/api " (from an
	// env file, say) would send every request to "/api%20/plants".
	if i := strings.IndexFunc(baseURL, unicode.IsSpace); i >= 0 {
		return nil, fmt.Errorf("plantstore: base URL has a space at byte %d (trim it, or write %%20 if it is meant)", i)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		var urlErr *url.Error
		if errors.As(err, &urlErr) && !strings.Contains(baseURL, "@") {
			return nil, fmt.Errorf("plantstore: invalid base URL: %w", urlErr.Err)
		}
		return nil, errors.New("plantstore: invalid base URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		// The "scheme" of "user:password@host" is the user name: don't echo it.
		return nil, errors.New("plantstore: base URL scheme must be http or https (want e.g. https://host)")
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("plantstore: base URL has no host")
	case !validPort(u.Port()):
		return nil, errors.New("plantstore: base URL port must be 1 to 65535")
	case u.User != nil:
		return nil, errors.New("plantstore: base URL must not contain user info: pass credentials with WithToken")
	case u.RawQuery != "" || u.ForceQuery:
		return nil, errors.New("plantstore: base URL must not have a query")
	case u.Fragment != "":
		return nil, errors.New("plantstore: base URL must not have a fragment")
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newHTTPClient returns the client that carries the attempts: a copy of
// base, or of a client with a pooled transport, with two changes. The
// transport hides CloseIdleConnections, which go-retryablehttp calls after
// every failed call and which would tear down the pool every other goroutine
// is using. And redirects to another origin lose the Authorization header,
// or, when the transport authenticates (crossOrigin false), are not
// followed.
func newHTTPClient(base *http.Client, crossOrigin bool) *http.Client {
	var hc http.Client
	if base != nil {
		hc = *base
	} else {
		hc.Transport = newTransport()
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = keepIdleConns{rt}
	hc.CheckRedirect = stripAuthOnRedirect(hc.CheckRedirect, crossOrigin)
	return &hc
}

// newTransport is the default transport: enough idle connections for many
// goroutines sharing one Client, and a bound on every phase before the
// response headers. The caller's context bounds the rest.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// CloseIdleConnections closes the connections the client keeps open for
// reuse, as http.Client.CloseIdleConnections does; calls in progress are not
// affected. Call it when you are done with a Client, to release its pool
// before the idle timeout (90s) does. With [WithHTTPClient] it closes the
// idle connections of the caller's transport.
func (c *Client) CloseIdleConnections() {
	if t, ok := c.retry.HTTPClient.Transport.(keepIdleConns).rt.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
}

// keepIdleConns is a RoundTripper without CloseIdleConnections, so that
// http.Client.CloseIdleConnections does nothing.
type keepIdleConns struct{ rt http.RoundTripper }

func (t keepIdleConns) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.rt.RoundTrip(req)
}

// redirectError is a redirect the client refused to follow.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// stripAuthOnRedirect wraps next, a CheckRedirect function or nil, so that
// the token is never sent to an origin (scheme, host and port) other than
// the one the call was made to. Go's client forwards Authorization to the
// same host on any port, and on a downgrade from https to http. A redirect
// that would change the method (a 301, 302 or 303 turns POST into GET) is
// not followed: the caller gets the redirect itself as an *APIError. So it
// is with a redirect to another origin when crossOrigin is false, for a
// transport that authenticates requests itself, which no header removed
// here would stop.
func stripAuthOnRedirect(next func(*http.Request, []*http.Request) error, crossOrigin bool) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if !sameOrigin(req.URL, via[0].URL) {
			if !crossOrigin {
				return http.ErrUseLastResponse
			}
			req.Header.Del("Authorization")
		}
		if next != nil {
			err := next(req, via)
			if err == nil || err == http.ErrUseLastResponse {
				return err
			}
			return &redirectError{err}
		}
		if len(via) >= 10 {
			return &redirectError{errors.New("stopped after 10 redirects")}
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
