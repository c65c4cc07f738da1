//go:build go1.24

package wiretest

import (
	"net/http"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/h2c"
)

// h2c (HTTP/2 without TLS, with prior knowledge) came in Go 1.24, with
// http.Protocols.
func init() {
	protocols = append(protocols, protocol{name: "h2c", h2: true, start: func(t *testing.T, plan ...fault) *wireServer {
		return startH2(t, nil, plan...)
	}, opts: func() []plantstore.Option {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		h2c.Speak(tr)
		return []plantstore.Option{plantstore.WithHTTPClient(&http.Client{Transport: tr})}
	}})
}
