// Package plantstoretest serves a fake Plant Store API for tests of code that
// uses package plantstore.
//
// [NewServer] starts the fake on a loopback address and closes it when the
// test ends; [Server.Client] returns a client wired to it:
//
//	func TestShop(t *testing.T) {
//		srv := plantstoretest.NewServer(t)
//		shop := NewShop(srv.Client())
//		// … exercise shop, then inspect srv.Plants() and srv.Requests().
//	}
//
// The fake answers POST /plants as the service specification describes and
// checks requests strictly (see the rules below). Tests read the stored
// plants with [Server.Plants] and what arrived, and what became of it, with
// [Server.Requests]; they script failures (error statuses, delays, hangs,
// dropped connections) with [Server.Inject] or, where there is no test to
// fail, [Handler.AddFault]; and they start from given plants with
// [WithPlants] or [Server.Seed]. [WithRateLimit] and [WithChaos] add a rate
// limit and random faults; the fake speaks HTTP/1.1, and HTTP/2 too with
// [WithHTTP2]. Each server owns its state, so parallel tests do not
// interfere. The fake prints nothing unless [WithLogging] or [WithLogger]
// asks it to. [Handler] is the same fake as a plain http.Handler;
// cmd/plantstore-mock serves it over the network.
//
// The fake is not the real service. It keeps plants in memory only, for the
// life of one Handler, and at most [WithMaxPlants] of them; it serves no
// operation but creating a plant; it has no quotas or timeouts of its own,
// and a rate limit only when [WithRateLimit] asks for one; it accepts
// exactly one token, which never expires; and the error codes in its bodies
// ([CodeInvalidJSON] and the rest) are its own. Package
// plantstoretest/conformance shows where a deployment answers differently,
// and [WithProfile] makes the fake answer as the deployment does.
//
// # How a request is answered
//
// Each request is checked in this order, and the first failure is the reply:
//
//   - A path other than /plants is 404 with [CodeNotFound]: /plants/ and
//     /plants/1 are too. The path is compared segment by segment, each
//     decoded once, so /pl%61nts is /plants but /plants%2F is not. Another
//     method on /plants is 405 with an "Allow: POST" header and
//     [CodeMethodNotAllowed].
//   - A missing or malformed Authorization header, or a token other than
//     the one configured, is 401 with [CodeUnauthorized] and the header
//     WWW-Authenticate: Bearer realm="plantstore", followed (RFC 6750) by
//     error="invalid_request" for a malformed header, error="invalid_token"
//     for a wrong token and nothing for none. A well-formed header is
//     "Bearer" in any case, one or more spaces and the token (RFC 7235);
//     the token is compared in constant time.
//   - A Content-Type other than application/json, or one with a charset
//     other than utf-8, is 400 with [CodeContentType]: not 415, as the
//     specification answers every failed create with 400. Other
//     parameters are ignored, as JSON defines none.
//   - A body over 1 MiB is 400 with [CodeTooLarge], not 413. The fake reads
//     no more of it; net/http then keeps the connection if at most 256 KiB
//     is left, and otherwise closes it half a second later.
//   - The body must be exactly one JSON object, in valid UTF-8, with no
//     repeated field names and nothing but whitespace after it, and not
//     deeply nested; otherwise 400 with [CodeInvalidJSON].
//   - The object must be a NewPlant; otherwise 400 with [CodeInvalidPlant].
//     "id" is required and must be an integer literal that fits in int64:
//     "1", 1.5, 1.0, 1e3 and 1e100 are all rejected, so a client that sends
//     a float is caught. "name" is required and must be a non-empty string.
//     "tag" is optional, but when present it must be a string, not null.
//     Strings must not contain unpaired surrogate escapes such as "\ud800",
//     so a stored name is exactly the name that was sent. Field names match
//     case-sensitively, and unknown fields are ignored.
//   - Each rule added with [WithRule] may reject the plant with 400.
//   - A plant whose id is already stored is 400 with [CodeDuplicateID],
//     unless [WithAllowDuplicateIDs] is set.
//   - A plant that would take the store past [WithMaxPlants], or its
//     [Budget] past its limit, is 400 with [CodeStoreFull].
//
// Before these replies, a request whose journal entry the [Budget] of
// [WithBudget] has no room for is 400 with [CodeStoreFull], and is not
// recorded; then the rate limit of [WithRateLimit], an injected [Fault],
// [WithChaos] and the replay of a [Profile]'s Traffic, in this order, may
// take over; the request is still checked, for [Request.Invalid].
//
// A plant that passes is stored and answered with 200 and a Plant body:
// its name, and its tag when not empty, without the id.
//
// Every other reply has "Content-Type: application/json" and an [ErrorBody]
// body with both fields, unless [WithProfile] gives the 401s and the
// duplicate-id 400 as a deployment answers them (see [Profile]).
//
// # Fake time
//
// A client that retries as production does ([Server.ProductionClient])
// waits half a minute for a 503 with "Retry-After: 30". Inside a
// testing/synctest bubble (Go 1.25 or later) time is fake and such waits
// cost nothing, once the fake is served on an in-memory network
// ([WithInMemoryNetwork], whose example is such a test).
//
// On Go 1.27 or later, httptest.NewTestServer serves any handler in memory:
// mount a [Handler] there, as the example of [Handler] on NewTestServer
// shows. For a seeded, replayable timeline, give the client
// plantstore.WithRetryJitterSource too.
package plantstoretest

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/h2c"
)

