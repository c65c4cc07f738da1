package plantstoretest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// MemoryAddr is the address of a [Server] started with [WithInMemoryNetwork]:
// its URL is "http://" + MemoryAddr (or "https://" + MemoryAddr with
// [WithTLS]). It is a loopback address so that plantstore.NewClient takes it
// without plantstore.WithInsecureHTTP, and port 1 so that a client that is
// not wired to the in-memory network fails to connect rather than reaching
// a real server: no ordinary server listens on port 1. Every in-memory
// Server has this address; each is reached only through its own clients.
const MemoryAddr = "127.0.0.1:1"

// WithInMemoryNetwork makes [NewServer] serve on an in-memory network of its
// own instead of a loopback socket, so that the fake works inside a
// testing/synctest bubble (Go 1.25 and later), where a wait of 30 seconds
// costs no time. Loopback sockets never count as durably blocked there, so a
// loopback Server would make synctest.Test hang once fake time must advance;
// inside a bubble NewServer without this option fails the test at once,
// with a message that names it.
//
// Only these clients reach the in-memory network: [Server.Client],
// [Server.ProductionClient], and an http.Client from [Server.HTTPClient],
// which code that builds its own plantstore.Client takes with
// plantstore.WithHTTPClient(srv.HTTPClient()), or whose Transport it wraps.
// Server.URL is then "http://127.0.0.1:1" ([MemoryAddr]), and those clients
// dial the in-memory listener when they connect to that address; to any
// other address they fail to connect. http.DefaultClient, or a client with
// a transport of its own, does not reach the fake: it dials the real port 1,
// where nothing listens.
//
// Call NewServer inside the bubble (inside the function given to
// synctest.Test), so that its goroutines, channels and timers belong to it:
// then its cleanup runs inside the bubble too, and closes every connection,
// so synctest.Test finds no goroutine left behind. Every feature of the fake
// works there: each kind of [Fault], [WithRateLimit] (its clock is the
// bubble's) and [WithChaos]. With [WithTLS] the server speaks TLS over the
// in-memory network, with the certificate that Server.Client trusts, and
// Server.URL starts with "https://".
//
// Under the race detector on Go 1.25 and 1.26, a bubble whose goroutines
// fire timers at the same instant on two threads can crash the runtime
// (SIGSEGV in runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK
// failed"), and a client retrying in many goroutines at once does so: the
// Go runtime's bug, fixed in Go 1.27, not this package's. Run such tests
// with GOMAXPROCS 1 there (go test -race -cpu 1, or runtime.GOMAXPROCS(1)
// while they run).
//
// The option works outside a bubble too, in real time, with no port to
// allocate. The loopback default is still what to use when the fake
// must be reached by something other than a client from the Server: a
// client whose transport cannot be replaced, another process (curl, a
// program under test started with exec), or a test of real network
// behaviour such as dialling, proxies or socket errors.
//
// [NewHandler], which has no listener, refuses this option (it panics); to
// serve a Handler in memory on Go 1.27 or later, mount it in
// httptest.NewTestServer, as the package documentation shows.
func WithInMemoryNetwork() Option {
	return func(c *config) {
		c.inMemory = true
		c.serverOnly = append(c.serverOnly, "WithInMemoryNetwork")
	}
}

// memListener is a net.Listener on an in-memory network: each connection
// is a net.Pipe, whose ends block on channels only, which synctest counts
// as durably blocked, and buffer nothing: a Write waits for the peer's
// Read, so a peer that stops reading holds no memory. Its dial method is
// the other side of Accept.
//
// Because a Write waits for the peer, Close drops the connections it made
// itself rather than leave them to the http.Server: under TLS, closing a
// connection writes a close_notify first, which on a net.Pipe would wait
// up to 5 seconds for a client that is not reading (one that holds a
// response's body unread), where a socket's buffer takes it at once.
type memListener struct {
	conns     chan net.Conn // unbuffered: a dial returns once Accept has its end
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	mu        sync.Mutex
	open      map[*memConn]struct{} // the server's ends not closed yet
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan net.Conn), done: make(chan struct{}), open: map[*memConn]struct{}{}}
}

// errMemClosed is why a dial fails once the listener is closed: as a real
// connection to a server that has gone away is refused.
var errMemClosed = errors.New("plantstoretest: connection refused: the in-memory server is closed")

// Accept waits for the next dial and returns the server's end of its
// connection; once l is closed it returns net.ErrClosed.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops l: Accept and later dials fail, and every connection made on
// l is dropped, with no TLS close_notify (see memListener).
func (l *memListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		c.Conn.Close()
	}
	return nil
}

// Addr returns [MemoryAddr].
func (l *memListener) Addr() net.Addr { return memAddr(MemoryAddr) }

// dial connects to l, as a transport's DialContext: addr must be
// [MemoryAddr], the only address on l's network. A failure is a
// *net.OpError with Op "dial", as a real refused connection is, so that
// clients know nothing was sent.
func (l *memListener) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	fail := func(err error) error {
		return &net.OpError{Op: "dial", Net: network, Addr: memAddr(addr), Err: err}
	}
	if addr != MemoryAddr {
		return nil, fail(errors.New("plantstoretest: the in-memory network has only " + MemoryAddr + " (the Server's URL)"))
	}
	c, s := net.Pipe()
	client := &memConn{Conn: c, local: memAddr("memory-client"), remote: memAddr(MemoryAddr)}
	server := &memConn{Conn: s, local: memAddr(MemoryAddr), remote: memAddr("memory-client"), l: l}
	l.mu.Lock()
	l.open[server] = struct{}{}
	l.mu.Unlock()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		client.Close()
		server.Close()
		return nil, fail(errMemClosed)
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, fail(ctx.Err())
	}
}

// memConn is one end of a net.Pipe with the in-memory network's addresses
// instead of net.Pipe's "pipe".
type memConn struct {
	net.Conn
	local, remote net.Addr
	l             *memListener // on the server's end: the listener that keeps it in open
}

func (c *memConn) LocalAddr() net.Addr  { return c.local }
func (c *memConn) RemoteAddr() net.Addr { return c.remote }

// Close closes c, and forgets it in its listener.
func (c *memConn) Close() error {
	if c.l != nil {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
	}
	return c.Conn.Close()
}

// memAddr is an address on the in-memory network.
type memAddr string

func (a memAddr) Network() string { return "memory" }
func (a memAddr) String() string  { return string(a) }

// startInMemory starts an httptest.Server for h on a new in-memory
// listener, with TLS when tls is set, and returns it and a copy of its
// client's transport that dials the listener. No socket is opened:
// httptest.NewUnstartedServer would open one, so the Server is built by
// hand, as its documentation allows.
func startInMemory(h http.Handler, tls bool, configure func(*http.Server)) (*httptest.Server, *http.Transport) {
	l := newMemListener()
	ts := &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	configure(ts.Config)
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	transport := ts.Client().Transport.(*http.Transport).Clone()
	transport.Proxy = nil // a proxy from the environment would be dialled instead
	transport.DialContext = l.dial
	transport.DialTLSContext = nil
	// An idle in-memory connection costs two goroutines and no socket:
	// keep enough that a storm of concurrent calls reuses them.
	transport.MaxIdleConnsPerHost = 256
	return ts, transport
}
