package plantstoretest

import (
	"net/http"

	"github.com/plantstore/plantstore-go"
)

// ProductionClient returns a plantstore.Client for s with the SDK's
// production retry settings, those of plantstore.NewClient without options:
// exponential backoff from 250ms to 5s with jitter, 2 retries, and a
// Retry-After honoured up to 30s. It is [Server.Client] without the 1ms to
// 10ms backoff, which Client sets so that tests of retries run fast in real
// time. opts are applied after the token and the HTTP client, so they win.
// Each call returns a new Client. If the client cannot be built,
// ProductionClient fails the test with tb.Fatalf.
//
// Prefer it when the test is about timing as production has it: how long a
// caller waits for a 503 with "Retry-After: 30", whether a deadline leaves
// room for a retry, what a rate limit does to a batch. Inside a
// testing/synctest bubble, with [WithInMemoryNetwork], those waits cost no
// wall time, so there is no reason to test anything else. In real time each
// retry waits at least 125ms, or as long as the server's Retry-After asks.
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
// trusts s's certificate, and under [WithInMemoryNetwork] it dials s's
// in-memory listener, which no other client reaches. Give it to code that
// builds its own plantstore.Client, with plantstore.WithHTTPClient (and
// s.URL as the base URL), or wrap its Transport, an *http.Transport, in
// your own RoundTripper. The clients share one pool of connections, which
// s's cleanup closes. Each call returns a new http.Client.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: s.transport}
}
