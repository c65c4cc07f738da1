// Package bubble tells whether the calling goroutine runs inside a
// testing/synctest bubble, for the fake and the conformance kit, which
// must refuse there what would hang or panic, and works around a crash of
// bubbles under the race detector ([OneProcUnderRace]). It builds on every
// Go the module supports: before Go 1.25 there are no bubbles.
package bubble

import (
	"bytes"
	"runtime"
)

// Inside reports whether the calling goroutine runs inside a
// testing/synctest bubble, which the runtime names in the goroutine's
// header, the first line of runtime.Stack: "goroutine 7 [running, synctest
// bubble 1]:" (checked by plantstoretest's
// TestNewServerRefusesLoopbackInBubble). A Go that stopped would make this
// report false, never true.
func Inside() bool {
	var buf [256]byte
	header, _, _ := bytes.Cut(buf[:runtime.Stack(buf[:], false)], []byte("\n"))
	return bytes.Contains(header, []byte(", synctest bubble "))
}
