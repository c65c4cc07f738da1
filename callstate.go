package plantstore

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// callState is what one call learns across its attempts. [Client.do]
// makes it and owns it, and hands it to [Client.send]. go-retryablehttp
// runs the attempts; its hooks (see [Client.newRetryClient]) and the
// client's transport ([attemptTransport]), shared by every call of a
// Client, see only the request. Each finds the state of the call it serves
// by the request's context, once, with [stateOf], and hands it to the one
// step of the call it stands for; nothing else looks it up.
type callState struct {
	// attempts counts the attempts made. info.Attempts shows it to the
	// hooks, which get info by pointer: what they do to it must not change
	// how many attempts the retry policy counts.
	attempts     int
	maybeCreated bool
	// mayCreate is the operation's: whether a failed attempt may have
	// stored something.
	mayCreate bool

	// Set before the first attempt: the call's limit of retries and its
	// attempt timeout.
	maxRetries     int
	attemptTimeout time.Duration

	// ctx is the request's context: the call's, once the CallStart hooks
	// ran, with the trace below and marked with this state; see [stateOf].
	ctx callContext

	// actx is the context of the attempt under way, from
	// [Client.attemptStart] until [Client.attemptClose], and cancel
	// releases it when the attempt has a timeout.
	actx   context.Context
	cancel context.CancelFunc
	// last is the last attempt, as the retry policy judged it: it stays
	// open until [Client.send] has read its answer, and its RetryAfter
	// and RetryDenied are the call's. (With it the state is 312 bytes, in
	// the 320-byte size class.)
	last Attempt

	// info is the call as hooks, logs, WithCallInfo and the CallError see
	// it, through [callState.readable].
	info CallInfo
	// header is the last response's header, until readable redacts it
	// into info: a call that nothing reads pays nothing for redaction.
	header http.Header
	// attemptStart is set only when the log reads it.
	attemptStart time.Time

	// tokens are the bearer tokens the call has sent, to be redacted from
	// the server's text: one, or more if a token func changed it between
	// attempts.
	tokens []string

	// Set by the httptrace hooks during an attempt, and read and cleared
	// after it: whether the transport asked for a connection (so it
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

// callKey is the key under which a call's context answers with its state;
// see [stateOf].
type callKey struct{}

// callContext is a call's context, marked with the call's state. It lives
// in the callState, so that marking costs no allocation: hooks that do
// nothing cost none (TestNoHooksNoAllocations).
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
// from, or nil. It is how go-retryablehttp's hooks, which see only the
// request, and the transport find the call they serve; see [callState].
func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(callKey{}).(*callState)
	return st
}

// attemptTimedOut reports whether the open attempt's context ended at its
// attempt timeout while ctx, the call's, did not.
func (st *callState) attemptTimedOut(ctx context.Context) bool {
	return st.cancel != nil && context.Cause(st.actx) == errAttemptTimeout && ctx.Err() == nil
}

// readable returns the call's CallInfo for a reader outside the call (a
// hook, the log, a CallError, WithCallInfo), with the last response's
// header, and the request id it names, in it redacted: done on the first
// read after each response.
func (st *callState) readable() *CallInfo {
	if h := st.header; h != nil {
		st.header = nil
		st.info.Header = redactHeader(h, st.tokens)
		st.info.ServerRequestID = serverRequestID(h, st.tokens)
	}
	return &st.info
}
