//go:build go1.24

package plantstoretest

import "net/http"

// h2cSupported reports whether this Go serves h2c: http.Protocols came
// with Go 1.24.
const h2cSupported = true

// serveH2C makes hs serve h2c with prior knowledge beside HTTP/1.1.
func serveH2C(hs *http.Server) {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	hs.Protocols = &p
}

// speakH2C makes tr speak h2c with prior knowledge to http URLs.
func speakH2C(tr *http.Transport) {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = &p
}
