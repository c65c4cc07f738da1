// Package wire holds the rules of the Plant Store wire protocol, and of
// HTTP, that the client (package plantstore), the fake (package
// plantstoretest) and the mock must apply in one way: of tokens and their
// redaction, a peer's text, bodies, bearer credentials, paths, headers,
// loopback hosts and base URLs.
//
// It holds rules, not checks. The fake's request validation stays its own:
// it is an independent check of the client, and sharing it would let a
// client bug pass unnoticed.
package wire
