package plantstoretest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"
)

// memConnPair returns the two ends of a new in-memory connection, closed
// when the test ends.
func memConnPair(t *testing.T) (a, b *memConn) {
	t.Helper()
	a, b = newMemConns(memAddr("a"), memAddr("b"))
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// isTimeout reports whether err is a deadline's error as net/http and
// callers test it: os.ErrDeadlineExceeded, a net.Error with Timeout true.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) && errors.As(err, &ne) && ne.Timeout()
}

var _ net.Conn = (*memConn)(nil)

// TestMemConnData checks what goes through a connection in each direction:
// bytes arrive whole and in order, across writes larger than the buffer
// (which wait for the reader), with a zero-length Read and Write that do
// nothing, and a Read into a short buffer that leaves the rest for later.
func TestMemConnData(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*memBufSize/16+7) // 3 buffers and a bit
	for _, tt := range []struct {
		name   string
		writes [][]byte
	}{
		{"one byte", [][]byte{{'x'}}},
		{"several writes", [][]byte{[]byte("GET / HTTP/1.1\r\n"), []byte("Host: x\r\n"), {}, []byte("\r\n")}},
		{"exactly the buffer", [][]byte{big[:memBufSize]}},
		{"larger than the buffer", [][]byte{big}},
		{"many small then a large", [][]byte{big[:10], big[10:20], big[20:]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, dir := range []string{"a to b", "b to a"} {
				a, b := memConnPair(t)
				if dir == "b to a" {
					a, b = b, a
				}
				var want []byte
				for _, w := range tt.writes {
					want = append(want, w...)
				}
				errc := make(chan error, 1)
				go func() {
					for _, w := range tt.writes {
						if n, err := a.Write(w); n != len(w) || err != nil {
							errc <- errors.Join(err, errors.New("short write"))
							return
						}
					}
					errc <- a.Close()
				}()
				if n, err := b.Read(nil); n != 0 || err != nil {
					t.Errorf("%s: Read(nil) = %d, %v; want 0, nil", dir, n, err)
				}
				var got []byte
				buf := make([]byte, 1000) // shorter than most writes
				for {
					n, err := b.Read(buf)
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s: Read: %v", dir, err)
					}
				}
				if err := <-errc; err != nil {
					t.Errorf("%s: writer: %v", dir, err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s: read %d bytes, want the %d written", dir, len(got), len(want))
				}
			}
		})
	}
}

// TestMemConnBounded checks the buffer's bound: a writer whose peer does
// not read gets memBufSize bytes in, then waits (here until its deadline),
// and the buffer holds no more than that.
func TestMemConnBounded(t *testing.T) {
	t.Parallel()
	a, b := memConnPair(t)
	a.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	n, err := a.Write(make([]byte, 3*memBufSize))
	if n != memBufSize || !isTimeout(err) {
		t.Errorf("Write of 3 buffers to a peer that does not read = %d, %v; want %d, a timeout", n, err, memBufSize)
	}
	b.rx.mu.Lock()
	held, capacity := len(b.rx.data)-b.rx.off, cap(b.rx.data)
	b.rx.mu.Unlock()
	if held != memBufSize || capacity > 2*memBufSize {
		t.Errorf("the peer's buffer holds %d bytes in a slice of %d, want %d in at most %d", held, capacity, memBufSize, 2*memBufSize)
	}
	// Once the peer reads, the writer can go on.
	a.SetWriteDeadline(time.Time{})
	go io.Copy(io.Discard, b)
	if n, err := a.Write(make([]byte, 3*memBufSize)); n != 3*memBufSize || err != nil {
		t.Errorf("Write once the peer reads = %d, %v; want %d, nil", n, err, 3*memBufSize)
	}
}

// TestMemConnIdleKeepsLittle checks that a drained direction lets a large
// buffer go, so that an idle connection in a pool holds at most
// memKeepSize per direction, and keeps a small one for the next exchange.
func TestMemConnIdleKeepsLittle(t *testing.T) {
	t.Parallel()
	for _, size := range []int{100, memKeepSize, memBufSize} {
		a, b := memConnPair(t)
		a.Write(make([]byte, size))
		if _, err := io.ReadFull(b, make([]byte, size)); err != nil {
			t.Fatalf("reading %d bytes: %v", size, err)
		}
		b.rx.mu.Lock()
		held := cap(b.rx.data)
		b.rx.mu.Unlock()
		if held > memKeepSize {
			t.Errorf("after a drained exchange of %d bytes the buffer keeps %d bytes, want at most %d", size, held, memKeepSize)
		}
		if size <= memKeepSize && held == 0 {
			t.Errorf("after a drained exchange of %d bytes the buffer was let go, want it kept for the next", size)
		}
	}
}

// TestMemConnClose checks Close: what each end's Read and Write return
// after it, that the peer still reads what was written before it, and a
// second Close. TestMemConnWaitersInBubble checks operations already
// waiting when Close comes.
func TestMemConnClose(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		op      func(a, b *memConn) (int, error) // after a.Close
		wantErr error
	}{
		{"own Read", func(a, _ *memConn) (int, error) { return a.Read(make([]byte, 1)) }, io.ErrClosedPipe},
		{"own Write", func(a, _ *memConn) (int, error) { return a.Write([]byte("x")) }, io.ErrClosedPipe},
		{"peer's Read", func(_, b *memConn) (int, error) { return b.Read(make([]byte, 1)) }, io.EOF},
		{"peer's Write", func(_, b *memConn) (int, error) { return b.Write([]byte("x")) }, io.ErrClosedPipe},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := memConnPair(t)
			a.Close()
			if n, err := tt.op(a, b); n != 0 || err != tt.wantErr {
				t.Errorf("= %d, %v; want 0, %v", n, err, tt.wantErr)
			}
		})
	}

	t.Run("peer reads what was written before Close", func(t *testing.T) {
		t.Parallel()
		a, b := memConnPair(t)
		a.Write([]byte("last words"))
		a.Close()
		if got, err := io.ReadAll(b); string(got) != "last words" || err != nil {
			t.Errorf("peer read %q, %v; want %q, nil", got, err, "last words")
		}
	})
	t.Run("a second Close and deadlines after Close", func(t *testing.T) {
		t.Parallel()
		a, _ := memConnPair(t)
		if err := a.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := a.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		for name, set := range map[string]func(time.Time) error{"SetDeadline": a.SetDeadline, "SetReadDeadline": a.SetReadDeadline, "SetWriteDeadline": a.SetWriteDeadline} {
			if err := set(time.Now()); err != io.ErrClosedPipe {
				t.Errorf("%s after Close: %v, want %v", name, err, io.ErrClosedPipe)
			}
		}
	})
}

