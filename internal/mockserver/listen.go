package mockserver

import (
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// DefaultMaxConns is the default bound on concurrent connections: far more
// than a test suite opens, and few enough that stalled connections cannot
// exhaust the process's file descriptors or memory.
const DefaultMaxConns = 1000

// LimitListener returns a Listener that holds at most n connections open at
// once. When n are open, Accept waits until one closes; the connections
// waiting meanwhile queue in the kernel's backlog, and are served in turn
// (or time out at the client). n must be at least 1.
//
// A connection counts from the moment Accept returns it until its Close,
// which may be called more than once.
func LimitListener(l net.Listener, n int) net.Listener {
	if n < 1 {
		panic("mockserver: LimitListener needs n >= 1, got " + strconv.Itoa(n))
	}
	return &limitListener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{} // one token per open connection
	done      chan struct{} // closed by Close, so a waiting Accept returns
	closeOnce sync.Once
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
}

// Close closes the listener and wakes an Accept waiting for a slot.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn gives its slot back when it is first closed.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// LimitRequests returns a handler that serves at most n requests at once
// with h, so that [LimitListener]'s bound on connections bounds the requests
// in flight over HTTP/2 too, where a connection carries many streams, each
// holding its body. A request beyond the bound waits for a slot, and gives
// up when its client does; meanwhile its body waits in the connection's
// flow-control window (which h2c.Bound sets). n must be at least 1.
func LimitRequests(h http.Handler, n int) http.Handler {
	if n < 1 {
		panic("mockserver: LimitRequests needs n >= 1, got " + strconv.Itoa(n))
	}
	sem := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case sem <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		defer func() { <-sem }()
		h.ServeHTTP(w, r)
	})
}

// ClientURL is the http URL a client on this machine can use to reach a
// listener at addr (a net.Addr's String, or an -addr): an unspecified
// address (0.0.0.0, or [::] as "-addr :0" gives) becomes a loopback one by
// [wire.DialHost].
func ClientURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	return "http://" + net.JoinHostPort(wire.DialHost(host), port)
}

// IsLoopback reports whether addr, a listener's address, accepts
// connections only from this machine: a loopback IP such as 127.0.0.1 or
// ::1. An unspecified address (0.0.0.0, [::]) listens on every interface and
// is not loopback; nor is an address that is not a TCP IP address.
func IsLoopback(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	return err == nil && wire.IsLoopbackHost(host)
}
