package wire

import (
	"errors"
	"io"
	"net/http"
	"strconv"
)

// MaxBodyBytes is the largest body either side reads: a response for the
// client, a request for the fake. A Plant or an Error is a few hundred
// bytes; anything near the cap is not one.
const MaxBodyBytes = 1 << 20

// ErrBodyTooLarge is the error [ReadBody] returns for a body longer than
// [MaxBodyBytes]. Its text has no package prefix: callers wrap it in theirs.
var ErrBodyTooLarge = errors.New("body exceeds " + strconv.Itoa(MaxBodyBytes) + " bytes")

// FirstBufferSize is the first capacity ReadBody gives a buffer that has
// none. A caller that knows the body is shorter (a small Content-Length)
// can pass a buffer of its own, smaller than this.
const FirstBufferSize = 512

// ReadBody reads r to its end, appending to buf[:0], and returns the result.
// Pass a reused buffer to avoid allocating, or nil.
//
// Memory follows the bytes received, never what the peer declares (a
// Content-Length): the buffer starts at buf's capacity, or 512 bytes, and at
// most doubles each time it fills, so it holds at most about twice what
// arrived and never more than MaxBodyBytes+1 bytes.
//
// A body longer than MaxBodyBytes is not read further: ReadBody returns its
// first MaxBodyBytes bytes and [ErrBodyTooLarge]. Any other read error is
// returned as is, with what was read before it; so a reader from
// http.MaxBytesReader(w, body, MaxBodyBytes) makes ReadBody return that
// reader's *http.MaxBytesError instead, and the server close the connection.
func ReadBody(buf []byte, r io.Reader) ([]byte, error) {
	buf, over, err := readCapped(buf, r, MaxBodyBytes)
	if over {
		return buf, ErrBodyTooLarge
	}
	return buf, err
}

// ReadBodyAtMost is [ReadBody] with a cap of limit bytes instead of
// [MaxBodyBytes], for a server whose bodies have caps of their own (the
// mock's control API). Memory grows the same way, never past limit+1 bytes.
// A body longer than limit is not read further: ReadBodyAtMost returns its
// first limit bytes and an *http.MaxBytesError, the error
// http.MaxBytesReader(w, body, limit) would give.
func ReadBodyAtMost(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	buf, over, err := readCapped(buf, r, limit)
	if over {
		return buf, &http.MaxBytesError{Limit: limit}
	}
	return buf, err
}

// readCapped is [ReadBodyAtMost], which reports a body longer than limit
// as over.
func readCapped(buf []byte, r io.Reader, limit int64) (_ []byte, over bool, _ error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			// Double, but not past the one byte over the cap that tells a
			// body at the cap from a longer one. The new buffer is made to
			// measure: append's growth (and slices.Grow's) rounds up to a
			// size class, past that byte.
			grown := make([]byte, len(buf), min(max(2*int64(cap(buf)), FirstBufferSize), limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):min(int64(cap(buf)), limit+1)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return buf[:limit], true, nil
		}
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
}
