package plantstoretest

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// memBufSize is how many bytes one direction of an in-memory connection
// holds that its reader has not taken yet. A writer that would go beyond it
// waits until the reader takes some, as on a socket whose buffers are full,
// so a peer that stops reading holds at most this much per connection and
// direction (the slice may reach twice this while it grows).
const memBufSize = 64 << 10

// memKeepSize is the largest buffer a direction keeps once its reader has
// drained it: enough for a request or response of the fake, so that an
// idle connection in a transport's pool holds little.
const memKeepSize = 4 << 10

// memPipe is one direction of an in-memory connection: the bytes the
// writing end has written and the reading end has not read yet.
//
// Waiting is on channels only, never on a sync.Cond or on a lock held
// across a wait, because testing/synctest counts a goroutine blocked on a
// channel of its bubble as durably blocked and one waiting on a Cond or a
// Mutex as not: the bubble's clock could not move. readable and writable
// hold at most one token each: a change that may let a waiting reader
// (writer) go on puts one there without blocking, and a waiter that wakes
// checks the state again under mu, so a token is never lost and a stale one
// only costs a second look.
type memPipe struct {
	mu       sync.Mutex
	data     []byte // data[off:] is unread
	off      int
	wclosed  bool // the writing end is closed: the reader gets io.EOF once data is drained
	rclosed  bool // the reading end is closed: writes fail, unread data is dropped
	readable chan struct{}
	writable chan struct{}
}

func newMemPipe() *memPipe {
	return &memPipe{readable: make(chan struct{}, 1), writable: make(chan struct{}, 1)}
}

// signal puts a token in ch unless one is there already.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// memConn is one end of an in-memory connection, a net.Conn. Writes go
// into a buffer of the peer's (bounded by memBufSize) and return once
// copied there, so a request or response of a few KiB costs no hand-off
// between goroutines until the other end reads it, unlike net.Pipe, whose
// every Write waits for a Read. It behaves as net.Pipe does otherwise:
// after Close, its own Read and Write fail with io.ErrClosedPipe; the
// peer's Read returns what was written before the Close and then io.EOF,
// and the peer's Write fails with io.ErrClosedPipe; a deadline that passes
// fails Read or Write with os.ErrDeadlineExceeded, a net.Error whose
// Timeout is true, also one already waiting. Deadlines run on time's
// timers, so inside a testing/synctest bubble they pass in fake time.
type memConn struct {
	rx, tx        *memPipe      // rx: the peer writes, c reads; tx: the other way
	done          chan struct{} // closed by Close
	closeOnce     sync.Once
	rdl, wdl      *memDeadline
	local, remote net.Addr
}

// newMemConns returns the two ends of a new in-memory connection, with a's
// address and b's.
func newMemConns(a, b net.Addr) (*memConn, *memConn) {
	ab, ba := newMemPipe(), newMemPipe()
	ca := &memConn{rx: ba, tx: ab, done: make(chan struct{}), rdl: newMemDeadline(), wdl: newMemDeadline(), local: a, remote: b}
	cb := &memConn{rx: ab, tx: ba, done: make(chan struct{}), rdl: newMemDeadline(), wdl: newMemDeadline(), local: b, remote: a}
	return ca, cb
}

// Read reads what the peer has written, waiting for at least one byte
// unless the peer has closed (io.EOF), c is closed (io.ErrClosedPipe) or
// the read deadline passes (os.ErrDeadlineExceeded).
func (c *memConn) Read(b []byte) (int, error) {
	p := c.rx
	for {
		if isClosed(c.done) {
			return 0, io.ErrClosedPipe
		}
		if isClosed(c.rdl.wait()) {
			return 0, os.ErrDeadlineExceeded
		}
		p.mu.Lock()
		if unread := len(p.data) - p.off; unread > 0 || len(b) == 0 {
			n := copy(b, p.data[p.off:])
			p.off += n
			if p.off == len(p.data) {
				// Drained: keep a small slice for the next exchange, not a
				// large one for an idle connection.
				if cap(p.data) > memKeepSize {
					p.data, p.off = nil, 0
				} else {
					p.data, p.off = p.data[:0], 0
				}
			} else {
				signal(p.readable) // for another reader
			}
			signal(p.writable)
			p.mu.Unlock()
			return n, nil
		}
		if p.wclosed {
			signal(p.readable) // for another reader
			p.mu.Unlock()
			return 0, io.EOF
		}
		p.mu.Unlock()
		select {
		case <-p.readable:
		case <-c.done:
		case <-c.rdl.wait():
		}
	}
}

