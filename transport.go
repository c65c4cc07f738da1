package plantstore

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/plantstore/plantstore-go/internal/h2signal"
)

// newHTTPClient returns the client that carries the attempts: a copy of
// base (or of one with a pooled transport) whose transport is an
// [attemptTransport] around base's, and whose redirects to another origin
// lose the Authorization header.
func newHTTPClient(base *http.Client) *http.Client {
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
	hc.Transport = attemptTransport{rt: rt}
	hc.CheckRedirect = stripAuthOnRedirect(hc.CheckRedirect)
	return &hc
}

// attemptTransport is the transport every attempt goes through, rt doing
// the work. It sends each round trip of an attempt, redirects included,
// with the attempt's context, which go-retryablehttp never sees: its
// request keeps the call's, by which it decides retries and waits. It has
// no CloseIdleConnections, which go-retryablehttp calls after each failed
// call and which would tear down the pool other goroutines use.
//
// The request's context is replaced only when the attempt has its own (a
// hook's, WithAttemptTimeout's); a deadline net/http put on the request
// (WithHTTPClient's Timeout) is then carried over, so that a transport
// that heeds only the context still ends the attempt at the Timeout.
//
// The transport below never sees the request's GetBody, with which it
// would re-send a request on its own: over HTTP/2 Go's transport re-sends
// a request whose stream the server refused or, before Go 1.27, reset
// with PROTOCOL_ERROR, even after the whole body went, up to 6 times: each
// a create the call did not count, outside the retry policy and budget.
// Without GetBody it re-sends only a request it has not begun to send,
// and returns the rest for the retry policy to judge (prepareRetry
// rewinds the body); over HTTP/1.1, a request it could not write on a
// reused connection is returned too, and counts as maybe created.
// http.Client keeps GetBody, to follow a 307 or 308. An HTTP/2 error is
// made the server's signal it stands for ([h2signal.Of]).
type attemptTransport struct{ rt http.RoundTripper }

func (t attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if getBody := req.GetBody; getBody != nil {
		req.GetBody = nil
		defer func() { req.GetBody = getBody }()
	}
	resp, err := t.roundTrip(req)
	if err != nil {
		err = h2signal.Of(err)
	}
	return resp, err
}

func (t attemptTransport) roundTrip(req *http.Request) (*http.Response, error) {
	st := stateOf(req.Context())
	if st == nil || st.actx == nil || st.actx == req.Context() || st.actx == context.Context(&st.ctx) {
		return t.rt.RoundTrip(req)
	}
	ctx, cancel := st.actx, context.CancelFunc(nil)
	if dl, ok := req.Context().Deadline(); ok {
		if adl, ok := ctx.Deadline(); !ok || dl.Before(adl) {
			ctx, cancel = context.WithDeadline(ctx, dl)
		}
	}
	resp, err := t.rt.RoundTrip(req.WithContext(ctx))
	if cancel != nil {
		if resp == nil {
			cancel()
		} else {
			resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
		}
	}
	return resp, err
}

// cancelOnClose releases a round trip's context when its body is closed,
// as net/http does for its own Timeout.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// maxResponseHeaderBytes bounds the response headers the default transport
// reads (net/http's default is 10 MiB): a Plant Store response has a few
// hundred bytes, and proxies that add more have lower limits than this.
const maxResponseHeaderBytes = 64 << 10

// newTransport is the default transport: idle connections for many
// goroutines sharing one Client, and a bound on each phase before the
// response headers; the caller's context bounds the rest.
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

// CloseIdleConnections closes the connections the Client keeps for reuse
// (those of [WithHTTPClient]'s transport too), so that a Client you are
// done with releases its pool before the 90s idle timeout.
func (c *Client) CloseIdleConnections() {
	if t, ok := c.retry.HTTPClient.Transport.(attemptTransport).rt.(interface{ CloseIdleConnections() }); ok {
		t.CloseIdleConnections()
	}
}

// errAttemptTimeout is the cause of an attempt's context ending at
// [WithAttemptTimeout]'s bound.
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

// redirectError is a redirect the client refused to follow.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// stripAuthOnRedirect wraps next, a CheckRedirect function or nil, so that
// the token never goes to another origin (scheme, host and port): Go's
// client forwards Authorization to the same host on any port, and on a
// downgrade to http. A redirect that would change the method (a 301, 302
// or 303 turns POST into GET) is not followed: the caller gets it as an
// *APIError.
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
