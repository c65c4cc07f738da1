//go:build go1.24

// Package h2c configures net/http for h2c, HTTP/2 in clear text with prior
// knowledge (no Upgrade from HTTP/1.1), where the Go version has it: the
// fake (plantstoretest.WithHTTP2) and plantstore-mock serve it. It needs
// http.Protocols, which came with Go 1.24; on older Go, [Supported] is
// false and the functions panic.
package h2c

import "net/http"

// Supported reports whether this Go has h2c.
const Supported = true

// Serve makes srv serve h2c beside HTTP/1.1, on the same listener.
func Serve(srv *http.Server) {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv.Protocols = &p
}

// Speak makes tr speak h2c, and nothing else, to http URLs.
func Speak(tr *http.Transport) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = &p
}
