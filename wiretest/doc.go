// Package wiretest holds the client's wire tests: a frame-level HTTP/2
// server (over TLS and as h2c) and an HTTP/1.1 one that misbehave on
// purpose after reading a create, and the fault matrix that holds the
// client to its promise on each protocol, and over HTTP/2 through each
// transport a user may give it (the default, net/http's with
// ForceAttemptHTTP2, x/net's): every request that reached the
// server is an attempt the client counted, with its own X-Retry-Count, and
// every verdict ([plantstore.ErrMaybeCreated] or not) is exact.
//
// It is a module of its own because the frame-level server needs
// golang.org/x/net/http2, which the client's module must not require: a
// consumer's go.sum grows by nothing. It is never released.
package wiretest
