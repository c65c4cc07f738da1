package plantstoretest

// WithInMemoryNetwork makes [NewServer] serve on an in-memory network of
// its own instead of a loopback socket, so that the fake works inside a
// testing/synctest bubble, where time is fake and a socket would hang the
// test. Call NewServer inside the function given to synctest.Test, so that
// its goroutines and timers belong to the bubble. Every feature works
// there, [WithTLS] included; [WithRateLimit]'s clock is the bubble's.
// Outside a bubble it works in real time, with no port to allocate.
//
// Only the Server's clients ([Server.Client], [Server.ProductionClient],
// [Server.HTTPClient]) reach it: the address is 127.0.0.1:1, loopback,
// which plantstore.NewClient takes without WithInsecureHTTP, at a port
// where nothing listens. Keep the loopback default when anything else
// must: another process, a transport that cannot be replaced, a test of
// dialling or socket errors.
//
// Under the race detector on Go 1.25 and 1.26, a bubble whose goroutines
// fire timers at the same instant on two threads can crash the runtime
// (SIGSEGV in runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK
// failed"), as a client retrying in many goroutines does: a Go bug, fixed
// in Go 1.27. Run such tests with go test -race -cpu 1 there.
func WithInMemoryNetwork() Option {
	return func(c *config) {
		c.inMemory = true
		c.serverOnly = append(c.serverOnly, "WithInMemoryNetwork")
	}
}
