package plantstoretest

import "github.com/plantstore/plantstore-go"

// The methods below inspect and script the fake a [Server] serves. Each is
// the [Handler] method of the same name; a Server has every method of a
// Handler but ServeHTTP, as it serves the fake itself, and Close, as
// [Server.Close] closes both.

// Plants returns the stored plants in the order they arrived, as
// [Handler.Plants] does. The slice is a copy that the caller may modify.
func (s *Server) Plants() []plantstore.NewPlant { return s.h.Plants() }

// Requests returns the journal of every request that reached the fake, with
// what became of each, as [Handler.Requests] does.
func (s *Server) Requests() []Request { return s.h.Requests() }

// RequestsSince returns the recorded requests whose Seq is greater than seq,
// as [Handler.RequestsSince] does.
func (s *Server) RequestsSince(seq uint64) []Request { return s.h.RequestsSince(seq) }

// ClearRequests empties the journal, as [Handler.ClearRequests] does.
func (s *Server) ClearRequests() { s.h.ClearRequests() }

// Inject adds f to the faults waiting for requests, as [Handler.Inject]
// does. A fault that can never act as written fails the test with
// tb.Fatalf, reported at the test's line that called Inject. A fault with
// replies left when the test ends fails the test too; see [NewServer].
func (s *Server) Inject(f Fault) {
	s.tb.Helper()
	s.h.Inject(f)
}

// AddFault adds f to the faults waiting for requests and returns its ID, or
// the error Inject would fail the test with, as [Handler.AddFault] does.
func (s *Server) AddFault(f Fault) (id int, err error) { return s.h.AddFault(f) }

// Faults returns the injected faults with replies left, in the order they
// were injected, as [Handler.Faults] does. The sum of their Left is how
// many injected replies are still waiting for a request.
func (s *Server) Faults() []InjectedFault { return s.h.Faults() }

// ClearFaults forgets the injected faults that have replies left, without
// reporting them as unused, as [Handler.ClearFaults] does.
func (s *Server) ClearFaults() { s.h.ClearFaults() }

// Reset forgets the stored plants, the journal and the waiting faults, as
// [Handler.Reset] does, so that subtests can share a server.
func (s *Server) Reset() { s.h.Reset() }

// Seed stores plants, all or none, each checked as POST /plants checks it,
// as [Handler.Seed] does. The error is a [*SeedError].
func (s *Server) Seed(plants []plantstore.NewPlant) error { return s.h.Seed(plants) }

// SeedJSON is [Server.Seed] for a JSON array of plants, and returns how
// many it stored, as [Handler.SeedJSON] does. The error is a [*SeedError].
func (s *Server) SeedJSON(data []byte) (int, error) { return s.h.SeedJSON(data) }
