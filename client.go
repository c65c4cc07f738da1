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
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/plantstore/plantstore-go/internal/wire"
)

const (
	// version is the module's version, its one source of truth: the
	// User-Agent reports it, a test holds it to CHANGELOG.md's newest
	// release, and the release check tags it (see RELEASING.md).
	version   = "0.2.0"
	userAgent = "plantstore-go/" + version
)

// An operation is a Client method as hooks (name) and errors (text) call it.
type operation struct{ name, text string }

var opCreatePlant = operation{name: "CreatePlant", text: "create plant"}

// Client calls the Plant Store API. Build it with [NewClient]. A Client is
// immutable and safe for concurrent use by many goroutines; share one per
// base URL so that its connection pool is shared too.
type Client struct {
	plantsURL string
	retry     *retryablehttp.Client
	// authorization returns the Authorization header for an attempt. It is
	// a closure so that the token is not a field: printing a Client with
	// fmt's %+v must not print the token.
	authorization func(context.Context) (string, error)
	maxRetryAfter time.Duration
	maxRetries    int
	// refreshAuth asks authorization again before each retry: the token
	// func may have a new token.
	refreshAuth bool
	userAgent   string
	logger      *slog.Logger
	hooks       []Hooks
	// budget is shared by all calls; nil when WithoutRetryBudget.
	budget *retryBudget
	// attemptTimeouts is set by the first call with WithAttemptTimeout;
	// see keepIdleConns.
	attemptTimeouts atomic.Bool
}

// NewClient returns a Client for the API at baseURL, such as
// "https://plants.example.com" or "https://example.com/api/" (a trailing slash
// and a path prefix are both fine). Credentials are required: pass
// [WithToken] or [WithTokenFunc].
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
	if cfg.token == "" && cfg.tokenFunc == nil {
		return nil, errors.New("plantstore: no credentials: use WithToken or WithTokenFunc")
	}
	if u.Scheme == "http" && !cfg.insecureHTTP && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("plantstore: refusing to send a bearer token over plain http to %q: use https, or WithInsecureHTTP to allow it", u.Host)
	}

	c := &Client{
		plantsURL:     u.JoinPath("plants").String(),
		maxRetryAfter: cfg.maxRetryAfter,
		maxRetries:    cfg.maxRetries,
		refreshAuth:   cfg.tokenFunc != nil,
		userAgent:     userAgent,
		logger:        cfg.logger,
		hooks:         slices.Clip(cfg.hooks),
		authorization: authorization(cfg.token, cfg.tokenFunc),
		budget:        newRetryBudget(cfg.budget),
	}
	if cfg.app != "" {
		c.userAgent = cfg.app + " " + userAgent
	}
	c.retry = &retryablehttp.Client{
		HTTPClient:   newHTTPClient(cfg.httpClient, &c.attemptTimeouts),
		RetryWaitMin: cfg.retryWaitMin,
		RetryWaitMax: cfg.retryWaitMax,
		// checkRetry enforces each call's own limit.
		RetryMax:     math.MaxInt,
		CheckRetry:   c.checkRetry,
		Backoff:      noBackoff,
		ErrorHandler: keepLastResponse,
		PrepareRetry: c.prepareRetry,
	}
	if c.logger != nil || len(c.hooks) > 0 {
		c.retry.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, retry int) { c.attemptStart(req, retry) }
	}
	return c, nil
}

