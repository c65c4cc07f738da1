// Package plantstoretest serves a fake Plant Store API for tests of code that
// uses package plantstore.
//
// [NewServer] starts the fake and closes it when the test ends;
// [Server.Client] returns a client wired to it:
//
//	func TestShop(t *testing.T) {
//		srv := plantstoretest.NewServer(t)
//		shop := NewShop(srv.Client())
//		// … exercise shop, then inspect srv.Plants() and srv.Requests().
//	}
//
// Tests read the stored plants ([Handler.Plants]) and the journal of what
// arrived and what became of it ([Handler.Requests]), script failures with
// [Handler.Inject] (a [Fault]) and start from given plants ([WithPlants],
// [Handler.Seed]). [Explore] searches schedules of faults for one under
// which the caller's own code fails, and hands over the smallest
// ([WithSchedule]). Each server owns its state, so parallel tests do not
// interfere, and prints nothing unless asked ([WithLogging]). [Handler] is
// the fake as an http.Handler; cmd/plantstore-mock serves it over the
// network.
//
// The fake is not the real service: it keeps plants in memory, serves only
// POST /plants, accepts one token that never expires, and its error codes
// ([CodeInvalidJSON] and the rest) are its own. Package
// plantstoretest/conformance shows where a deployment answers differently,
// and [WithProfile] makes the fake answer as it does.
//
// # How a request is answered
//
// Each request is checked in this order, and the first failure is the reply:
//
//   - A path that is not /plants is 404 with [CodeNotFound] (/plants/ and
//     /plants/1 too; each segment is decoded once, so /pl%61nts is /plants
//     and /plants%2F is not); another method on it is 405 with "Allow:
//     POST" and [CodeMethodNotAllowed].
//   - A missing or malformed Authorization header, or another token, is 401
//     with [CodeUnauthorized] and WWW-Authenticate: Bearer
//     realm="plantstore", with error="invalid_request" for a malformed
//     header and error="invalid_token" for a wrong token (RFC 6750). The
//     scheme matches in any case; the token is compared in constant time.
//   - A Content-Type other than application/json (charset utf-8, if any)
//     is 400 with [CodeContentType]: the specification answers every failed
//     create with 400, never 415.
//   - A body over 1 MiB is 400 with [CodeTooLarge], and is read no further.
//   - The body must be one JSON object in UTF-8, with no repeated field
//     names, not deeply nested; otherwise 400 with [CodeInvalidJSON].
//   - The object must be a NewPlant; otherwise 400 with [CodeInvalidPlant]:
//     "id" an integer literal that fits in int64 ("1", 1.5, 1.0 and 1e3
//     are refused), "name" a non-empty string, "tag" a string if present,
//     not null; no unpaired surrogate escape such as "\ud800". Names match
//     case-sensitively; unknown fields are ignored.
//   - Each rule of [WithRule] may refuse the plant with 400.
//   - An id already stored is 400 with [CodeDuplicateID], unless
//     [WithAllowDuplicateIDs]; a plant past [WithMaxPlants] or its [Budget]
//     is 400 with [CodeStoreFull].
//
// Before these checks, a full [Budget] or a [Fault] may answer the request
// instead, as each says.
//
// A plant that passes is stored and answered with 200 and a Plant body.
// Every other reply is "Content-Type: application/json" with an
// [ErrorBody], unless [WithProfile] says otherwise.
//
// # Fake time
//
// [Server.ProductionClient] waits half a minute for a 503 with
// "Retry-After: 30", as production does. In a testing/synctest bubble (Go
// 1.25 or later), with [WithInMemoryNetwork], such waits cost nothing; on
// Go 1.27, httptest.NewTestServer serves a [Handler] in memory too. Give
// the client plantstore.WithRetryJitterSource for a replayable timeline.
package plantstoretest

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/h2c"
	"github.com/plantstore/plantstore-go/internal/memnet"
)

// Server is a running fake Plant Store: a [Handler] served by an
// httptest.Server. The Handler's methods inspect and script the fake;
// [Server.Close] closes both. A Server is safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake with no trailing slash, such as
	// "http://127.0.0.1:port": https with [WithTLS], an address that is
	// never dialled with [WithInMemoryNetwork].
	URL string

	*Handler // the fake served

	ts        *httptest.Server
	transport *http.Transport // shared by the clients Client returns
	closeOnce sync.Once
	closed    atomic.Bool // set when Close begins
	// serving is read-locked by each request while h serves it, so that Close
	// can wait for them: over HTTP/2 a handler outlives its connection.
	serving sync.RWMutex
}

