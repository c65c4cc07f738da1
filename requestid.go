package plantstore

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"

	"github.com/plantstore/plantstore-go/internal/wire"
)

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
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
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

// serverRequestID returns [CallInfo.ServerRequestID] for a response with
// headers h, of a call that sent tokens: its X-Request-Id made safe to
// print, or "" when it has none.
//
// Any of tokens the response's id holds, as written or escaped the ways
// [wire.Redact] knows, reads REDACTED: a server that echoes the bearer
// token as its request id must not get it into a log line or an error the
// caller prints.
func serverRequestID(h map[string][]string, tokens []string) string {
	v := h[headerRequestID]
	if len(v) == 0 {
		return ""
	}
	if wire.MayHold(v[0], tokens) {
		return printable(wire.Redact(v[0], tokens), maxRequestIDBytes)
	}
	return printable(v[0], maxRequestIDBytes)
}