// CreatePlant stores p and returns the plant as the server recorded it.
// opts change this call only; see [CallOption].
//
// Every error it returns is a [*CallError], which carries the call's
// request id and attempt count and wraps the cause: a [*ValidationError]
// when p has an empty Name or text that is not valid UTF-8 (nothing is
// sent); an [*APIError] for a non-2xx answer; otherwise (connection,
// context, an unreadable 200, a nil ctx) an error that wraps the cause,
// so errors.Is(err, context.DeadlineExceeded) works. Use [errors.As] to
// reach any of them.
//
// Every attempt sends the headers X-Request-Id, the call's id (random, or
// [WithRequestID]'s), and X-Retry-Count, the attempt's number from 0, so the
// service can tell a retry from a new create.
//
// Attempts that fail in transport (a refused or broken connection, even one
// that broke after the request was sent) or are answered 429, 502, 503 or
// 504 are retried (see [WithMaxRetries] and [WithCallRetries]). 500 is not,
// because it reports a fault in handling this very request that repeating
// it rarely cures, and any other status is final. A retry whose wait, at
// its longest, would reach the context's deadline is not made: the call
// returns the last answer at once. So is a retry the Client's retry budget
// refuses ([WithRetryBudget]): the error then also matches
// [ErrRetryBudgetExhausted].
//
// Nor is an answer the transport refused retried: with the default
// transport, response headers over 64 KiB fail the call at once, with an
// error that wraps net/http's ("server response headers exceeded 65536
// bytes", or over HTTP/2 a connection error) and matches [ErrMaybeCreated],
// since the server did answer.
//
// Every attempt sends the same bytes, so a retry cannot create a second,
// different plant; whether it may store the same one twice depends on how
// the server treats a repeated ID, which the service specification leaves
// open. When the call fails but an attempt may have stored the plant, the
// error matches [ErrMaybeCreated].
func (c *Client) CreatePlant(ctx context.Context, p NewPlant, opts ...CallOption) (*Plant, error) {
	var out Plant
	err := c.do(ctx, opCreatePlant, http.MethodPost, c.plantsURL, opts,
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

// do makes one call: it applies opts, gives the call its request id, sends
// the body encode returns to url with retries, and hands a 2xx body to
// decode. Any error comes back as a *CallError.
func (c *Client) do(ctx context.Context, op operation, method, url string, opts []CallOption,
	encode func() ([]byte, error), decode func([]byte) error) error {
	st := &callState{maxRetries: c.maxRetries}
	st.info = CallInfo{Operation: op.name, Method: method, URL: url}
	var (
		extra   http.Header
		capture *CallInfo
	)
	if len(opts) > 0 {
		cc := &callConfig{maxRetries: -1}
		for _, opt := range opts {
			if opt == nil {
				return &CallError{Err: errNilCallOption}
			}
			if err := opt(cc); err != nil {
				return &CallError{Err: err}
			}
		}
		if cc.maxRetries >= 0 {
			st.maxRetries = cc.maxRetries
		}
		extra, st.attemptTimeout, st.info.RequestID, capture = cc.header, cc.attemptTimeout, cc.requestID, cc.info
		if st.attemptTimeout > 0 && !c.attemptTimeouts.Load() {
			c.attemptTimeouts.Store(true)
		}
	}
	if st.info.RequestID == "" {
		st.info.RequestID = newRequestID()
	}
	st.sentID = st.info.RequestID
	timed := capture != nil || len(c.hooks) > 0
	st.observed = timed || c.logger != nil
	if timed {
		st.start = time.Now()
	}

	err := c.send(ctx, op.text, method, url, st, extra, encode, decode)

	if timed {
		st.info.Duration = time.Since(st.start)
	}
	if err != nil && !st.observed {
		st.noteResponseID() // put off until now: only an error needs it
	}
	if err != nil {
		err = &CallError{RequestID: st.info.RequestID, Attempts: st.attempts, Err: err}
	}
	if st.ctx != nil && len(c.hooks) > 0 {
		c.callEnd(st, err)
	}
	if capture != nil {
		*capture = st.info
	}
	return err
}

// send does the work of do once the call is set up. Errors come back as
// *ValidationError, *APIError or *requestError.
func (c *Client) send(ctx context.Context, op, method, url string, st *callState, extra http.Header,
	encode func() ([]byte, error), decode func([]byte) error) error {
	body, err := encode()
	if err != nil {
		return err
	}
	if ctx == nil {
		// Every method reaches here before anything uses ctx, so none of
		// them can panic on a nil one.
		return &requestError{op: op, err: errNilContext}
	}
	if err := ctx.Err(); err != nil {
		return &requestError{op: op, err: err}
	}
	if len(c.hooks) > 0 {
		ctx = c.callStart(ctx, st)
	}
	ctx = httptrace.WithClientTrace(context.WithValue(ctx, callStateKey{}, st), st.trace())
	st.ctx = ctx

	req, err := retryablehttp.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return &requestError{op: op, err: err}
	}
	auth, err := c.authorization(ctx)
	if err != nil {
		return &requestError{op: op, err: err}
	}
	st.sent(auth)
	// The keys are already canonical and the values share one array: this
	// runs on every call, and http.Header.Set would canonicalise each key
	// and allocate each value.
	vals := [...]string{"application/json", c.userAgent, auth, st.info.RequestID, "0"}
	h := req.Header
	h["Content-Type"] = vals[0:1:1]
	h["Accept"] = vals[0:1:1]
	h["User-Agent"] = vals[1:2:2]
	h["Authorization"] = vals[2:3:3]
	h[headerRequestID] = vals[3:4:4]
	h[headerRetryCount] = vals[4:5:5]
	for k, v := range extra {
		h[k] = v
	}

	resp, err := c.retry.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return &requestError{op: op, attempts: st.attempts, maybeCreated: st.maybeCreated, retryDenied: st.retryDenied, err: redactError(err, st.tokens)}
	}
	buf := bodyBuffers.Get().(*[]byte)
	data, readErr := wire.ReadBody(*buf, resp.Body)
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
		return &requestError{op: op, attempts: st.attempts, maybeCreated: true, err: fmt.Errorf("read response: %w", redactError(readErr, st.tokens))}
	}
	if err := decode(data); err != nil {
		return &requestError{op: op, attempts: st.attempts, maybeCreated: true,
			err: fmt.Errorf("decode response: %w (body: %q)", err, snippet(redact(data, st.tokens)))}
	}
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
