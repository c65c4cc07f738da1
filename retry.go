package plantstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// callState is what one call learns across its attempts. It travels in the
// request's context because go-retryablehttp's hooks are shared by every
// call of a Client and see only the request or its context.
type callState struct {
	attempts     int
	maybeCreated bool
	retryAfter   time.Duration

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

// checkRetry is the retry policy. It also records, for the call's error,
// how many attempts were made and whether any may have stored the plant.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	st := stateOf(ctx)
	st.attempts++
	askedConn, gotConn := st.askedConn.Swap(false), st.gotConn.Swap(false)
	st.retryAfter = 0
	if err != nil {
		redactURLError(err, st.tokens)
		// A redirect that was not followed was an answer that stored
		// nothing. Otherwise a request that got a connection may have been
		// written; without trace events (a transport that does not support
		// httptrace) fall back to what the error says.
		var redirErr *redirectError
		if !errors.As(err, &redirErr) && (gotConn || !askedConn && !certainlyNotSent(err)) {
			st.maybeCreated = true
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if !retryableError(err) || c.nextWait(st) >= timeLeft(ctx) {
			return false, nil
		}
		c.logRetry(ctx, st, slog.String("error", err.Error()))
		return true, nil
	}

	if resp.StatusCode >= 500 {
		st.maybeCreated = true
	}
	if d, ok := retryAfter(resp); ok {
		st.retryAfter = d
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return false, nil
	}
	// Keep this response rather than sleep when the wait would outlast what
	// the caller allows: the caller can reschedule with the server's figure.
	// A cancelled context keeps it too; it is the best answer there is.
	if st.retryAfter > c.maxRetryAfter || c.nextWait(st) >= timeLeft(ctx) || ctx.Err() != nil {
		return false, nil
	}
	c.logRetry(ctx, st, slog.Int("status", resp.StatusCode))
	return true, nil
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
// once spread out; or the response's Retry-After if that is longer (the
// retry policy has already checked it against the cap).
func backoff(base, limit time.Duration, attempt int, resp *http.Response) time.Duration {
	d := backoffCeiling(base, limit, attempt)
	wait := d/2 + rand.N(d-d/2+1)
	if resp != nil {
		if ra, ok := retryAfter(resp); ok {
			wait = max(wait, ra)
		}
	}
	return wait
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
	if attempt < 62 && base < limit>>attempt {
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

func (c *Client) logAttempt(_ retryablehttp.Logger, req *http.Request, retry int) {
	c.logger.LogAttrs(req.Context(), slog.LevelDebug, "plantstore: sending request",
		slog.String("method", req.Method),
		slog.String("url", req.URL.Redacted()),
		slog.Int("attempt", retry+1),
		slog.Any("header", redactedHeader(req.Header)))
}

// logRetry logs that the attempt st just made will be retried, unless it was
// the last one allowed.
func (c *Client) logRetry(ctx context.Context, st *callState, reason slog.Attr) {
	if c.logger == nil || st.attempts > c.retry.RetryMax {
		return
	}
	attrs := []slog.Attr{slog.Int("attempt", st.attempts), reason}
	if st.retryAfter > 0 {
		attrs = append(attrs, slog.Duration("retry_after", st.retryAfter))
	}
	c.logger.LogAttrs(ctx, slog.LevelInfo, "plantstore: retrying", attrs...)
}

// redactedHeader logs a header with its credentials hidden. It is a
// slog.LogValuer, so nothing is copied unless the record is written.
type redactedHeader http.Header

func (h redactedHeader) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, len(h))
	for k, v := range h {
		val := strings.Join(v, ", ")
		if k == "Authorization" || k == "Proxy-Authorization" {
			val = wire.RedactCredentials(val)
		}
		attrs = append(attrs, slog.String(k, val))
	}
	return slog.GroupValue(attrs...)
}
