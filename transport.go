package plantstore

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// newHTTPClient returns the client that carries the attempts: a copy of
// base, or of a client with a pooled transport, with two changes. The
// transport hides CloseIdleConnections, which go-retryablehttp calls after
// every failed call and which would tear down the pool every other goroutine
// is using. And redirects to another origin lose the Authorization header.
func newHTTPClient(base *http.Client, timeouts *atomic.Bool) *http.Client {
	var hc http.Client
	if base != nil {
		hc = *base
	} else {
		hc.Transport = newTransport()
	}
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	hc.Transport = keepIdleConns{rt: rt, timeouts: timeouts}
	hc.CheckRedirect = stripAuthOnRedirect(hc.CheckRedirect)
	return &hc
}

// maxResponseHeaderBytes bounds the response headers the default transport
// reads (net/http's own default is 10 MiB). A Plant Store response has a few
// hundred bytes of headers; proxies and CDNs add cookies and trace headers,
// but their own limits are lower than this.
const maxResponseHeaderBytes = 64 << 10

// newTransport is the default transport: enough idle connections for many
// goroutines sharing one Client, and a bound on every phase before the
// response headers. The caller's context bounds the rest.
func newTransport() *http.Transport {
	return &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           256,
		MaxIdleConnsPerHost:    64,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  30 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
}

// CloseIdleConnections closes the connections the client keeps open for
// reuse, as http.Client.CloseIdleConnections does; calls in progress are not
// affected. Call it when you are done with a Client, to release its pool
// before the idle timeout (90s) does. With [WithHTTPClient] it closes the
// idle connections of the caller's transport.
func (c *Client) CloseIdleConnections() {
	if t, ok := c.retry.HTTPClient.Transport.(keepIdleConns).rt.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
}

// keepIdleConns is a RoundTripper without CloseIdleConnections, so that
// http.Client.CloseIdleConnections does nothing.
type keepIdleConns struct {
	rt http.RoundTripper
	// timeouts is set once a call of the Client has had an attempt
	// timeout, so that the calls of a Client that never uses one skip
	// looking for it.
	timeouts *atomic.Bool
}

// RoundTrip sends req through the wrapped transport, bounded by the call's
// attempt timeout when it has one (see [WithAttemptTimeout]). The bound is
// applied here, around the transport, because go-retryablehttp waits
// between attempts on the request's own context, which must outlive any one
// attempt.
func (t keepIdleConns) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.timeouts.Load() {
		if st, _ := req.Context().Value(callStateKey{}).(*callState); st != nil && st.attemptTimeout > 0 {
			// The redirects an attempt follows come here too, on the
			// calling goroutine, and share the attempt's deadline.
			if st.attemptDeadline.IsZero() {
				st.attemptDeadline = time.Now().Add(st.attemptTimeout)
			}
			return roundTripWithin(t.rt, req, st.attemptDeadline, st.attemptTimeout)
		}
	}
	return t.rt.RoundTrip(req)
}

// roundTripWithin sends req through rt and cancels it, body and all, at
// deadline, the end of an attempt timeout of d.
func roundTripWithin(rt http.RoundTripper, req *http.Request, deadline time.Time, d time.Duration) (*http.Response, error) {
	ctx, cancel := context.WithDeadlineCause(req.Context(), deadline, errAttemptTimeout)
	resp, err := rt.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if context.Cause(ctx) == errAttemptTimeout {
			err = &attemptTimeoutError{d: d, err: err}
		}
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, d: d}
	return resp, nil
}

var errAttemptTimeout = errors.New("attempt timed out")

// attemptTimeoutError is an attempt that ran out of its own time. It
// matches context.DeadlineExceeded, as a context's deadline would.
type attemptTimeoutError struct {
	d   time.Duration
	err error
}

func (e *attemptTimeoutError) Error() string {
	return "attempt timed out after " + e.d.String() + ": " + e.err.Error()
}
func (e *attemptTimeoutError) Unwrap() error { return e.err }
func (e *attemptTimeoutError) Is(target error) bool {
	return target == context.DeadlineExceeded
}

// cancelOnClose ends an attempt's context when its body is closed, and says
// so when a read fails because the attempt ran out of time.
type cancelOnClose struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
	d      time.Duration
}

func (b *cancelOnClose) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && context.Cause(b.ctx) == errAttemptTimeout {
		err = &attemptTimeoutError{d: b.d, err: err}
	}
	return n, err
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// redirectError is a redirect the client refused to follow.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// stripAuthOnRedirect wraps next, a CheckRedirect function or nil, so that
// the token is never sent to an origin (scheme, host and port) other than
// the one the call was made to. Go's client forwards Authorization to the
// same host on any port, and on a downgrade from https to http. A redirect
// that would change the method (a 301, 302 or 303 turns POST into GET) is
// not followed: the caller gets the redirect itself as an *APIError.
func stripAuthOnRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if !sameOrigin(req.URL, via[0].URL) {
			req.Header.Del("Authorization")
		}
		if next != nil {
			err := next(req, via)
			if err == nil || err == http.ErrUseLastResponse {
				return err
			}
			return &redirectError{err}
		}
		if len(via) >= 10 {
			return &redirectError{errors.New("stopped after 10 redirects")}
		}
		return nil
	}
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
