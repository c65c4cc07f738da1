package plantstoretest

import (
	"errors"
	"sync"
)

// lives is the code under test's process as crash faults see it: which
// life it is in, whether that life crashed, and what its Disk holds. The
// Handler owns it, for a Crash kills the life as it is placed (see
// decide); the Server's methods below read it.
type lives struct {
	mu        sync.Mutex
	values    map[string]string
	life      int  // the lives begun before this one
	crashed   bool // this life crashed: nothing it does counts
	deadSends int  // the requests its clients tried since
}

// alive reports whether life is the one in force, and has not crashed.
// l.mu must be held.
func (l *lives) alive(life int) bool { return l.life == life && !l.crashed }

// crash kills the life in force: a Crash fault placed on a request.
func (l *lives) crash() {
	l.mu.Lock()
	l.crashed = true
	l.mu.Unlock()
}

// send reports whether a client of life may send, and if not, how many
// such requests the dead process has tried.
func (l *lives) send(life int) (ok bool, dead int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.alive(life) {
		return true, 0
	}
	l.deadSends++
	return false, l.deadSends
}

// errCrashed is what a Server's client gets for a request its dead
// process would have sent.
var errCrashed = errors.New("plantstoretest: the process crashed (a crash fault) and sends nothing; a client of the next life, after Server.Restart, does")

// crashless reports whether h is a Server's made without WithSchedule,
// whose clients a crash could not stop: a Handler from NewHandler has no
// test, and no clients.
func (h *Handler) crashless() bool { return h.cfg.tb != nil && !h.cfg.scheduled }

// errCrashless refuses a crash that a Server's clients could not obey.
var errCrashless = errors.New("plantstoretest: a crash needs a Server made WithSchedule (WithSchedule(\"\") places no fault), whose clients it stops")

// Disk is the code under test's own storage, which outlives its process: a
// file or a table, where it keeps what a restarted process needs, such as
// the id of a plant it has not yet seen stored. A "crash" in a schedule
// kills the process at a request ([Fault].Crash): from then on, what it
// stores through a Disk of that life is lost, as a dead process writes
// nothing, and the clients of that life send nothing; [Server.Restart]
// begins the next, whose Disk ([Server.Disk]) holds what was stored
// before. Get one from [Server.Disk]: the zero Disk is not usable. A Disk
// is safe for concurrent use.
type Disk struct {
	l    *lives
	life int
}

// Store keeps value under key, unless the process crashed.
func (d *Disk) Store(key, value string) {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	d.l.put(d.life, key, value)
}

// Load returns the value stored under key, and whether there is one.
func (d *Disk) Load(key string) (string, bool) {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	v, ok := d.l.values[key]
	return v, ok
}

// LoadOrStore returns the value stored under key, and true; or, if there
// is none, stores value (unless the process crashed) and returns it, and
// false, in one step: of two deliveries of one work at once, one stores.
func (d *Disk) LoadOrStore(key, value string) (actual string, loaded bool) {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	if v, ok := d.l.values[key]; ok {
		return v, true
	}
	d.l.put(d.life, key, value)
	return value, false
}

// alive reports whether d's life is the one in force, and has not crashed.
func (d *Disk) alive() bool {
	d.l.mu.Lock()
	defer d.l.mu.Unlock()
	return d.l.alive(d.life)
}

// put stores value under key if life is alive. l.mu must be held.
func (l *lives) put(life int, key, value string) {
	if !l.alive(life) {
		return
	}
	if l.values == nil {
		l.values = map[string]string{}
	}
	l.values[key] = value
}

// Disk returns the storage that outlives the code under test's process,
// as this life writes it.
func (s *Server) Disk() *Disk { return &Disk{&s.lives, s.Life() - 1} }

// Crashed reports whether the code under test's process crashed in this
// life: what it does from then on counts for nothing, and a scenario of
// [Explore] returns without checking its results.
func (s *Server) Crashed() bool {
	s.lives.mu.Lock()
	defer s.lives.mu.Unlock()
	return s.lives.crashed
}

// Restart begins the process's next life if this one crashed, and reports
// whether it did: the clients made from then on send again, the Disk
// holds what was stored before the crash, and a test runs the code under
// test again, as the restarted process given the same work (a queue
// redelivers, a caller retries) would, on new clients: those of the dead
// life send nothing, and what they store on its Disk is lost. [Explore]
// does so after each crashed run of its scenario.
func (s *Server) Restart() bool {
	s.lives.mu.Lock()
	defer s.lives.mu.Unlock()
	if !s.lives.crashed {
		return false
	}
	s.lives.crashed, s.lives.deadSends = false, 0
	s.lives.life++
	return true
}

// Life returns which life of the code under test's process this is: 1,
// then 2 after a crash and [Server.Restart], and so on.
func (s *Server) Life() int {
	s.lives.mu.Lock()
	defer s.lives.mu.Unlock()
	return s.lives.life + 1
}
