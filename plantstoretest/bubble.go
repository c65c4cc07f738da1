package plantstoretest

import (
	"bytes"
	"runtime"
)

// errLoopbackInBubble is why NewServer refuses a loopback server inside a
// testing/synctest bubble.
const errLoopbackInBubble = "plantstoretest: NewServer inside a testing/synctest bubble needs WithInMemoryNetwork(): " +
	"a loopback socket never counts as durably blocked there, so the test would hang until go test's timeout " +
	"once fake time must advance (a Retry-After, a backoff)"

// inBubble reports whether the calling goroutine runs inside a
// testing/synctest bubble, which the runtime names in the goroutine's
// header, the first line of runtime.Stack: "goroutine 7 [running, synctest
// bubble 1]:" (checked by TestNewServerRefusesLoopbackInBubble). A Go that
// stopped would make this report false, never true.
func inBubble() bool {
	var buf [256]byte
	header, _, _ := bytes.Cut(buf[:runtime.Stack(buf[:], false)], []byte("\n"))
	return bytes.Contains(header, []byte(", synctest bubble "))
}
