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
	var text [32]byte
	for half := 0; half < 32; half += 16 {
		r := rand.Uint64()
		for i := half; i < half+16; i += 2 {
			copy(text[i:i+2], hexPairs[2*(r&0xff):])
			r >>= 8
		}
	}
	return string(text[:])
}

// hexPairs holds the two hex digits of every byte value, so that an id
// takes one lookup per byte.
const hexPairs = "" +
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f" +
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f" +
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" +
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f" +
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" +
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf" +
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf" +
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

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

// requestIDToQuote returns the request id to quote to the service's
// operators for a call that sent the id sent and got a response with
// headers h: the response's X-Request-Id, made safe to print, when it has
// one, else sent. This is the one place that works it out, for
// [CallInfo.RequestID] and so for the log, the hooks and [CallError].
//
// Any of tokens the response's id holds, as written or escaped the ways
// [redact] knows, reads REDACTED: a server that echoes the bearer token as
// its request id must not get it into a log line or an error the caller
// prints.
func requestIDToQuote(sent string, h map[string][]string, tokens []string) string {
	v := h[headerRequestID]
	if len(v) == 0 || v[0] == "" {
		return sent
	}
	if id := printable(redact(v[0], tokens), maxRequestIDBytes); id != "" {
		return id
	}
	return sent
}
