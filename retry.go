package plantstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// callState is what one call learns across its attempts. [Client.do]
// makes it and owns it, and hands it to [Client.send]. go-retryablehttp
// runs the attempts; its hooks (see [Client.newRetryClient]) and the
// client's transport ([attemptTransport]), shared by every call of a
// Client, see only the request. Each finds the state of the call it serves
// by the request's context, once, with [stateOf], and hands it to the one
// step of the call it stands for; nothing else looks it up.
type callState struct {
	attempts     int
	maybeCreated bool
	// mayCreate is the operation's: whether a failed attempt may have
	// stored something.
	mayCreate bool
	// retryDenied is set when the Client's retry budget refused the call
	// a retry, which ends the call: the last attempt is the one refused.
	// (Next to the other bools, in what would be padding: the state keeps
	// its size class.)
	retryDenied bool

	// Set before the first attempt: the call's limit of retries and its
	// attempt timeout.
	maxRetries     int
	attemptTimeout time.Duration

	// ctx is the request's context: the call's, once the CallStart hooks
	// ran, with the trace below and marked with this state; see [stateOf].
	ctx callContext

	// actx is the context of the attempt under way, from
	// [Client.attemptStart] until [Client.attemptClose], and cancel
	// releases it when the attempt has a timeout. The last attempt stays
	// open until [Client.send] has read its answer; lastErr is then the
	// attempt's error as its hooks see it. (Three fields, not an Attempt:
	// the state is allocated once a call, and these keep it in a 288-byte
	// size class, BenchmarkCreatePlantCanned's 2,928 B a call, where an
	// Attempt would take it to 352.)
	actx    context.Context
	cancel  context.CancelFunc
	lastErr error

	// info is the call as hooks, logs, WithCallInfo and the CallError see
	// it.
	info CallInfo
	// start and attemptStart are set only when someone reads durations.
	start, attemptStart time.Time
	// sentID is the id the client sends, kept for when info.RequestID has
	// been replaced by the one of a response.
	sentID string

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

// newRetryClient returns the go-retryablehttp client that runs the
// attempts of every call of c over hc. Its hooks are the steps of a call:
// each finds the call's state with [stateOf] and hands it on.
// go-retryablehttp's request keeps the call's context throughout, so its
// loop checks retries and waits by the call's context; an attempt's own
// context is applied below it, by [attemptTransport].
func (c *Client) newRetryClient(hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: hc,
		// judge enforces each call's own limit.
		RetryMax: math.MaxInt,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, _ int) {
			c.attemptStart(req.Context(), stateOf(req.Context()))
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			return c.checkRetry(ctx, stateOf(ctx), resp, err)
		},
		Backoff:      noBackoff,
		ErrorHandler: keepLastResponse,
		PrepareRetry: func(req *http.Request) error {
			return c.prepareRetry(req.Context(), stateOf(req.Context()), req)
		},
	}
}

// checkRetry runs after every attempt, with ctx, the call's context, and
// the attempt's outcome, resp or err. It has [Client.judge] decide, records
// the outcome in st, and returns go-retryablehttp's answer: whether to
// retry and, when not, the error that ends the call (none after an
// answer; else the attempt's error, or the call context's when that ended
// first). An attempt that is retried is closed here (its response drained,
// its hooks told, its context released), and the wait before the retry is
// taken here too, so that the wait the hooks are told is the wait taken;
// go-retryablehttp's Backoff, which cannot see the call, adds nothing. The
// last attempt is left open for [Client.send] to close once the answer's
// body is read.
func (c *Client) checkRetry(ctx context.Context, st *callState, resp *http.Response, err error) (bool, error) {
	if err != nil && st.attemptTimedOut(ctx) {
		err = &attemptTimeoutError{d: st.attemptTimeout, err: err}
	}
	v := c.judge(ctx, st, resp, err)
	st.maybeCreated = st.maybeCreated || st.mayCreate && v.maybeStored
	if resp != nil {
		st.info.StatusCode, st.info.Header = resp.StatusCode, resp.Header
		st.info.RequestID = requestIDToQuote(st.sentID, resp.Header, st.tokens)
	}
	if !v.retry {
		st.lastErr, st.retryDenied = v.err, v.denied
		if v.stop != nil {
			return false, v.stop
		}
		return false, err
	}
	if resp != nil {
		// Give the connection back to the pool before waiting.
		io.CopyN(io.Discard, resp.Body, drainBytes)
		resp.Body.Close()
	}
	a := Attempt{Number: st.attempts, Err: v.err, RetryAfter: v.retryAfter, WillRetry: true, Wait: v.wait}
	if resp != nil {
		a.StatusCode = resp.StatusCode
	}
	c.attemptClose(st, a)
	if err := wait(ctx, v.wait); err != nil {
		return false, err
	}
	return true, nil
}

