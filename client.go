// Package plantstore is a client for the Plant Store HTTP API.
//
// Create a [Client] once with [NewClient] and share it. Every method takes a
// [context.Context]; every error it returns is a [*CallError], which wraps an
// [*APIError] when the server rejected the request (find either with
// [errors.As]):
//
//	c, err := plantstore.NewClient("https://plants.example.com", plantstore.WithToken(token))
//	if err != nil {
//		return err
//	}
//	p, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"})
//
// A Client retries failed attempts as its documentation says. A create that
// failed may still have stored the plant: [ErrMaybeCreated] says how to
// settle it. For tests, package plantstoretest serves a fake of the API.
package plantstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/plantstore/plantstore-go/internal/wire"
)

const (
	// version is the module's version, its one source of truth: the
	// User-Agent reports it, a test holds it to CHANGELOG.md's newest
	// release, and the release check tags it (see RELEASING.md).
	version   = "0.5.0"
	userAgent = "plantstore-go/" + version
)

// Client calls the Plant Store API. Build it with [NewClient]. A Client is
// immutable and safe for concurrent use by many goroutines; share one per
// base URL so that its connection pool is shared too.
//
// Every method retries a failed attempt, up to [WithMaxRetries] or
// [WithCallRetries] times, when it failed in transport (a refused or broken
// connection, even after sending) or was answered 429, 502, 503 or 504.
// Any other status is final, a 500 included, and so is an answer the
// transport refused (by default, response headers over 64 KiB). Waits are
// [WithRetryBackoff]'s and [WithMaxRetryAfter]'s; a retry whose wait at its
// longest would reach the context's deadline, or that the retry budget
// refuses ([ErrRetryBudgetExhausted]), is not made: the call returns the
// last outcome at once. Every attempt sends the same bytes, with the call's
// request id and its own retry count ([CallInfo.RequestID],
// [Attempt.Number]). On HTTP/1.1, HTTP/2 and h2c, whatever transport
// [WithHTTPClient] gives, each request on the wire is an attempt the call
// counted; an HTTP/2 stream refused unprocessed is retried.
type Client struct {
	// base is the base URL, ending in a slash: an operation's URL is base
	// followed by its path.
	base string
	// retry runs each call's attempts over the client newHTTPClient
	// returns; see newRetryClient.
	retry *retryablehttp.Client
	// bearer returns an attempt's token and its Authorization header. It
	// is a closure so that the token is not a field: printing a Client
	// with fmt's %+v must not print the token.
	bearer        func(context.Context) (token, header string, err error)
	maxRetryAfter time.Duration
	maxRetries    int
	// retryWaitMin and retryWaitMax are WithRetryBackoff's base and limit.
	retryWaitMin, retryWaitMax time.Duration
	// refreshAuth asks bearer again before each retry: the token
	// func may have a new token.
	refreshAuth bool
	userAgent   string
	logger      *slog.Logger
	hooks       []Hooks
	jitter      *jitter // WithRetryJitterSource; nil for math/rand/v2's
	// budget is shared by all calls; nil when WithoutRetryBudget.
	budget *retryBudget
	exists *existsRule // WithAlreadyExists; nil for none
}

// NewClient returns a Client for the API at baseURL, such as
// "https://example.com/api/" (a path prefix and a trailing slash are fine),
// with [WithToken] or [WithTokenFunc]. It returns an error, never a
// half-working Client, when baseURL is empty, malformed, not http or https,
// has no host or one that is not a name, an IPv4 address or an [IPv6]
// address, contains a space, has a port outside 1 to 65535, or carries
// user info, a query, a fragment or WithToken's token in any form the
// client redacts (keep WithTokenFunc's out too); when no credentials are
// given; when a token would go over plain http to a host that is not
// loopback without [WithInsecureHTTP]; or when an option is invalid.
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
	if cfg.token != "" && holds(baseURL, []string{cfg.token}) {
		return nil, errors.New("plantstore: the base URL holds the bearer token, which would show wherever the URL does (CallInfo, logs, errors): give it only to WithToken")
	}
	u, err := wire.ParseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if cfg.token == "" && cfg.tokenFunc == nil {
		return nil, errors.New("plantstore: no credentials: use WithToken or WithTokenFunc")
	}
	if u.Scheme == "http" && !cfg.insecureHTTP && !wire.IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("plantstore: refusing to send a bearer token over plain http to %q: use https, or WithInsecureHTTP to allow it", u.Host)
	}

	c := &Client{
		base:          strings.TrimSuffix(u.String(), "/") + "/",
		retryWaitMin:  cfg.retryWaitMin,
		retryWaitMax:  cfg.retryWaitMax,
		maxRetryAfter: cfg.maxRetryAfter,
		maxRetries:    cfg.maxRetries,
		refreshAuth:   cfg.tokenFunc != nil,
		userAgent:     userAgent,
		logger:        cfg.logger,
		hooks:         slices.Clip(cfg.hooks),
		exists:        cfg.exists,
		bearer:        bearer(cfg.token, cfg.tokenFunc),
		jitter:        newJitter(cfg.jitter),
		budget:        newRetryBudget(cfg.budget),
	}
	if cfg.app != "" {
		c.userAgent = cfg.app + " " + userAgent
	}
	c.retry = c.newRetryClient(newHTTPClient(cfg.httpClient))
	return c, nil
}