// Server is a running fake Plant Store: a [Handler] served by an
// httptest.Server. It has every method of a Handler, which inspect and
// script the fake, but ServeHTTP and Close ([Server.Close] closes both). A
// Server is safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake with no trailing slash, such as
	// "http://127.0.0.1:port": https with [WithTLS], at [MemoryAddr] with
	// [WithInMemoryNetwork].
	URL string

	h         *Handler // the fake served
	tb        testing.TB
	token     string
	ts        *httptest.Server
	transport *http.Transport // shared by the clients Client returns
	closeOnce sync.Once
	// serving is read-locked by each request while h serves it, so that
	// Close can wait for them all: httptest.Server.Close waits for the
	// connections, but over HTTP/2 a request's handler runs apart from its
	// connection, and outlives it.
	serving sync.RWMutex
}

// NewServer starts a fake Plant Store on a loopback address (or, with
// [WithInMemoryNetwork], on an in-memory network) and registers a cleanup
// with tb that closes it ([Server.Close]) when the test ends, and then
// fails the test for every injected Fault that has replies left, as a mock
// reports an expected call that never came, naming the line that injected
// it (the first caller outside this package, which may be a test helper):
// "plantstoretest: injected Fault #1 (Status 503) at shop_test.go:42 was
// used 0 of 1 times".
//
// On Go 1.25 or later, these reports and those of the server's goroutines
// (a [Fault.Match] or [WithRule] rule that panicked, the lines of
// [WithLogging]) go through tb.Output, at the test's line that injected
// the Fault or called NewServer, in a synctest bubble too. On older Go,
// tb.Helper cannot reach the test from the server's goroutines: an unused
// Fault is reported at the line that called NewServer, the rest in this
// package.
//
// An invalid [Option] fails the test with tb.Fatalf, and so does a call
// inside a testing/synctest bubble without [WithInMemoryNetwork], or with
// [WithHTTP2] before Go 1.26.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	c := newConfig(opts)
	if err := c.check(); err != nil {
		tb.Fatalf("%v", err)
	}
	if inBubble := bubble.Inside(); inBubble && !c.inMemory {
		tb.Fatalf("%s", errLoopbackInBubble)
	} else if inBubble && c.http2 && !bubble.HTTP2 {
		tb.Fatalf("%s", errHTTP2InBubble)
	}
	c.tb, c.site = tb, callSite()
	h := newHandler(c)
	s := &Server{h: h, tb: tb, token: c.token}
	served := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serving.RLock()
		defer s.serving.RUnlock()
		h.ServeHTTP(w, r)
	})

	errorLog := log.New(io.Discard, "", 0)
	if c.logToTB {
		errorLog = log.New(tbWriter{h}, "plantstoretest: ", 0)
	}
	var ts *httptest.Server
	var mem *memListener
	if c.inMemory {
		// httptest.NewUnstartedServer would open a socket.
		mem = newMemListener()
		ts = &httptest.Server{Listener: mem, Config: &http.Server{Handler: served}}
	} else {
		ts = httptest.NewUnstartedServer(served)
	}
	ts.Config.ErrorLog = errorLog
	transport := startServer(ts, c.tls, c.http2)
	if mem != nil {
		mem.wire(transport)
	} else {
		// httptest's own client keeps 2 idle connections per host, so tests
		// that create from many goroutines would mostly measure dialling.
		transport.MaxIdleConnsPerHost = max(transport.MaxIdleConnsPerHost, 64)
	}
	s.URL, s.ts, s.transport = ts.URL, ts, transport
	tb.Cleanup(func() {
		tb.Helper() // so that the report points at the test's call of NewServer
		s.Close()
		h.reportUnused()
	})
	return s
}