// noBackoff is go-retryablehttp's Backoff: checkRetry has already waited.
func noBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// keepLastResponse replaces go-retryablehttp's default ErrorHandler, which
// discards the last response and returns a bare "giving up" error. The
// call gets the error that ended it, and the last response, from which
// send makes an *APIError.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// A verdict is what the retry policy makes of an attempt.
type verdict struct {
	// retry says whether to make another attempt, after wait.
	retry bool
	wait  time.Duration
	// retryAfter is the response's Retry-After, or zero.
	retryAfter time.Duration
	// maybeStored says whether the attempt may have stored something.
	maybeStored bool
	// err is the attempt's error as the hooks and the log see it, with
	// the call's tokens redacted.
	err error
	// stop is a reason to end the call other than the attempt's own
	// outcome: the call's context ended while the attempt failed.
	stop error
	// denied says that the retry policy would have retried but the
	// Client's retry budget refused; retry is then false.
	denied bool
}

// judge is the retry policy: it says what an attempt's outcome, resp or
// err, means for the call whose context is ctx. A retry whose wait, at its
// longest, would reach ctx's deadline is not made, nor one the Client's
// retry budget refuses. judge is also where the budget learns of the
// call: its first attempt counts as a call, each retry allowed as a retry.
func (c *Client) judge(ctx context.Context, st *callState, resp *http.Response, err error) verdict {
	if st.attempts == 1 {
		c.budget.called()
	}
	askedConn, gotConn := st.askedConn.Swap(false), st.gotConn.Swap(false)
	var v verdict
	if err != nil {
		redactURLError(err, st.tokens)
		v.err = redactError(err, st.tokens)
		// A redirect that was not followed was an answer that stored
		// nothing. Otherwise a request that got a connection may have been
		// written; without trace events (a transport that does not support
		// httptrace) fall back to what the error says.
		var redirErr *redirectError
		if !errors.As(err, &redirErr) && (gotConn || !askedConn && !certainlyNotSent(err)) {
			v.maybeStored = true
		}
		if v.stop = ctx.Err(); v.stop == nil {
			v.retry = retryableError(err)
		}
	} else {
		v.maybeStored = resp.StatusCode >= 500
		if d, ok := retryAfter(resp); ok {
			v.retryAfter = d
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// Keep this response rather than sleep when the wait would
			// outlast what the caller allows: the caller can reschedule
			// with the server's figure. A cancelled context keeps it too;
			// it is the best answer there is.
			v.retry = v.retryAfter <= c.maxRetryAfter && ctx.Err() == nil
		}
	}
	longest := max(v.retryAfter, backoffCeiling(c.retryWaitMin, c.retryWaitMax, st.attempts-1))
	v.retry = v.retry && st.attempts <= st.maxRetries && longest < timeLeft(ctx)
	// The budget is asked last, so that it counts only retries made.
	if v.retry && !c.budget.allow() {
		v.retry, v.denied = false, true
	}
	if v.retry {
		v.wait = c.backoff(st.attempts-1, v.retryAfter)
	}
	return v
}

// wait waits d, or until ctx ends, which it then reports.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// drainBytes is how much of a retried response's body is read so that its
// connection can be reused; a longer body costs the connection instead.
const drainBytes = 4096

// prepareRetry readies req, go-retryablehttp's copy of the last
// attempt's request (the transport may still be closing the original's
// body), for the next attempt of the call whose context is ctx: a fresh
// body, its own header map with the retry's number, and a fresh token when
// a token func supplies them.
func (c *Client) prepareRetry(ctx context.Context, st *callState, req *http.Request) error {
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return err
		}
		req.Body = body
	}
	req.Header = req.Header.Clone()
	req.Header[headerRetryCount] = []string{strconv.Itoa(st.attempts)}
	if c.refreshAuth {
		auth, err := c.authorization(ctx)
		if err != nil {
			return err
		}
		req.Header["Authorization"] = []string{auth}
		st.sent(auth)
	}
	return nil
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
// once spread out; or the response's Retry-After, ra, if that is longer (the
// retry policy has already checked it against the cap).
func backoff(base, limit time.Duration, attempt int, ra time.Duration) time.Duration {
	return backoffDrawn(base, limit, attempt, ra, rand.N[time.Duration])
}

// backoffDrawn is [backoff] with the random point drawn by n, which returns
// a duration in [0, d).
func backoffDrawn(base, limit time.Duration, attempt int, ra time.Duration, n func(d time.Duration) time.Duration) time.Duration {
	d := backoffCeiling(base, limit, attempt)
	return max(d/2+n(d-d/2+1), ra)
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
	switch {
	case base == 0: // limit>>attempt reaches 0 too, and would not be less
		return 0
	case attempt < 63 && base <= limit>>attempt:
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

// retryableError reports whether a transport error may go away on its own.
// Certificate problems, redirect loops, response headers over the
// transport's limit and other protocol errors will not.
func retryableError(err error) bool {
	if refusedAnswer(err) {
		return false
	}
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

// refusedAnswer reports whether err is the transport's refusal of an
// answer the server sent: response headers over the transport's limit
// (http.Transport.MaxResponseHeaderBytes) or, over HTTP/2, a connection
// error the client raised, which is how a header value (COMPRESSION_ERROR)
// or header list (PROTOCOL_ERROR) over the limit shows there, and how any
// other breach of the protocol by the server does. The server would answer
// a retry the same way. net/http gives these errors no type, only their
// text, unchanged since Go 1.7.
func refusedAnswer(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "net/http: server response headers exceeded ") ||
		strings.Contains(msg, "connection error: COMPRESSION_ERROR") ||
		strings.Contains(msg, "connection error: PROTOCOL_ERROR")
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
