//go:build go1.24

package mockserver

import "net/http"

// ServeH2C makes srv serve h2c (HTTP/2 in clear text, with prior
// knowledge: no Upgrade from HTTP/1.1) beside HTTP/1.1, on the same
// listener, and reports whether it could: h2c needs Go 1.24 or later.
func ServeH2C(srv *http.Server) bool {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv.Protocols = &p
	return true
}
