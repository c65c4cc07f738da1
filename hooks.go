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
	// RequestID is the id to quote to the service's operators: the
	// response's X-Request-Id when the server sent one, else the id the
	// client sent in X-Request-Id (its own random one, or [WithRequestID]'s).
	RequestID string
	// Attempts is how many requests the call made so far, retries included.
	Attempts int
	// StatusCode and Header are the last response's status and headers;
	// zero and nil when no attempt got a response.
	StatusCode int
	Header     http.Header
	// Duration is how long the call took, waits between attempts included;
	// set when the call returns.
	Duration time.Duration
}

// Attempt describes one attempt of a call, as [Hooks] see it.
type Attempt struct {
	// Retry is 0 for the first attempt, 1 for the first retry, and so on:
	// the value sent in X-Retry-Count.
	Retry int
	// StatusCode is the response's status, or zero when the attempt got
	// none; Err is then why. Both are zero when the attempt starts.
	StatusCode int
	Err        error
	// RetryAfter is the wait the response asked for in Retry-After, or
	// zero.
	RetryAfter time.Duration
	// WillRetry reports whether the client retries after this attempt, and
	// Wait how long it waits first (the retry is not made if the context
	// ends during the wait). The reason is the attempt's StatusCode or Err
	// (and RetryAfter, when it lengthened the wait).
	WillRetry bool
	Wait      time.Duration
	// RetryDenied reports that the client would have retried after this
	// attempt but the Client's retry budget refused it (see
	// [WithRetryBudget]); WillRetry is then false and the call returns
	// this attempt's outcome, with an error that matches
	// [ErrRetryBudgetExhausted].
	RetryDenied bool
}

// Hooks are functions a [Client] calls as each call runs, for tracing,
// metrics or logging of your own; module
// github.com/plantstore/plantstore-go/otel builds them for OpenTelemetry.
// Any of them may be nil. They are called synchronously, on the calling
// goroutine, and must be safe for concurrent use: calls run concurrently.
// They must not panic: as with an http.Client's CheckRedirect, a panic
// goes on out of CreatePlant, and one in AttemptEnd leaves that attempt's
// response unclosed and CallEnd uncalled.
// A Client without hooks pays nothing for them.
//
// The *CallInfo they get is the client's own record of the call: read it
// during the hook, do not keep or change it. Its Attempts, StatusCode and
// Header follow the call; Duration is set before CallEnd.
type Hooks struct {
	// CallStart runs once per call, before the first attempt. The context
	// it returns, if not nil, is the call's from then on: the place for a
	// span. It should derive from ctx, or the call no longer ends with the
	// caller's context.
	CallStart func(ctx context.Context, call *CallInfo) context.Context
	// AttemptStart runs before each attempt with the call's context; the
	// context it returns, if not nil, is that attempt's request context.
	// It must derive from ctx: one that does not is ignored.
	AttemptStart func(ctx context.Context, call *CallInfo, a Attempt) context.Context
	// AttemptEnd runs after each attempt, with the attempt's context, once
	// its response headers arrived or it failed, and before any wait for
	// the next attempt.
	AttemptEnd func(ctx context.Context, call *CallInfo, a Attempt)
	// CallEnd runs once per call that reached CallStart, as the method
	// returns, with the call's context and the error the method returns
	// (nil on success).
	CallEnd func(ctx context.Context, call *CallInfo, err error)
}

// WithHooks adds h to the hooks the Client calls. Unlike other options it
// adds rather than replaces, so that, say, tracing and your own metrics can
// both be installed; hooks run in the order they were given (CallEnd and
// AttemptEnd too). A Hooks with no function set is an error.
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
			if next := f(ctx, &st.info); next != nil {
				ctx = next
			}
		}
	}
	return ctx
}

// attemptStart runs before each attempt: go-retryablehttp's request hook.
// It starts the attempt's clock for the log and gives the attempt the
// context the AttemptStart hooks return.
func (c *Client) attemptStart(req *http.Request, retry int) {
	st := stateOf(req.Context())
	if c.logger != nil {
		st.attemptStart = time.Now()
	}
	if len(c.hooks) == 0 {
		return
	}
	ctx := st.ctx // each attempt's context derives from the call's, not the last attempt's
	for i := range c.hooks {
		if f := c.hooks[i].AttemptStart; f != nil {
			// A context that does not derive from ctx would detach the
			// attempt from the caller's deadline, and from the call.
			if next := f(ctx, &st.info, Attempt{Retry: retry}); next != nil && next.Value(callStateKey{}) == any(st) {
				ctx = next
			}
		}
	}
	if ctx != req.Context() {
		*req = *req.WithContext(ctx)
	}
}

// attemptEnd reports an attempt's outcome to the hooks and the log.
func (c *Client) attemptEnd(ctx context.Context, st *callState, a Attempt) {
	for i := range c.hooks {
		if f := c.hooks[i].AttemptEnd; f != nil {
			f(ctx, &st.info, a)
		}
	}
	if c.logger != nil {
		c.logAttempt(ctx, st, a)
	}
}

// callEnd reports the call's outcome to the hooks.
func (c *Client) callEnd(st *callState, err error) {
	for i := range c.hooks {
		if f := c.hooks[i].CallEnd; f != nil {
			f(st.ctx, &st.info, err)
		}
	}
}
