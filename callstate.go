package plantstore

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// callState is what one call learns across its attempts. [Client.do] makes
// and owns it. go-retryablehttp's hooks ([Client.newRetryClient]) and the
// transport ([attemptTransport]), shared by the Client's calls, see only the
// request: each finds the call's state once, by the request's context
// ([stateOf]), and hands it to the one step it stands for.
type callState struct {
	// attempts counts the attempts made, apart from info.Attempts, which hooks
	// may change.
	attempts     int
	maybeCreated bool
	// idRead: info.ServerRequestID is the one of the response in header.
	idRead bool
	// mayCreate: a failed attempt of the operation may have stored something.
	mayCreate bool
	// The call's limit of retries and attempt timeout.
	maxRetries     int
	attemptTimeout time.Duration
	// ctx is the request's context: the call's after the CallStart hooks, with
	// the trace below, marked with this state ([stateOf]).
	ctx callContext
	// actx is the open attempt's context, from [Client.attemptStart] to
	// [Client.attemptClose]; cancel ends it when it has a timeout.
	actx   context.Context
	cancel context.CancelFunc
	// last is the last attempt as the retry policy judged it, open until
	// [Client.send] has read its answer; its RetryAfter and RetryDenied are the
	// call's. (The state is 312 bytes, in the 320-byte size class.)
	last Attempt
	// info is the call as readers see it, through [callState.readable].
	info CallInfo
	// header is the last response's, until readable redacts it into info: a
	// call nothing reads pays no redaction, and one whose readers do not
	// read the header pays for its request id alone.
	header http.Header
	// attemptStart is set only when the log reads it.
	attemptStart time.Time
	// tokens are the bearer tokens the call sent (more than one if a token
	// func changed it), to redact from the server's text.
	tokens []string
	// Set by the httptrace hooks during an attempt and cleared after it:
	// whether the transport asked for a connection (it supports tracing) and
	// got one (it may have written the request). Atomic: a transport may call
	// hooks from its own goroutines.
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

// callKey is the key under which a call's context answers with its state;
// see [stateOf].
type callKey struct{}

// callContext is a call's context, marked with its state. It lives in the
// callState, so marking allocates nothing (TestNoHooksNoAllocations).
type callContext struct {
	context.Context
	st *callState
}

func (c *callContext) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c.st
	}
	return c.Context.Value(key)
}

// stateOf returns the state of the call whose context ctx is or derives
// from, or nil.
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callKey{}).(*callState)
	return st
}

// attemptTimedOut reports whether the open attempt's context ended at its
// attempt timeout while ctx, the call's, did not.
func (st *callState) attemptTimedOut(ctx context.Context) bool {
	return st.cancel != nil && context.Cause(st.actx) == errAttemptTimeout && ctx.Err() == nil
}

// readable returns the call's CallInfo for a reader (a hook, the log, a
// CallError, WithCallInfo): with the request id of the last response made
// safe to print, and, for a reader of the header, that header redacted; on
// the first such read after each response. Until then Header is nil.
func (st *callState) readable(header bool) *CallInfo {
	if h := st.header; h != nil {
		if !st.idRead {
			st.info.ServerRequestID = serverRequestID(h, st.tokens)
			st.info.Header, st.idRead = nil, true
		}
		if header {
			st.info.Header = redactHeader(h, st.tokens)
			st.header = nil
		}
	}
	return &st.info
}
