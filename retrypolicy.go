package plantstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// A verdict is what the retry policy makes of an attempt: the Attempt as
// its hooks and the log are told it (Err with the call's tokens redacted),
// and what only the call needs to know.
type verdict struct {
	Attempt
	// maybeStored says whether the attempt may have stored something.
	maybeStored bool
	// stop is a reason to end the call other than the attempt's own
	// outcome: the call's context ended while the attempt failed.
	stop error
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
	v := verdict{Attempt: Attempt{Number: st.attempts}}
	if err != nil {
		v.Err = redactChain(err, st.tokens)
		// A redirect that was not followed was an answer that stored
		// nothing, and so was a request the server said it did not
		// process (an HTTP/2 REFUSED_STREAM or GOAWAY). Otherwise a
		// request that got a connection may have been written; without
		// trace events (a transport that does not support httptrace)
		// fall back to what the error says.
		var (
			redirErr *redirectError
			unsent   *notProcessedError
		)
		if !errors.As(err, &redirErr) && !errors.As(err, &unsent) &&
			(gotConn || !askedConn && !certainlyNotSent(err)) {
			v.maybeStored = true
		}
		v.MaybeSent = v.maybeStored
		if v.stop = ctx.Err(); v.stop == nil {
			v.WillRetry = retryableError(err)
		}
	} else {
		v.StatusCode = resp.StatusCode
		v.maybeStored = resp.StatusCode >= 500
		// Read once per answer: a date read again later is a shorter wait.
		if ra := resp.Header["Retry-After"]; len(ra) > 0 {
			v.RetryAfter, _ = parseRetryAfter(ra[0], time.Now())
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// Keep this response rather than sleep when the wait would
			// outlast what the caller allows: the caller can reschedule
			// with the server's figure. A cancelled context keeps it too;
			// it is the best answer there is.
			v.WillRetry = v.RetryAfter <= c.maxRetryAfter && ctx.Err() == nil
		}
	}
	longest := max(v.RetryAfter, backoffCeiling(c.retryWaitMin, c.retryWaitMax, st.attempts-1))
	v.WillRetry = v.WillRetry && st.attempts <= st.maxRetries && longest < timeLeft(ctx)
	// The budget is asked last, so that it counts only retries made.
	if v.WillRetry && !c.budget.allow() {
		v.WillRetry, v.RetryDenied = false, true
	}
	if v.WillRetry {
		v.Wait = c.backoff(st.attempts-1, v.RetryAfter)
	}
	return v
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
// upper half of min(limit, base·2^attempt) drawn by n (a duration in [0,
// d)), so that many clients failing at once spread out; or the response's
// Retry-After, ra, if that is longer (judge checked it against the cap).
func backoff(base, limit time.Duration, attempt int, ra time.Duration, n func(d time.Duration) time.Duration) time.Duration {
	d := backoffCeiling(base, limit, attempt)
	return max(d/2+n(d-d/2+1), ra)
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
// answer the server sent: over HTTP/2 a *refusedAnswerError (see
// [h2Signal]), over HTTP/1.1 response headers over the transport's limit
// (http.Transport.MaxResponseHeaderBytes), whose error net/http gives no
// type, only its text, unchanged since Go 1.7. The server would answer a
// retry the same way. The text is matched as the transport's error begins,
// never as a part, so that no text a server chooses can match.
func refusedAnswer(err error) bool {
	var refused *refusedAnswerError
	if errors.As(err, &refused) {
		return true
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	msg := err.Error()
	return strings.HasPrefix(msg, h1HeadersTooLongText) || strings.HasPrefix(msg, h1BrokenText+h1HeadersTooLongText)
}

// The HTTP/1.1 transport's error for response headers over its limit, as
// it begins, and the prefix it comes with from a connection's read loop.
const (
	h1HeadersTooLongText = "net/http: server response headers exceeded "
	h1BrokenText         = "net/http: HTTP/1.x transport connection broken: "
)

// certainlyNotSent reports whether err proves that the request never reached
// the server: no connection was made or the TLS handshake failed. The
// retry policy asks only when the transport gave no trace events to go by,
// and not of a redirect it did not follow (see judge).
func certainlyNotSent(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch e := e.(type) {
		case *net.OpError:
			if e.Op == "dial" || e.Op == "proxyconnect" {
				return true
			}
		case *net.DNSError, *tls.CertificateVerificationError, tls.RecordHeaderError,
			tls.AlertError, x509.UnknownAuthorityError, x509.HostnameError,
			x509.CertificateInvalidError:
			return true
		}
	}
	return false
}
