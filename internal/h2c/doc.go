// Package h2c configures net/http for h2c, HTTP/2 in clear text with prior
// knowledge (no Upgrade from HTTP/1.1), where the Go version has it: the
// fake (plantstoretest.WithHTTP2) and plantstore-mock serve it. It needs
// http.Protocols, which came with Go 1.24; on older Go, [Supported] is
// false and the functions panic.
package h2c
