//go:build go1.24

package h2c

import (
	"io"
	"net/http"
	"strings"
)

// Supported reports whether this Go has h2c.
const Supported = true

// Serve makes srv serve h2c beside HTTP/1.1, on the same listener, and
// wraps srv.Handler, which it must follow, so that the two answer a Host
// alike (see [hostAsHTTP1]).
func Serve(srv *http.Server) {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv.Protocols = &p
	srv.Handler = hostAsHTTP1(srv.Handler)
}

// hostAsHTTP1 answers an HTTP/2 request whose Host (its :authority) holds
// a byte no URI host does (RFC 9110, section 7.2: a name in another script
// travels as its punycode) as net/http answers it over HTTP/1.1, before its
// handler: 400 "malformed Host header". net/http's HTTP/2 server lets such
// a Host through, and keeps its rule (httpguts.ValidHostHeader) to itself:
// TestHostAsHTTP1 holds the copy below to it, byte by byte.
func hostAsHTTP1(h http.Handler) http.Handler {
	if h == nil {
		h = http.DefaultServeMux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 2 && !validHost(r.Host) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, "400 Bad Request: malformed Host header")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// validHost reports whether net/http's HTTP/1.1 server takes host as a
// Host: ASCII letters and digits, and the punctuation of a URI's host and
// port.
func validHost(host string) bool {
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!$%&'()*+,-.:;=[]_~", c) >= 0) {
			return false
		}
	}
	return true
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
