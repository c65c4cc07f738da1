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

	"github.com/plantstore/plantstore-go/internal/h2signal"
)

// A verdict is the retry policy's reading of an attempt: the Attempt its
// hooks and the log are told (Err redacted), and what only the call needs.
type verdict struct {
	Attempt
	// maybeStored says whether the attempt may have stored something.
	maybeStored bool
	// stop ends the call for another reason than the attempt's outcome: the
	// call's context ended while it failed.
	stop error
}

// judge is the retry policy: what an attempt's outcome, resp or err, means
// for the call whose context is ctx. A retry whose longest wait would
// reach ctx's deadline is not made, nor one the retry budget refuses. The
// budget learns of the call here: a first attempt is a call, each retry
// allowed a retry.
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
			unsent   *h2signal.NotProcessedError
		)
		// A redirect not followed stored nothing, nor did a request the server
		// said it did not process (an HTTP/2 REFUSED_STREAM or GOAWAY). Else a
		// request that got a connection may have been written; without trace
		// events (a transport without httptrace) the error says.
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
			// Keep this response rather than sleep past what the caller allows: it
			// can reschedule with the server's figure.
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

// parseRetryAfter reads a Retry-After of seconds or an HTTP date; a date
// in the past is no wait.
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

// retryableError reports whether a transport error may go away on its own:
// not certificate problems, redirect loops, headers over the transport's
// limit, other protocol errors.
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
// answer the server sent, which a retry would get again: over HTTP/2 a
// *h2signal.RefusedAnswerError, over HTTP/1.1 response headers over
// http.Transport.MaxResponseHeaderBytes, whose error has no type, only a
// text unchanged since Go 1.7, matched as it begins so that no text a
// server chooses can match.
func refusedAnswer(err error) bool {
	var refused *h2signal.RefusedAnswerError
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

// The HTTP/1.1 transport's error for response headers over its limit, and
// the prefix a connection's read loop gives it.
const (
	h1HeadersTooLongText = "net/http: server response headers exceeded "
	h1BrokenText         = "net/http: HTTP/1.x transport connection broken: "
)

// certainlyNotSent reports whether err proves that the request never
// reached the server (no connection, a failed TLS handshake), for a
// transport without trace events.
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
