//go:build go1.24

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

// Bound makes srv's HTTP/2 take at most streams streams at once on a
// connection, and keep at most perStream bytes of each one's body that its
// handler has not read, streams × perStream (under 4 MiB) in all: so the
// streams whose handlers wait cannot take the whole window of the
// connection from those whose handlers read.
func Bound(srv *http.Server, streams, perStream int) {
	srv.HTTP2 = &http.HTTP2Config{
		MaxConcurrentStreams:          streams,
		MaxReceiveBufferPerStream:     perStream,
		MaxReceiveBufferPerConnection: streams * perStream,
	}
}
