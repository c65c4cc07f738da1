// Package wire holds the rules of the Plant Store wire protocol that the
// client (package plantstore) and the fake (package plantstoretest) must
// agree on: what a bearer token may contain, how its credentials are hidden
// (in a header, and where a peer echoes a token back), which characters of
// a peer's text must not be shown as written, and how much of a body
// either side reads; how the module's servers, the fake and the mock's
// control API, read a request's bearer credentials and match its path; and
// the HTTP rules every part of the module applies in one way: what a valid
// header name and value are, which hosts are this machine's loopback, and
// what base URL a client can use.
//
// It holds rules, not checks. The fake's request validation stays its own:
// it is an independent check of the client, and sharing it would let a
// client bug pass unnoticed.
package wire
