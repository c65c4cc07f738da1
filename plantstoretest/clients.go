package plantstoretest

import (
	"net/http"

	"github.com/plantstore/plantstore-go"
)

// ProductionClient is [Server.Client] without its 1ms to 10ms backoff: it
// retries as [plantstore.NewClient] does by default, so a test sees
// production's timing, such as whether a deadline leaves room for a retry.
// In real time each retry waits at least 125ms; in a bubble, no wall time
// (see Fake time in the package documentation).
func (s *Server) ProductionClient(opts ...plantstore.Option) *plantstore.Client {
	s.cfg.tb.Helper()
	return s.client("ProductionClient", opts)
}

// client is the Client that method returns: s's token, HTTP client and
// answer to a repeated id (none when the fake stores repeats), then opts.
func (s *Server) client(method string, opts []plantstore.Option) *plantstore.Client {
	s.cfg.tb.Helper()
	d := s.Disk() // one life for the transport and the hooks, whatever Restart does meanwhile
	all := []plantstore.Option{plantstore.WithToken(string(s.cfg.token)), plantstore.WithHTTPClient(s.httpClient(d))}
	if !s.cfg.allowDupIDs {
		status, code, ok := s.cfg.profile.DuplicateIDError()
		if !ok {
			status, code = statuses[duplicateID], CodeDuplicateID
		}
		all = append(all, plantstore.WithAlreadyExists(status, code))
	}
	if s.cfg.watch != nil {
		all = append(all, plantstore.WithHooks(s.cfg.watch.hooks(d)))
	}
	all = append(all, opts...)
	c, err := plantstore.NewClient(s.URL, all...)
	if err != nil {
		s.cfg.tb.Fatalf("plantstoretest: Server.%s: %v", method, err)
	}
	return c
}

// HTTPClient returns a new http.Client that reaches s under any of its
// options, such as [WithTLS]. Give it to code that builds its own
// plantstore.Client with s.URL, or wrap its Transport, an *http.Transport
// but under [WithSchedule]. The clients share one pool of connections,
// which s's cleanup closes.
func (s *Server) HTTPClient() *http.Client { return s.httpClient(s.Disk()) }

// httpClient is HTTPClient for a client of d's life.
func (s *Server) httpClient(d *Disk) *http.Client {
	if s.cfg.scheduled {
		return &http.Client{Transport: guardedTransport{s, d.life}}
	}
	return &http.Client{Transport: s.transport}
}

// guardedTransport is s's transport under a schedule, for a client of one
// life of the code under test's process: it fails the requests of that
// life once it has crashed, and checks WithSchedule's limit on the
// requests of a test, on the sending goroutine.
type guardedTransport struct {
	s    *Server
	life int
}

func (g guardedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if ok, dead := g.s.lives.send(g.life); !ok {
		if r.Body != nil {
			r.Body.Close()
		}
		if dead > maxScheduleRequests {
			g.s.cfg.tb.Fatalf("plantstoretest: the process crashed (a crash fault), and its code sent %d requests since, and goes on: return when srv.Crashed()", dead)
		}
		return nil, errCrashed
	}
	if g.s.pastSchedule() {
		g.s.cfg.tb.Fatalf("plantstoretest: the test sent %d requests past its schedule's last fault, and goes on: a loop that never ends?", maxScheduleRequests)
	}
	return g.s.transport.RoundTrip(r)
}
