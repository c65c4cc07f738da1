//go:build go1.25

package plantstoretest

import (
	"errors"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// TestMemConnWaitersInBubble checks a Read or Write that waits, inside a
// synctest bubble: synctest.Wait returns while it waits, so its wait is
// durable (a wait on a sync.Cond or a Mutex would hang the test here), and
// then what ends the wait ends it with the right result: a Close of either
// end, data or room arriving, or a deadline, which passes in fake time at
// exactly its instant.
func TestMemConnWaitersInBubble(t *testing.T) {
	t.Parallel()
	big := make([]byte, memBufSize+1) // a write that waits for a reader
	read := func(c *memConn) (int, error) { return c.Read(make([]byte, 8)) }
	for _, tt := range []struct {
		name        string
		setup       func(a *memConn) // before the op
		op          func(a, b *memConn) (int, error)
		end         func(a, b *memConn) // while op waits
		wantN       int
		wantErr     error
		wantElapsed time.Duration
	}{
		{name: "own Read, Close", op: func(a, _ *memConn) (int, error) { return read(a) },
			end: func(a, _ *memConn) { a.Close() }, wantErr: io.ErrClosedPipe},
		{name: "own Write, Close", op: func(a, _ *memConn) (int, error) { return a.Write(big) },
			end: func(a, _ *memConn) { a.Close() }, wantN: memBufSize, wantErr: io.ErrClosedPipe},
		{name: "peer's Read, Close", op: func(_, b *memConn) (int, error) { return read(b) },
			end: func(a, _ *memConn) { a.Close() }, wantErr: io.EOF},
		{name: "peer's Write, Close", op: func(_, b *memConn) (int, error) { return b.Write(big) },
			end: func(a, _ *memConn) { a.Close() }, wantN: memBufSize, wantErr: io.ErrClosedPipe},
		{name: "Read, data arrives", op: func(a, _ *memConn) (int, error) { return read(a) },
			end: func(_, b *memConn) { b.Write([]byte("hi")) }, wantN: 2},
		{name: "Write, room arrives", op: func(a, _ *memConn) (int, error) { return a.Write(big) },
			end: func(_, b *memConn) { b.Read(make([]byte, 1)) }, wantN: memBufSize + 1},
		{name: "Read, read deadline", setup: func(a *memConn) { a.SetReadDeadline(time.Now().Add(5 * time.Second)) },
			op: func(a, _ *memConn) (int, error) { return read(a) }, wantErr: os.ErrDeadlineExceeded, wantElapsed: 5 * time.Second},
		{name: "Write, write deadline", setup: func(a *memConn) { a.SetWriteDeadline(time.Now().Add(5 * time.Second)) },
			op: func(a, _ *memConn) (int, error) { return a.Write(big) }, wantN: memBufSize, wantErr: os.ErrDeadlineExceeded, wantElapsed: 5 * time.Second},
		{name: "Read, SetDeadline", setup: func(a *memConn) { a.SetDeadline(time.Now().Add(time.Minute)) },
			op: func(a, _ *memConn) (int, error) { return read(a) }, wantErr: os.ErrDeadlineExceeded, wantElapsed: time.Minute},
		{name: "Read, read deadline moved earlier", setup: func(a *memConn) { a.SetReadDeadline(time.Now().Add(time.Hour)) },
			op:  func(a, _ *memConn) (int, error) { return read(a) },
			end: func(a, _ *memConn) { a.SetReadDeadline(time.Now().Add(2 * time.Second)) }, wantErr: os.ErrDeadlineExceeded, wantElapsed: 2 * time.Second},
		{name: "Read, read deadline moved to the past", setup: func(a *memConn) { a.SetReadDeadline(time.Now().Add(time.Hour)) },
			op:  func(a, _ *memConn) (int, error) { return read(a) },
			end: func(a, _ *memConn) { a.SetReadDeadline(time.Now().Add(-time.Second)) }, wantErr: os.ErrDeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				a, b := newMemConns(memAddr("a"), memAddr("b"))
				defer b.Close()
				defer a.Close()
				if tt.setup != nil {
					tt.setup(a)
				}
				start := time.Now()
				type result struct {
					n       int
					err     error
					elapsed time.Duration
				}
				done := make(chan result, 1)
				go func() {
					n, err := tt.op(a, b)
					done <- result{n, err, time.Since(start)}
				}()
				synctest.Wait() // returns once op waits durably
				select {
				case r := <-done:
					t.Fatalf("returned %d, %v without waiting", r.n, r.err)
				default:
				}
				if tt.end != nil {
					tt.end(a, b)
				}
				r := <-done
				if r.n != tt.wantN || !errors.Is(r.err, tt.wantErr) || (tt.wantErr == nil && r.err != nil) {
					t.Errorf("= %d, %v; want %d, %v", r.n, r.err, tt.wantN, tt.wantErr)
				}
				if tt.wantErr == os.ErrDeadlineExceeded && !isTimeout(r.err) {
					t.Errorf("error %v is not a net.Error with Timeout true", r.err)
				}
				if r.elapsed != tt.wantElapsed {
					t.Errorf("returned after %v of fake time, want %v", r.elapsed, tt.wantElapsed)
				}
			})
		})
	}
}