// TestMemConnDeadlines checks the deadlines: a past one fails Read and
// Write at once, even with data to read, with a net.Error whose Timeout is
// true; moving a deadline (to the future, or to none) makes the conn
// usable again. TestMemConnWaitersInBubble checks deadlines that pass
// while an operation waits.
func TestMemConnDeadlines(t *testing.T) {
	t.Parallel()
	past := time.Now().Add(-time.Second)
	for _, tt := range []struct {
		name     string
		set      func(c *memConn, t time.Time) error
		when     func() time.Time
		op       func(a, b *memConn) (int, error)
		wantN    int
		dataFrom bool // b writes to a first, so a has data to read
	}{
		{"past read deadline", (*memConn).SetReadDeadline, func() time.Time { return past }, func(a, _ *memConn) (int, error) { return a.Read(make([]byte, 8)) }, 0, false},
		{"past read deadline with data", (*memConn).SetReadDeadline, func() time.Time { return past }, func(a, _ *memConn) (int, error) { return a.Read(make([]byte, 8)) }, 0, true},
		{"past write deadline", (*memConn).SetWriteDeadline, func() time.Time { return past }, func(a, _ *memConn) (int, error) { return a.Write([]byte("x")) }, 0, false},
		{"past deadline, Read", (*memConn).SetDeadline, func() time.Time { return past }, func(a, _ *memConn) (int, error) { return a.Read(make([]byte, 8)) }, 0, false},
		{"past deadline, Write", (*memConn).SetDeadline, func() time.Time { return past }, func(a, _ *memConn) (int, error) { return a.Write([]byte("x")) }, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := memConnPair(t)
			if tt.dataFrom {
				b.Write([]byte("data"))
			}
			tt.set(a, tt.when())
			n, err := tt.op(a, b)
			if n != tt.wantN || !isTimeout(err) {
				t.Errorf("= %d, %v; want %d, a timeout (os.ErrDeadlineExceeded, net.Error with Timeout)", n, err, tt.wantN)
			}
			// Cleared, the deadline no longer fails anything.
			tt.set(a, time.Time{})
			b.Write([]byte("more"))
			if n, err := a.Read(make([]byte, 64)); n == 0 || err != nil {
				t.Errorf("Read after clearing the deadline = %d, %v; want data", n, err)
			}
			if n, err := a.Write([]byte("y")); n != 1 || err != nil {
				t.Errorf("Write after clearing the deadline = %d, %v; want 1, nil", n, err)
			}
		})
	}

	t.Run("moving a deadline to the future", func(t *testing.T) {
		t.Parallel()
		a, b := memConnPair(t)
		a.SetReadDeadline(past)
		a.SetReadDeadline(time.Now().Add(time.Hour))
		b.Write([]byte("x"))
		if n, err := a.Read(make([]byte, 1)); n != 1 || err != nil {
			t.Errorf("Read with a deadline moved to the future = %d, %v; want 1, nil", n, err)
		}
	})
}

// TestMemConnConcurrent runs readers and writers on both ends at once:
// every byte written arrives once, whichever reader gets it. Run with
// -race.
func TestMemConnConcurrent(t *testing.T) {
	t.Parallel()
	const writers, perWriter, chunk = 4, 200, 700 // 560 KB: the buffer fills often
	a, b := memConnPair(t)
	for _, ends := range [][2]*memConn{{a, b}, {b, a}} {
		w, r := ends[0], ends[1]
		var wg sync.WaitGroup
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p := bytes.Repeat([]byte{byte('a' + i)}, chunk)
				for range perWriter {
					if _, err := w.Write(p); err != nil {
						t.Errorf("Write: %v", err)
						return
					}
				}
			}()
		}
		var mu sync.Mutex
		counts := map[byte]int{}
		total := 0
		all := make(chan struct{}) // closed once every byte written is read
		var rg sync.WaitGroup
		for range 3 {
			rg.Add(1)
			go func() {
				defer rg.Done()
				buf := make([]byte, 512)
				for {
					n, err := r.Read(buf)
					mu.Lock()
					for _, c := range buf[:n] {
						counts[c]++
					}
					if total += n; n > 0 && total == writers*perWriter*chunk {
						close(all)
					}
					mu.Unlock()
					if err != nil {
						if !isTimeout(err) {
							t.Errorf("Read: %v", err)
						}
						return
					}
				}
			}()
		}
		wg.Wait()
		<-all
		// The other readers wait for more: a deadline in the past ends them.
		r.SetReadDeadline(time.Now().Add(-time.Second))
		rg.Wait()
		r.SetReadDeadline(time.Time{})
		for i := range writers {
			if got := counts[byte('a'+i)]; got != perWriter*chunk {
				t.Errorf("writer %d: %d bytes read, want %d", i, got, perWriter*chunk)
			}
		}
	}
}
