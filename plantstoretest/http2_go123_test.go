//go:build !go1.24

package plantstoretest

import (
	"crypto/tls"
	"net/http"
)

// forceHTTP1 makes tr speak HTTP/1.1 only.
func forceHTTP1(tr *http.Transport) {
	tr.ForceAttemptHTTP2 = false
	tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	if tr.TLSClientConfig != nil {
		tr.TLSClientConfig.NextProtos = nil // "h2" once tr's original was used
	}
}