// CreatePlant stores p and returns the plant as the server recorded it,
// retrying as described at [Client]; opts change this call only.
//
// Its error is a [*CallError] that wraps a [*ValidationError] when p has an
// empty Name or text that is not valid UTF-8 (nothing is sent), an
// [*APIError] for a non-2xx answer, or else the error of the connection, the
// context (so errors.Is(err, context.DeadlineExceeded) works), an unreadable
// 200 or a nil ctx. When the plant may have been stored nonetheless, it
// matches [ErrMaybeCreated].
func (c *Client) CreatePlant(ctx context.Context, p NewPlant, opts ...CallOption) (*Plant, error) {
	var out Plant
	err := c.do(ctx, opCreatePlant, nil, opts,
		func() ([]byte, error) {
			// 40 bytes hold the rest of the document and any ID.
			return p.appendJSON(make([]byte, 0, 40+len(p.Name)+len(p.Tag)))
		},
		func(data []byte) error {
			if err := decodePlant(data, &out); err != nil {
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

// errNilContext is what a method called with a nil context returns, as
// net/http's NewRequestWithContext does.
var errNilContext = errors.New("nil context")

// errNilCallOption is what a call given a nil CallOption returns.
var errNilCallOption = errors.New("plantstore: nil call option")

// do makes one call of op: it fills in op's path with values (see
// [operation.expand]), applies opts, gives the call its request id, sends
// op's request (with the body encode returns, when op has a body; encode
// may then refuse it) with retries, and hands a 2xx body to decode. Any
// error comes back as a *CallError.
//
// do owns the call's state: it makes it, hands it to each step, and is
// the only one to read it when the call is over.
func (c *Client) do(ctx context.Context, op operation, values []string, opts []CallOption,
	encode func() ([]byte, error), decode func([]byte) error) error {
	st := &callState{maxRetries: c.maxRetries, mayCreate: op.mayCreate}
	st.info = CallInfo{Operation: op.name, Method: op.method}
	path, err := op.expand(values)
	if err != nil { // the method's argument, which it should have refused
		return &CallError{Call: st.info, Err: err, op: op.text}
	}
	st.info.URL = c.base + path
	var (
		extra   http.Header
		capture *CallInfo
	)
	if len(opts) > 0 {
		cc := &callConfig{maxRetries: -1}
		for _, opt := range opts {
			if opt == nil {
				return &CallError{Call: st.info, Err: errNilCallOption}
			}
			if err := opt(cc); err != nil {
				return &CallError{Call: st.info, Err: err}
			}
		}
		if cc.maxRetries >= 0 {
			st.maxRetries = cc.maxRetries
		}
		extra, st.attemptTimeout, st.info.RequestID, capture = cc.header, cc.attemptTimeout, cc.requestID, cc.info
	}
	if st.info.RequestID == "" {
		st.info.RequestID = newRequestID()
	}
	start := time.Now()

	callCtx, err := c.send(ctx, op, st, extra, encode, decode)

	// Set whoever reads it: a CallError's Call is as WithCallInfo records it.
	st.info.Duration = time.Since(start)
	if err != nil {
		ce := &CallError{Call: *st.readable(true), Err: redactChain(err, st.tokens)}
		// A plant refused before sending reads as its ValidationError.
		if _, refused := err.(*ValidationError); !refused {
			ce.op, ce.maybeCreated, ce.retryDenied = op.text, st.maybeCreated, st.last.RetryDenied
			ce.alreadyExists = c.exists.matches(err)
		}
		err = ce
	}
	if callCtx != nil && len(c.hooks) > 0 {
		c.callEnd(callCtx, st, err)
	}
	if capture != nil {
		*capture = *st.readable(true)
	}
	return err
}

// send does the work of do once the call is set up, and returns the call's
// context when it got as far as the CallStart hooks. Errors come back
// bare, for do to wrap in a *CallError with what st learnt and the call's
// tokens redacted from every cause ([redactChain]): a
// *ValidationError, an *APIError, or the error of the context, the
// transport or the 2xx answer.
func (c *Client) send(ctx context.Context, op operation, st *callState, extra http.Header,
	encode func() ([]byte, error), decode func([]byte) error) (context.Context, error) {
	var body io.Reader // nil, not a nil *bytes.Reader, when op has no body
	if op.body {
		data, err := encode()
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(data)
	}
	if ctx == nil {
		// Every method reaches here before anything uses ctx, so none of
		// them can panic on a nil one.
		return nil, errNilContext
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.hooks) > 0 {
		ctx = c.callStart(ctx, st)
	}
	// The request's context is the call's, traced and marked with st,
	// outermost so that stateOf finds st at the first step.
	callCtx := ctx
	st.ctx = callContext{Context: httptrace.WithClientTrace(ctx, st.trace()), st: st}
	ctx = &st.ctx

	req, err := http.NewRequestWithContext(ctx, op.method, st.info.URL, body)
	if err != nil {
		return callCtx, err
	}
	token, auth, err := c.bearer(ctx)
	if err != nil {
		return callCtx, err
	}
	st.sent(token)
	// The keys are already canonical and the values share one array, where
	// http.Header.Set would canonicalise each key and allocate each value:
	// BenchmarkCreatePlantCanned makes 30 allocations a call, 35 with Set.
	vals := [...]string{"application/json", c.userAgent, auth, st.info.RequestID, "0"}
	h := req.Header
	if op.body {
		h["Content-Type"] = vals[0:1:1]
	}
	h["Accept"] = vals[0:1:1]
	h["User-Agent"] = vals[1:2:2]
	h["Authorization"] = vals[2:3:3]
	h[headerRequestID] = vals[3:4:4]
	h[headerRetryCount] = vals[4:5:5]
	for k, v := range extra {
		h[k] = v
	}

	// go-retryablehttp rewinds only a body it was given; prepareRetry
	// gives each retry its own from req.GetBody instead.
	resp, err := c.retry.Do(&retryablehttp.Request{Request: req})
	var (
		data    []byte
		readErr error
	)
	buf := bodyBuffers.Get().(*[]byte)
	defer func() {
		// Keep the larger of the buffer and what the body grew it to, if
		// that is not too large; nothing refers to either once send returns.
		if cap(data) > cap(*buf) && cap(data) <= maxPooledBuffer {
			*buf = data[:0]
		}
		bodyBuffers.Put(buf)
	}()
	if resp != nil {
		if err == nil {
			// The answer that ends the call: its body is read within the
			// attempt's context, which closes after it.
			data, readErr = wire.ReadBody((*buf)[:0], resp.Body)
			if readErr != nil && st.attemptTimedOut(ctx) {
				readErr = &attemptTimeoutError{d: st.attemptTimeout, err: readErr}
			}
			if readErr != nil {
				readErr = fmt.Errorf("read response: %w", readErr)
			}
		}
		resp.Body.Close()
	}
	if st.actx != nil {
		// The last attempt is still open: checkRetry left it so.
		a := st.last
		if readErr != nil && a.StatusCode/100 == 2 {
			// The call fails on this unread answer, and so did the
			// attempt: its hooks and log must not report a success.
			a.Err = redactChain(readErr, st.tokens)
		}
		c.attemptClose(st, a)
	}
	if err != nil {
		return callCtx, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return callCtx, newAPIError(resp, data, st.tokens, st.last.RetryAfter)
	}
	// A 2xx answer that the call fails on may have stored the plant.
	st.maybeCreated = st.mayCreate
	if readErr != nil {
		return callCtx, readErr
	}
	if err := decode(data); err != nil {
		return callCtx, fmt.Errorf("decode response: %w (body: %q)", err, snippet(wire.Redact(data, st.tokens)))
	}
	return callCtx, nil
}

// bodyBuffers holds buffers for response bodies, which are read whole and
// decoded; decoding copies what it keeps, so a buffer can be reused as soon
// as the call is done with it. Buffers that grew past maxPooledBuffer are
// left to the garbage collector. BenchmarkCreatePlantCanned: 2,712 B and 30
// allocations a call, against 3,224 B and 31 with a new buffer each call.
var bodyBuffers = sync.Pool{New: func() any {
	b := make([]byte, 0, 512)
	return &b
}}

const maxPooledBuffer = 64 << 10
