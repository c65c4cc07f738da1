package plantstoretest

// errLoopbackInBubble is why NewServer refuses a loopback server inside a
// testing/synctest bubble.
const errLoopbackInBubble = "plantstoretest: NewServer inside a testing/synctest bubble needs WithInMemoryNetwork(): " +
	"a loopback socket never counts as durably blocked there, so the test would hang until go test's timeout " +
	"once fake time must advance (a Retry-After, a backoff)"