// NewServer starts a fake Plant Store on a loopback address (or in memory:
// [WithInMemoryNetwork]) and closes it ([Server.Close]) when the test ends,
// then fails the test for each injected [Fault] with replies left, at the
// line that injected it. On Go 1.25 or later, these reports and those of
// the server's goroutines (a panicking [Fault.Match] or [WithRule] rule,
// [WithLogging]'s lines) point at the test's line; before, at the line that
// called NewServer.
func NewServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	c := newConfig(opts)
	if inBubble := bubble.Inside(); inBubble && !c.inMemory {
		tb.Fatalf("plantstoretest: NewServer inside a testing/synctest bubble needs WithInMemoryNetwork(): " +
			"a loopback socket never counts as durably blocked there, so the test would hang until go test's timeout " +
			"once fake time must advance (a Retry-After, a backoff)")
	} else if inBubble && c.http2 && !bubble.HTTP2 {
		tb.Fatalf("plantstoretest: WithHTTP2 inside a testing/synctest bubble needs Go 1.26 or later: " +
			"before it, net/http's HTTP/2 servers share a pool of channels, and one made outside the bubble " +
			"crashes the test binary; test HTTP/2 outside the bubble, or on Go 1.26")
	}
	c.tb, c.site = tb, callSite()
	h := newHandler(c)
	s := &Server{Handler: h}

	var ts *httptest.Server
	var mem *memnet.Listener
	if c.inMemory {
		// httptest.NewUnstartedServer would open a socket.
		mem = memnet.Listen()
		ts = &httptest.Server{Listener: mem, Config: &http.Server{Handler: s}}
	} else {
		ts = httptest.NewUnstartedServer(s)
	}
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	if c.logToTB {
		ts.Config.ErrorLog = log.New(tbWriter{h}, "plantstoretest: ", 0)
	}
	transport := startServer(ts, c.tls, c.http2)
	if mem != nil {
		mem.Wire(transport)
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

// Client returns a new plantstore.Client for s: s.URL, s's token and
// [Server.HTTPClient], with a backoff of 1ms to 10ms so that tests of
// retries run fast ([Server.ProductionClient] keeps the default). Its
// errors match plantstore.ErrAlreadyExists for the fake's answer to a
// repeated id (400 with [CodeDuplicateID], or the [Profile]'s), so
// EnsurePlant works. opts apply last and win. If the client cannot be
// built, Client fails the test.
func (s *Server) Client(opts ...plantstore.Option) *plantstore.Client {
	s.cfg.tb.Helper()
	backoff := plantstore.WithRetryBackoff(time.Millisecond, 10*time.Millisecond)
	return s.client("Client", append([]plantstore.Option{backoff}, opts...))
}

// Close shuts s down before the test ends, as a server that dies: it closes
// the Handler ([Handler.Close]) and the listener and drops every
// connection, then returns once every request's handler has returned.
// Later requests fail to connect, or, in a server s is mounted in, get
// [Server.ServeHTTP]'s 503. Close may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.Handler.Close()
		// The listener first: on the in-memory network its Close drops the
		// connections (see memnet.Listener).
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

// ServeHTTP serves r with the Handler, for s's listener and for a server s
// is mounted in; once [Server.Close] has begun, it stores nothing and
// answers 503 with [CodeClosed], as a front end answers for a back end
// that is gone.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.serving.RLock()
	defer s.serving.RUnlock()
	if s.closed.Load() {
		b, _ := json.Marshal(ErrorBody{Code: CodeClosed, Message: "the fake was closed (Server.Close) and stores nothing more"})
		writeRaw(w, http.StatusServiceUnavailable, nil, b)
		return
	}
	s.Handler.ServeHTTP(w, r)
}

// tbWriter writes each line to the test's log, at the test's line that
// called NewServer.
type tbWriter struct{ h *Handler }

func (w tbWriter) Write(p []byte) (int, error) {
	w.h.report(w.h.cfg.site, false, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// startServer starts ts, with TLS and HTTP/2 as asked, and returns a copy of
// its client's transport, speaking HTTP/2 when http2 is set.
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
