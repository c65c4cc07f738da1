package wire

import (
	"errors"
	"io"
	"slices"
	"strconv"
)

// MaxBodyBytes is the largest body either side reads: a response for the
// client, a request for the fake. A Plant or an Error is a few hundred
// bytes; anything near the cap is not one.
const MaxBodyBytes = 1 << 20

// ErrBodyTooLarge is the error [ReadBody] returns for a body longer than
// [MaxBodyBytes]. Its text has no package prefix: callers wrap it in theirs.
var ErrBodyTooLarge = errors.New("body exceeds " + strconv.Itoa(MaxBodyBytes) + " bytes")

// minGrowth is the first capacity ReadBody gives a buffer that has none.
const minGrowth = 512

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
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			// Double, but not past the one byte over the cap that tells a
			// body at the cap from a longer one.
			buf = slices.Grow(buf, min(max(cap(buf), minGrowth), MaxBodyBytes+1-len(buf)))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), MaxBodyBytes+1)])
		buf = buf[:len(buf)+n]
		if len(buf) > MaxBodyBytes {
			return buf[:MaxBodyBytes], ErrBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
