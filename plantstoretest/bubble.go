package plantstoretest

// errLoopbackInBubble is why NewServer refuses a loopback server inside a
// testing/synctest bubble.
const errLoopbackInBubble = "plantstoretest: NewServer inside a testing/synctest bubble needs WithInMemoryNetwork(): " +
	"a loopback socket never counts as durably blocked there, so the test would hang until go test's timeout " +
	"once fake time must advance (a Retry-After, a backoff)"

// errHTTP2InBubble is why NewServer refuses WithHTTP2 inside a bubble
// before Go 1.26.
const errHTTP2InBubble = "plantstoretest: WithHTTP2 inside a testing/synctest bubble needs Go 1.26 or later: " +
	"before it, net/http's HTTP/2 servers share a pool of channels, and one made outside the bubble " +
	"crashes the test binary; test HTTP/2 outside the bubble, or on Go 1.26"
