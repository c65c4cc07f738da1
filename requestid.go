package plantstore

import "math/rand/v2"

// The correlation headers. Their names are fixed: the service's operators,
// and tests outside this repository, look for them on the wire.
const (
	// headerRequestID carries the call's id, the same on every attempt.
	headerRequestID = "X-Request-Id"
	// headerRetryCount carries the attempt's number: 0, then 1 on the
	// first retry, and so on.
	headerRetryCount = "X-Retry-Count"
)

// maxRequestIDBytes is the longest request id [WithRequestID] accepts.
const maxRequestIDBytes = 128

// newRequestID returns 128 random bits as 32 lower-case hex digits.
//
// The bits come from math/rand/v2's global generator, which since Go 1.22
// is ChaCha8 seeded from the operating system per thread: unpredictable
// enough for ids that only need to be unique, and far cheaper per call
// than a system call.
func newRequestID() string {
	const digits = "0123456789abcdef"
	var text [32]byte
	for half := 0; half < 32; half += 16 {
		r := rand.Uint64()
		for i := half; i < half+16; i++ {
			text[i] = digits[r&0xf]
			r >>= 4
		}
	}
	return string(text[:])
}

// requestIDProblem says what makes id unfit to send as a request id, or ""
// if nothing does.
func requestIDProblem(id string) string {
	if id == "" {
		return "must not be empty"
	}
	if len(id) > maxRequestIDBytes {
		return "is longer than 128 bytes"
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] >= 0x7f {
			return "has an invalid character (want visible ASCII)"
		}
	}
	return ""
}

// responseRequestID returns the id a response carries in X-Request-Id, made
// safe to print, or "" when it has none.
func responseRequestID(h map[string][]string) string {
	v := h[headerRequestID]
	if len(v) == 0 || v[0] == "" {
		return ""
	}
	return printable(v[0], maxRequestIDBytes)
}
