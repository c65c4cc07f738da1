package plantstoretest

import (
	"net/http"

	"github.com/plantstore/plantstore-go"
)

// ProductionClient is [Server.Client] without its 1ms to 10ms backoff: the
// client retries as [plantstore.NewClient] without options does (see
// [plantstore.Client]), so a test sees timing as production has it: how long
// a caller waits for a 503 with "Retry-After: 30", whether a deadline leaves
// room for a retry. In real time each retry waits at least 125ms; inside a
// testing/synctest bubble, with [WithInMemoryNetwork], such waits cost no
// wall time.
func (s *Server) ProductionClient(opts ...plantstore.Option) *plantstore.Client {
	s.tb.Helper()
	all := append([]plantstore.Option{
		plantstore.WithToken(s.token),
		plantstore.WithHTTPClient(s.HTTPClient()),
	}, opts...)
	c, err := plantstore.NewClient(s.URL, all...)
	if err != nil {
		s.tb.Fatalf("plantstoretest: Server.ProductionClient: %v", err)
	}
	return c
}

// HTTPClient returns an http.Client that reaches s: under [WithTLS] it
// trusts s's certificate, under [WithHTTP2] it speaks HTTP/2 (h2c without
// TLS), and under [WithInMemoryNetwork] it dials s's in-memory listener. Give it to code that builds its own plantstore.Client
// (with [plantstore.WithHTTPClient] and s.URL), or wrap its Transport, an
// *http.Transport. The clients share one pool of connections, which s's
// cleanup closes. Each call returns a new http.Client.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: s.transport}
}