// Client returns a new plantstore.Client for s: it uses s.URL, the token s
// accepts and [Server.HTTPClient], and retries after a backoff of 1ms to
// 10ms instead of the library's default, so tests of retries run fast in
// real time ([Server.ProductionClient] keeps the default). opts apply
// after these, so they win: a plantstore.WithHTTPClient replaces s's. If
// the client cannot be built, Client fails the test with tb.Fatalf.
func (s *Server) Client(opts ...plantstore.Option) *plantstore.Client {
	s.tb.Helper()
	backoff := plantstore.WithRetryBackoff(time.Millisecond, 10*time.Millisecond)
	return s.client("Client", append([]plantstore.Option{backoff}, opts...))
}

// Close shuts s down before the test ends, for tests of a server that goes
// away: it closes the Handler ([Handler.Close]), stops the listener and
// drops every connection, so a request in progress fails as against a
// server that died. It returns once every request's handler has returned.
// Requests sent after Close fail to connect. Close may be called more than
// once; the cleanup registered by [NewServer] calls it too.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.h.Close()
		// The listener first: on the in-memory network its Close drops the
		// connections (see memListener).
		s.ts.Listener.Close()
		// httptest.Server.Close waits for active connections, and one whose
		// body has stalled never finishes on its own.
		s.ts.CloseClientConnections()
		s.ts.Close()
		s.serving.Lock() // once every handler has returned
		s.transport.CloseIdleConnections()
		s.serving.Unlock()
	})
}

// tbWriter writes each line it is given to the test's log, at the test's
// line that called NewServer (see [Handler.report]).
type tbWriter struct{ h *Handler }

func (w tbWriter) Write(p []byte) (int, error) {
	w.h.report(w.h.site, false, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// errLoopbackInBubble is why NewServer refuses a loopback server inside a
// testing/synctest bubble.
const errLoopbackInBubble = "plantstoretest: NewServer inside a testing/synctest bubble needs WithInMemoryNetwork(): " +
	"a loopback socket never counts as durably blocked there, so the test would hang until go test's timeout " +
	"once fake time must advance (a Retry-After, a backoff)"

// errHTTP2InBubble is why NewServer refuses WithHTTP2 inside a bubble
// before Go 1.26.
const errHTTP2InBubble = "plantstoretest: WithHTTP2 inside a testing/synctest bubble needs Go 1.26 or later: " +
	"before it, net/http's HTTP/2 servers share a pool of channels, and one made outside the bubble " +
	"crashes the test binary; test HTTP/2 outside the bubble, or on Go 1.26"

// startServer starts ts, with TLS when useTLS is set and HTTP/2 beside HTTP/1.1
// when http2 is, and returns a copy of its client's transport, which
// speaks HTTP/2 when http2 is set.
func startServer(ts *httptest.Server, useTLS, http2 bool) *http.Transport {
	switch {
	case http2 && useTLS:
		ts.EnableHTTP2 = true
		ts.TLS = &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	case http2:
		h2c.Serve(ts.Config)
	}
	if useTLS {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	transport := ts.Client().Transport.(*http.Transport).Clone()
	if http2 && !useTLS {
		h2c.Speak(transport)
	}
	return transport
}
