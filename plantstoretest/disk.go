package plantstoretest

import (
	"errors"
	"sync"
)

// Disk is the code under test's own storage, which outlives its process: a
// file or a table, where it keeps what a restarted process needs, such as
// the id of a plant it has not yet seen stored. A "crash" in a schedule
// kills the process at a request ([Fault].Crash): from then until
// [Server.Restart], what it stores is lost, as a dead process
// writes nothing, and the Server's clients send nothing (under
// [WithSchedule], which Explore uses). [Server.Disk]
// returns the Server's. A Disk is safe for concurrent use.
type Disk struct {
	mu      sync.Mutex
	values  map[string]string
	life    int  // the lives begun before this one
	crashed bool // this life crashed: nothing it does counts
}

// Store keeps value under key, unless the process crashed.
func (d *Disk) Store(key, value string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.crashed {
		if d.values == nil {
			d.values = map[string]string{}
		}
		d.values[key] = value
	}
}

// Load returns the value stored under key, and whether there is one.
func (d *Disk) Load(key string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.values[key]
	return v, ok
}

// crash kills the process: a Crash fault placed on a request.
func (d *Disk) crash() {
	d.mu.Lock()
	d.crashed = true
	d.mu.Unlock()
}

// errCrashed is what a Server's client gets for a request its dead
// process would have sent.
var errCrashed = errors.New("plantstoretest: the process crashed (a crash fault) and sends nothing until Server.Restart")

// Disk returns the storage that outlives the code under test's process.
func (s *Server) Disk() *Disk { return &s.disk }

// Crashed reports whether the code under test's process crashed in this
// life: what it does from then on counts for nothing, and a scenario of
// [Explore] returns without checking its results.
func (s *Server) Crashed() bool {
	s.disk.mu.Lock()
	defer s.disk.mu.Unlock()
	return s.disk.crashed
}

// Restart begins the process's next life if this one crashed, and reports
// whether it did: the Server's clients send again, its Disk keeps what was
// stored before the crash, and a test runs the code under test again, as
// the restarted process, given the work again (a queue redelivers, a caller
// retries), would. [Explore] does so after each crashed run of its
// scenario.
func (s *Server) Restart() bool {
	s.disk.mu.Lock()
	defer s.disk.mu.Unlock()
	if !s.disk.crashed {
		return false
	}
	s.disk.crashed = false
	s.disk.life++
	return true
}

// Life returns which life of the code under test's process this is: 1,
// then 2 after a crash and [Server.Restart], and so on.
func (s *Server) Life() int {
	s.disk.mu.Lock()
	defer s.disk.mu.Unlock()
	return s.disk.life + 1
}
