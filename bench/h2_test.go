package bench

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/bench/internal/baseline"
)

// BenchmarkCreatePlantH2 compares the SDK's CreatePlant with the
// hand-written call doing the same wire job (rawsix) over HTTP/2 on TLS
// (issue 28): both on a [baseline.NewHTTPClient] transport that trusts the
// server and offers h2, one call at a time. The server counts requests
// that were not HTTP/2, and the benchmark fails on any.
func BenchmarkCreatePlantH2(b *testing.B) {
	srv := httptest.NewUnstartedServer(overOnly(b, 2, baseline.Handler()))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	newClient := func() *http.Client {
		hc := baseline.NewHTTPClient()
		t := hc.Transport.(*http.Transport)
		t.TLSClientConfig = &tls.Config{RootCAs: roots}
		t.ForceAttemptHTTP2 = true
		return hc
	}
	url := srv.URL + "/plants"
	for _, impl := range []string{"rawsix", "sdk"} {
		b.Run("impl="+impl, func(b *testing.B) {
			hc := newClient()
			defer hc.CloseIdleConnections()
			create := func(ctx context.Context, p plantstore.NewPlant) error {
				_, err := baseline.CreatePlantSixHeaders(ctx, hc, url, p)
				return err
			}
			if impl == "sdk" {
				create, _ = newCreate(b, impl, srv.URL, plantstore.WithHTTPClient(hc))
			}
			benchSequential(b, create)
		})
	}
}

// overOnly returns h, counting the requests that come over another HTTP
// major version than major; b fails at its end if any did, so that a
// client that fell back to another protocol is not measured as this one.
func overOnly(b *testing.B, major int, h http.Handler) http.Handler {
	var other atomic.Int64
	b.Cleanup(func() {
		if n := other.Load(); n > 0 {
			b.Errorf("%d requests came over another protocol than HTTP/%d", n, major)
		}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != major {
			other.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}
