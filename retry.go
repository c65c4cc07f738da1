package plantstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// callState is what one call learns across its attempts. It travels in the
// request's context because go-retryablehttp's hooks are shared by every
// call of a Client and see only the request or its context.
type callState struct {
	attempts     int
	maybeCreated bool
	retryAfter   time.Duration

	// Set before the first attempt: the call's context (with this state in
	// it, after the CallStart hooks), its retry budget and attempt timeout.
	ctx            context.Context
	maxRetries     int
	attemptTimeout time.Duration
	// attemptDeadline is when the attempt under way times out: set by its
	// first round trip, shared by the redirects it follows, and cleared by
	// checkRetry.
	attemptDeadline time.Time

	// info is the call as hooks, logs and WithCallInfo see it. Only its
	// Operation, Method, URL and RequestID are kept up to date on a call
	// that nobody observes.
	info CallInfo
	// start and attemptStart are set only when someone reads durations.
	start, attemptStart time.Time
	// observed is set when hooks, a logger or WithCallInfo read info
	// during the call, which must then be kept up to date as it goes.
	observed bool
	// sentID is the id the client sent, kept for when info.RequestID has
	// been replaced by the one of a response.
	sentID string

	// tokens are the bearer tokens the call has sent, to be redacted from
	// the server's text: one, or more if a token func changed it between
	// attempts. tokenBuf holds the first without an allocation.
	tokens   []string
	tokenBuf [1]string

	// Set by the httptrace hooks during an attempt, and read and cleared by
	// checkRetry: whether the transport asked for a connection (so it
	// supports tracing) and whether it got one (so it may have written the
	// request). Atomic because a transport may call hooks from its own
	// goroutines.
	askedConn, gotConn atomic.Bool

	// retryDenied is set when the Client's retry budget refused a retry.
	retryDenied bool
}

// noteResponseID makes info.RequestID the last response's X-Request-Id
// when it has one, else the id the client sent.
func (st *callState) noteResponseID() {
	if id := responseRequestID(st.info.Header); id != "" {
		st.info.RequestID = id
	} else {
		st.info.RequestID = st.sentID
	}
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

// checkRetry is the retry policy, called after every attempt. It records,
// for the call's error, how many attempts were made and whether any may
// have stored the plant; reports the attempt to the hooks and the log; and,
// when it retries, waits here rather than in go-retryablehttp (whose
// Backoff cannot see the call), so that the wait the hooks are told is the
// wait taken.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	st.attempts++
	if st.attempts == 1 {
		c.budget.called()
	}
	askedConn, gotConn := st.askedConn.Swap(false), st.gotConn.Swap(false)
	st.retryAfter = 0
	st.attemptDeadline = time.Time{}
	st.info.Attempts = st.attempts
	retry := false
	var stop error // a reason to end the call other than the attempt's own outcome
	if err != nil {
		redactURLError(err, st.tokens)
		err = redactError(err, st.tokens) // for the hooks and the log
		// A redirect that was not followed was an answer that stored
		// nothing. Otherwise a request that got a connection may have been
		// written; without trace events (a transport that does not support
		// httptrace) fall back to what the error says.
		var redirErr *redirectError
		if !errors.As(err, &redirErr) && (gotConn || !askedConn && !certainlyNotSent(err)) {
			st.maybeCreated = true
		}
		if stop = ctx.Err(); stop == nil {
			retry = retryableError(err)
		}
	} else {
		if resp.StatusCode >= 500 {
			st.maybeCreated = true
		}
		if d, ok := retryAfter(resp); ok {
			st.retryAfter = d
		}
		st.info.StatusCode, st.info.Header = resp.StatusCode, resp.Header
		if st.observed {
			st.noteResponseID()
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// Keep this response rather than sleep when the wait would
			// outlast what the caller allows: the caller can reschedule
			// with the server's figure. A cancelled context keeps it too;
			// it is the best answer there is.
			retry = st.retryAfter <= c.maxRetryAfter && ctx.Err() == nil
		}
	}
	// A retry whose longest wait would reach the deadline is not made.
	retry = retry && st.attempts <= st.maxRetries && c.nextWait(st) < timeLeft(ctx)
	// The budget is asked last, so that it counts only retries made.
	if retry && !c.budget.allow() {
		retry, st.retryDenied = false, true
	}
	var wait time.Duration
	if retry {
		wait = backoff(c.retry.RetryWaitMin, c.retry.RetryWaitMax, st.attempts-1, st.retryAfter)
	}
	if len(c.hooks) > 0 || c.logger != nil {
		a := Attempt{Retry: st.attempts - 1, Err: err, RetryAfter: st.retryAfter, WillRetry: retry, Wait: wait, RetryDenied: st.retryDenied}
		if resp != nil {
			a.StatusCode = resp.StatusCode
		}
		c.attemptEnd(ctx, st, a)
	}
	if !retry {
		return false, stop
	}
	if resp != nil {
		// Give the connection back to the pool before waiting.
		io.CopyN(io.Discard, resp.Body, drainBytes)
		resp.Body.Close()
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
		}
	}
	return true, nil
}

// drainBytes is how much of a retried response's body is read so that its
// connection can be reused; a longer body costs the connection instead.
const drainBytes = 4096

// noBackoff is go-retryablehttp's Backoff: checkRetry has already waited.
func noBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// prepareRetry readies the request for a retry: its own header map (the
// last attempt's may still be in use by the transport) with the retry's
// number, and a fresh token when a token func supplies them.
func (c *Client) prepareRetry(req *http.Request) error {
	st := stateOf(req.Context())
	req.Header = req.Header.Clone()
	req.Header[headerRetryCount] = []string{strconv.Itoa(st.attempts)}
	if c.refreshAuth {
		auth, err := c.authorization(req.Context())
		if err != nil {
			return err
		}
		req.Header["Authorization"] = []string{auth}
		st.sent(auth)
	}
	return nil
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
// once spread out; or the response's Retry-After, ra, if that is longer (the
// retry policy has already checked it against the cap).
func backoff(base, limit time.Duration, attempt int, ra time.Duration) time.Duration {
	d := backoffCeiling(base, limit, attempt)
	return max(d/2+rand.N(d-d/2+1), ra)
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

// keepLastResponse replaces go-retryablehttp's default, which discards the
// last response when retries run out and returns a bare "giving up" error.
// The caller gets the response, and from it an *APIError.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
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
