// Package memnet is the in-memory network of plantstoretest's
// WithInMemoryNetwork: one server address, connections that are
// net.Pipes, which a testing/synctest bubble counts as durably blocked
// where a loopback socket never is.
package memnet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// Addr is the only address on a network. It is on loopback, which
// plantstore.NewClient takes without WithInsecureHTTP, at port 1, where
// nothing listens, so that a client not wired to the network fails to
// connect.
const Addr = "127.0.0.1:1"

// ClientAddr is the address of every client's end: a request's RemoteAddr
// on the in-memory network.
const ClientAddr = "memory-client"

// ErrRefused fails a dial once the listener is closed, as a connection to
// a server that has gone away is refused.
var ErrRefused = errors.New("plantstoretest: connection refused: the in-memory server is closed")

// A Listener is a net.Listener on a network of its own; Dial is the other
// side of Accept. Close drops the connections itself: under TLS the
// http.Server would first write a close_notify, which on a net.Pipe waits
// 5 seconds for a client that is not reading.
type Listener struct {
	conns     chan net.Conn // unbuffered: a dial returns once Accept has its end
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	mu        sync.Mutex
	open      map[*conn]struct{} // the server's ends not closed yet
}

// Listen returns a Listener on a new network.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{}), open: map[*conn]struct{}{}}
}

// Accept returns the server's end of the next dial's connection, or
// net.ErrClosed once l is closed.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close fails Accept and later dials, and drops every connection, with no
// TLS close_notify.
func (l *Listener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		c.Conn.Close()
	}
	return nil
}

// Addr returns [Addr].
func (l *Listener) Addr() net.Addr { return addr(Addr) }

// Dial connects to l, as a transport's DialContext, at [Addr] only. A
// failure is a *net.OpError with Op "dial", as a refused connection is, so
// clients know nothing was sent.
func (l *Listener) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	fail := func(err error) error {
		return &net.OpError{Op: "dial", Net: network, Addr: addr(address), Err: err}
	}
	if address != Addr {
		return nil, fail(errors.New("plantstoretest: the in-memory network has only " + Addr + " (the Server's URL)"))
	}
	c, s := net.Pipe()
	client := &conn{Conn: c, local: addr(ClientAddr), remote: addr(Addr)}
	server := &conn{Conn: s, local: addr(Addr), remote: addr(ClientAddr), l: l}
	l.mu.Lock()
	l.open[server] = struct{}{}
	l.mu.Unlock()
	var err error
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		err = ErrRefused
	case <-ctx.Done():
		err = ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, fail(err)
}

// Wire makes transport, a copy of an httptest.Server's client's, dial l.
func (l *Listener) Wire(transport *http.Transport) {
	transport.Proxy = nil // a proxy from the environment would be dialled instead
	transport.DialContext = l.Dial
	transport.DialTLSContext = nil
	// An idle in-memory connection costs two goroutines and no socket:
	// keep enough that a storm of concurrent calls reuses them.
	transport.MaxIdleConnsPerHost = 256
}

// conn is one end of a net.Pipe with the network's addresses.
type conn struct {
	net.Conn
	local, remote net.Addr
	l             *Listener // on the server's end: the listener that keeps it in open
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// Close closes c, and forgets it in its listener.
func (c *conn) Close() error {
	if c.l != nil {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
	}
	return c.Conn.Close()
}

// addr is an address on the network.
type addr string

func (a addr) Network() string { return "memory" }
func (a addr) String() string  { return string(a) }
