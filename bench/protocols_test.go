//go:build go1.24

package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/bench/internal/baseline"
	"github.com/plantstore/plantstore-go/internal/h2c"
)

// BenchmarkServerProtocols compares the CPU a create costs over HTTP/1.1
// and over h2c (HTTP/2 with prior knowledge, as plantstoretest.WithHTTP2
// serves it without TLS), for the fake with its journal on and for the
// bare net/http handler, the baseline of what the protocol alone costs.
// Each runs in an httptest server that serves both protocols, driven by
// the hand-written client with the SDK's six headers (rawsix) from
// 16×GOMAXPROCS goroutines; over h2c they share the transport's one
// connection, as HTTP/2 clients do. The figure to compare is cpu-ns/op
// (see BenchmarkServerThroughput): h2c's over HTTP/1.1's, for the fake
// against the same ratio for bare.
func BenchmarkServerProtocols(b *testing.B) {
	for _, s := range serversUnderTest[:2] { // bare and fake
		for _, proto := range []string{"h1", "h2c"} {
			b.Run("server="+s.name+"/proto="+proto, func(b *testing.B) {
				h, check := s.journaled(b)
				srv := httptest.NewUnstartedServer(overOnly(b, map[string]int{"h1": 1, "h2c": 2}[proto], h))
				h2c.Serve(srv.Config)
				srv.Start()
				defer srv.Close()
				hc := baseline.NewHTTPClient()
				if proto == "h2c" {
					h2c.Speak(hc.Transport.(*http.Transport))
				}
				defer hc.CloseIdleConnections()
				url := srv.URL + "/plants"
				create := func(ctx context.Context, p plantstore.NewPlant) error {
					_, err := baseline.CreatePlantSixHeaders(ctx, hc, url, p)
					return err
				}
				benchCPU(b, create, check)
			})
		}
	}
}
