package plantstoretest

import "github.com/plantstore/plantstore-go"

// Plants is [Handler.Plants].
func (s *Server) Plants() []plantstore.NewPlant { return s.h.Plants() }

// Requests is [Handler.Requests].
func (s *Server) Requests() []Request { return s.h.Requests() }

// RequestsSince is [Handler.RequestsSince].
func (s *Server) RequestsSince(seq uint64) []Request { return s.h.RequestsSince(seq) }

// ClearRequests is [Handler.ClearRequests].
func (s *Server) ClearRequests() { s.h.ClearRequests() }

// Inject is [Handler.Inject].
func (s *Server) Inject(f Fault) {
	s.tb.Helper()
	s.h.Inject(f)
}

// AddFault is [Handler.AddFault].
func (s *Server) AddFault(f Fault) (id int, err error) { return s.h.AddFault(f) }

// Faults is [Handler.Faults].
func (s *Server) Faults() []InjectedFault { return s.h.Faults() }

// ClearFaults is [Handler.ClearFaults].
func (s *Server) ClearFaults() { s.h.ClearFaults() }

// Reset is [Handler.Reset].
func (s *Server) Reset() { s.h.Reset() }

// Seed is [Handler.Seed].
func (s *Server) Seed(plants []plantstore.NewPlant) error { return s.h.Seed(plants) }

// SeedJSON is [Handler.SeedJSON].
func (s *Server) SeedJSON(data []byte) (int, error) { return s.h.SeedJSON(data) }

// SetSchedule is [Handler.SetSchedule].
func (s *Server) SetSchedule(text string) error { return s.h.SetSchedule(text) }