// Write copies b into the peer's buffer, waiting while it is full; it
// returns once all of b is there, or with how much was, when c is closed
// or the peer is (io.ErrClosedPipe), or the write deadline passes
// (os.ErrDeadlineExceeded).
func (c *memConn) Write(b []byte) (int, error) {
	p := c.tx
	n := 0
	for {
		if isClosed(c.done) {
			return n, io.ErrClosedPipe
		}
		if isClosed(c.wdl.wait()) {
			return n, os.ErrDeadlineExceeded
		}
		p.mu.Lock()
		if p.rclosed {
			p.mu.Unlock()
			return n, io.ErrClosedPipe
		}
		if len(b) == 0 {
			p.mu.Unlock()
			return n, nil
		}
		if space := memBufSize - (len(p.data) - p.off); space > 0 {
			k := min(space, len(b))
			if p.off > 0 && len(p.data)+k > cap(p.data) {
				// Move the unread bytes to the front rather than grow.
				p.data = p.data[:copy(p.data, p.data[p.off:])]
				p.off = 0
			}
			p.data = append(p.data, b[:k]...)
			b, n = b[k:], n+k
			signal(p.readable)
			if space > k {
				signal(p.writable) // for another writer
			}
			p.mu.Unlock()
			continue
		}
		p.mu.Unlock()
		select {
		case <-p.writable:
		case <-c.done:
		case <-c.wdl.wait():
		}
	}
}

// Close closes c: its own Read and Write, waiting or not, fail with
// io.ErrClosedPipe; the peer reads what c wrote and then io.EOF, and its
// writes fail. Bytes the peer wrote that c has not read are dropped. A
// second Close does nothing and returns nil.
func (c *memConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.tx.mu.Lock()
		c.tx.wclosed = true
		signal(c.tx.readable)
		c.tx.mu.Unlock()
		c.rx.mu.Lock()
		c.rx.rclosed = true
		c.rx.data, c.rx.off = nil, 0
		signal(c.rx.writable)
		c.rx.mu.Unlock()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr  { return c.local }
func (c *memConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets both deadlines; see net.Conn. It fails with
// io.ErrClosedPipe once c is closed.
func (c *memConn) SetDeadline(t time.Time) error {
	if isClosed(c.done) {
		return io.ErrClosedPipe
	}
	c.rdl.set(t)
	c.wdl.set(t)
	return nil
}

// SetReadDeadline sets the read deadline; see net.Conn.
func (c *memConn) SetReadDeadline(t time.Time) error {
	if isClosed(c.done) {
		return io.ErrClosedPipe
	}
	c.rdl.set(t)
	return nil
}

// SetWriteDeadline sets the write deadline; see net.Conn.
func (c *memConn) SetWriteDeadline(t time.Time) error {
	if isClosed(c.done) {
		return io.ErrClosedPipe
	}
	c.wdl.set(t)
	return nil
}

// memDeadline is a deadline of a memConn: a channel that is closed when it
// passes, by a time.AfterFunc timer (a fake one in a synctest bubble).
type memDeadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{} // closed when the deadline passes; replaced when it moves
}

func newMemDeadline() *memDeadline { return &memDeadline{cancel: make(chan struct{})} }

// set moves the deadline to t; the zero t means none.
func (d *memDeadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer has fired: wait until its func has closed cancel
	}
	d.timer = nil
	expired := isClosed(d.cancel)
	if t.IsZero() {
		if expired {
			d.cancel = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if expired {
			d.cancel = make(chan struct{})
		}
		ch := d.cancel
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	if !expired {
		close(d.cancel)
	}
}

// wait returns a channel that is closed once the deadline has passed.
func (d *memDeadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancel
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
