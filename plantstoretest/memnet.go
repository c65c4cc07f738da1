package plantstoretest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// memoryAddr is the only address on the in-memory network (see
// WithInMemoryNetwork).
const memoryAddr = "127.0.0.1:1"

// WithInMemoryNetwork makes [NewServer] serve on an in-memory network of
// its own instead of a loopback socket, so that the fake works inside a
// testing/synctest bubble, where time is fake and a socket would hang the
// test (there, NewServer without it fails the test). The address is
// 127.0.0.1:1: loopback, which plantstore.NewClient takes without
// WithInsecureHTTP, at a port where nothing listens, so that other clients
// fail to connect. Only the Server's clients ([Server.Client],
// [Server.ProductionClient], [Server.HTTPClient]) reach it. Call NewServer
// inside the function given to synctest.Test, so that its goroutines and
// timers belong to the bubble. Every feature works there, [WithTLS]
// included; [WithRateLimit]'s clock is the bubble's.
//
// Under the race detector on Go 1.25 and 1.26, a bubble whose goroutines
// fire timers at the same instant on two threads can crash the runtime
// (SIGSEGV in runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK
// failed"), as a client retrying in many goroutines does: a Go bug, fixed
// in Go 1.27. Run such tests with go test -race -cpu 1 there.
//
// Outside a bubble it works in real time, with no port to allocate. Keep
// the loopback default when more than the Server's clients must reach the
// fake: another process, a transport that cannot be replaced, a test of
// dialling or socket errors. [NewHandler] refuses it.
func WithInMemoryNetwork() Option {
	return func(c *config) {
		c.inMemory = true
		c.serverOnly = append(c.serverOnly, "WithInMemoryNetwork")
	}
}

// memListener is a net.Listener on an in-memory network: each connection
// is a net.Pipe, which synctest counts as durably blocked; dial is the
// other side of Accept. Close drops the connections itself: under TLS the
// http.Server would first write a close_notify, which on a net.Pipe waits
// 5 seconds for a client that is not reading.
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

// errMemClosed fails a dial once the listener is closed, as a connection
// to a server that has gone away is refused.
var errMemClosed = errors.New("plantstoretest: connection refused: the in-memory server is closed")

// Accept returns the server's end of the next dial's connection, or
// net.ErrClosed once l is closed.
func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close fails Accept and later dials, and drops every connection, with no
// TLS close_notify.
func (l *memListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		c.Conn.Close()
	}
	return nil
}

// Addr returns memoryAddr.
func (l *memListener) Addr() net.Addr { return memAddr(memoryAddr) }

// dial connects to l, as a transport's DialContext, at memoryAddr only. A
// failure is a *net.OpError with Op "dial", as a refused connection is, so
// clients know nothing was sent.
func (l *memListener) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	fail := func(err error) error {
		return &net.OpError{Op: "dial", Net: network, Addr: memAddr(addr), Err: err}
	}
	if addr != memoryAddr {
		return nil, fail(errors.New("plantstoretest: the in-memory network has only " + memoryAddr + " (the Server's URL)"))
	}
	c, s := net.Pipe()
	client := &memConn{Conn: c, local: memAddr("memory-client"), remote: memAddr(memoryAddr)}
	server := &memConn{Conn: s, local: memAddr(memoryAddr), remote: memAddr("memory-client"), l: l}
	l.mu.Lock()
	l.open[server] = struct{}{}
	l.mu.Unlock()
	var err error
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		err = errMemClosed
	case <-ctx.Done():
		err = ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, fail(err)
}

// memConn is one end of a net.Pipe with the in-memory network's addresses.
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

// wire makes transport, a copy of an httptest.Server's client's, dial l.
func (l *memListener) wire(transport *http.Transport) {
	transport.Proxy = nil // a proxy from the environment would be dialled instead
	transport.DialContext = l.dial
	transport.DialTLSContext = nil
	// An idle in-memory connection costs two goroutines and no socket:
	// keep enough that a storm of concurrent calls reuses them.
	transport.MaxIdleConnsPerHost = 256
}
