package plantstoretest

// WithInMemoryNetwork makes [NewServer] serve on an in-memory network of
// its own instead of a loopback socket, so that the fake works inside a
// testing/synctest bubble, where time is fake and a socket would hang the
// test (there, NewServer without it fails the test). The address is
// 127.0.0.1:1: loopback, which plantstore.NewClient takes without
// WithInsecureHTTP, at a port where nothing listens, so that other clients
// fail to connect. Only the Server's clients ([Server.Client],
// [Server.ProductionClient], [Server.HTTPClient]) reach it. Call NewServer
// inside the function given to synctest.Test, so that its goroutines and
// timers belong to the bubble. Every feature works there, [WithTLS]
// included; [WithRateLimit]'s clock is the bubble's.
//
// Under the race detector on Go 1.25 and 1.26, a bubble whose goroutines
// fire timers at the same instant on two threads can crash the runtime
// (SIGSEGV in runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK
// failed"), as a client retrying in many goroutines does: a Go bug, fixed
// in Go 1.27. Run such tests with go test -race -cpu 1 there.
//
// Outside a bubble it works in real time, with no port to allocate. Keep
// the loopback default when more than the Server's clients must reach the
// fake: another process, a transport that cannot be replaced, a test of
// dialling or socket errors. [NewHandler] refuses it.
func WithInMemoryNetwork() Option {
	return func(c *config) {
		c.inMemory = true
		c.serverOnly = append(c.serverOnly, "WithInMemoryNetwork")
	}
}
