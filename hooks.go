package plantstore

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// CallInfo describes one call of a [Client] method: what was sent and, once
// the call is over, what came back. [WithCallInfo] fills one in for the
// caller; [Hooks] see one while the call runs.
type CallInfo struct {
	// Operation is the method called, such as "CreatePlant".
	Operation string
	// Method and URL are the HTTP method and the URL of the request. The URL
	// never carries credentials.
	Method string
	URL    string
	// RequestID is the X-Request-Id every attempt sends, random or
	// [WithRequestID]'s, set before CallStart. Quote it to the service's
	// operators.
	RequestID string
	// ServerRequestID is the X-Request-Id of the last response, if the
	// server or a proxy sent one; quote it beside RequestID when it differs.
	// It is safe to log: what unicode.IsPrint refuses reads as a space, and
	// a token as REDACTED ([CallError]).
	ServerRequestID string
	// Attempts counts the attempts made so far, as [Attempt.Number] does;
	// zero when nothing was sent.
	Attempts int
	// StatusCode and Header are the last response's status and headers, or
	// zero and nil; a token in Header reads REDACTED ([CallError]).
	StatusCode int
	Header     http.Header
	// Duration is how long the call took, waits included; set before CallEnd.
	Duration time.Duration
}

// Attempt describes one attempt of a call, as [Hooks] see it.
type Attempt struct {
	// Number is 1 for the first attempt, 2 for the first retry, and so on;
	// the attempt sends Number-1 in X-Retry-Count.
	Number int
	// StatusCode is the response's status, or zero when the attempt got
	// none; Err is then why, or why a 2xx body could not be read. Both are
	// zero at AttemptStart.
	StatusCode int
	Err        error
	// RetryAfter is the wait the response asked for in Retry-After, or zero.
	RetryAfter time.Duration
	// WillRetry reports whether the client retries after this attempt, and
	// Wait how long it waits first; the retry is not made if the context
	// ends during the wait, or if WithTokenFunc's function then fails.
	WillRetry bool
	Wait      time.Duration
	// RetryDenied reports that the retry budget refused the next retry
	// ([ErrRetryBudgetExhausted]); WillRetry is then false.
	RetryDenied bool
	// MaybeSent reports, for an attempt that got no answer, whether its
	// request may have reached the server: it got a connection, and was
	// neither a redirect not followed nor refused unprocessed by HTTP/2.
	// False for an answer.
	MaybeSent bool
}

// Hooks are functions a [Client] calls as each call runs, for tracing or
// metrics (module github.com/plantstore/plantstore-go/otel builds them for
// OpenTelemetry). Any may be nil. They run on the calling goroutine, so
// they must be safe for concurrent use, and must not panic: a panic goes
// on out of the method. Read the *CallInfo they get during the hook; do
// not keep or change it.
type Hooks struct {
	// CallStart runs once per call, before the first attempt. The context
	// it returns, if not nil, is the call's from then on (a span's); unless
	// it derives from ctx, the call no longer ends with the caller's.
	CallStart func(ctx context.Context, call *CallInfo) context.Context
	// AttemptStart runs before each attempt with the call's context. The
	// context it returns, if not nil and derived from ctx, is the attempt's
	// and bounds that attempt only: retries and waits go by the call's.
	AttemptStart func(ctx context.Context, call *CallInfo, a Attempt) context.Context
	// AttemptEnd runs after each attempt, before any wait for the next, with
	// the attempt's context, which the client no longer uses: AttemptEnd
	// may cancel one AttemptStart made.
	AttemptEnd func(ctx context.Context, call *CallInfo, a Attempt)
	// CallEnd runs once per call that reached CallStart, as the method
	// returns, with the call's context and the method's error.
	CallEnd func(ctx context.Context, call *CallInfo, err error)
	// ReadHeader says that these functions read CallInfo.Header, which they
	// are given only then, at the cost of a search of each response's
	// headers for the call's tokens; without it they must not read Header.
	ReadHeader bool
}

// WithHooks adds h to the hooks the Client calls: unlike other options it
// adds rather than replaces, and hooks run in the order given (the End
// hooks too). A Hooks with no function set is an error.
func WithHooks(h Hooks) Option {
	return func(c *config) error {
		if h.CallStart == nil && h.AttemptStart == nil && h.AttemptEnd == nil && h.CallEnd == nil {
			return errors.New("plantstore: hooks have no function set")
		}
		c.hooks = append(c.hooks, h)
		return nil
	}
}

// callStart runs the CallStart hooks and returns the call's context.
func (c *Client) callStart(ctx context.Context, st *callState) context.Context {
	for i := range c.hooks {
		if f := c.hooks[i].CallStart; f != nil {
			if next := f(ctx, st.readable(c.hooks[i].ReadHeader)); next != nil {
				ctx = next
			}
		}
	}
	return ctx
}

// attemptStart runs before each attempt, with ctx, the call's context. It
// counts the attempt, starts its clock for the log and opens the attempt's
// context: ctx as the AttemptStart hooks return it, bounded by the call's
// attempt timeout. The transport sends the attempt with that context (see
// [attemptTransport]); go-retryablehttp's request keeps the call's, so
// that the retry decision and the wait go by the call's alone.
func (c *Client) attemptStart(ctx context.Context, st *callState) {
	st.attempts++
	st.info.Attempts = st.attempts
	if c.logger != nil {
		st.attemptStart = time.Now()
	}
	actx := ctx
	for i := range c.hooks {
		if f := c.hooks[i].AttemptStart; f != nil {
			// A context that does not derive from ctx would detach the
			// attempt from the caller's deadline, and from the call.
			if next := f(actx, st.readable(c.hooks[i].ReadHeader), Attempt{Number: st.attempts}); next != nil && stateOf(next) == st {
				actx = next
			}
		}
	}
	if st.attemptTimeout > 0 {
		// The redirects an attempt follows share its context, and so its
		// deadline.
		actx, st.cancel = context.WithTimeoutCause(actx, st.attemptTimeout, errAttemptTimeout)
	}
	st.actx = actx
}

// attemptClose ends the open attempt: it reports a to the hooks and the
// log, when there are any, with the attempt's context, and then releases
// that context.
func (c *Client) attemptClose(st *callState, a Attempt) {
	if len(c.hooks) > 0 || c.logger != nil {
		c.attemptEnd(st.actx, st, a)
	}
	if st.cancel != nil {
		st.cancel()
	}
	st.actx, st.cancel = nil, nil
}

// attemptEnd reports an attempt's outcome to the hooks and the log.
func (c *Client) attemptEnd(ctx context.Context, st *callState, a Attempt) {
	for i := range c.hooks {
		if f := c.hooks[i].AttemptEnd; f != nil {
			f(ctx, st.readable(c.hooks[i].ReadHeader), a)
		}
	}
	if c.logger != nil {
		st.readable(false) // the log reads the server's request id
		c.logAttempt(ctx, st, a)
	}
}

// callEnd reports the call's outcome to the hooks, with the call's context.
func (c *Client) callEnd(ctx context.Context, st *callState, err error) {
	for i := range c.hooks {
		if f := c.hooks[i].CallEnd; f != nil {
			f(ctx, st.readable(c.hooks[i].ReadHeader), err)
		}
	}
}
