package traffic

// window is how many attempts the Recorder puts back in start order.
const window = 2048

// The states of an attempt in the window.
const (
	pending uint8 = iota
	ended         // a success
	failed
	skipped // not in the runs: the caller's context ended it, or a 4xx
)

// settle records the state of attempt seq for the runs.
func (r *Recorder) settle(seq uint64, state uint8) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if seq >= r.from {
		r.settleLocked(seq, state)
	}
}

// settleLocked puts attempt seq in the window and folds into the runs the
// attempts, in order of start, that have all ended. An attempt that ends
// after the window moved past it is folded as it ends; one that would fall
// beyond the window moves it on, past attempts still pending. r.mu is held.
func (r *Recorder) settleLocked(seq uint64, state uint8) {
	if seq < r.next {
		r.runs.fold(state)
		return
	}
	for seq-r.next >= window {
		r.advance()
	}
	r.win[seq%window] = state
	for r.win[r.next%window] != pending {
		r.advance()
	}
}

// advance folds the window's first attempt into the runs, if it ended, and
// moves the window past it. r.mu is held.
func (r *Recorder) advance() {
	i := r.next % window
	r.runs.fold(r.win[i])
	r.win[i] = pending
	r.next++
}

// runCounter counts the runs of failures: by length-1, and the open one.
type runCounter struct {
	byLength [maxRunLength]uint32
	open     int
}

// fold adds an attempt's state to the runs; a pending or skipped attempt
// adds nothing.
func (rc *runCounter) fold(state uint8) {
	switch state {
	case failed:
		rc.open++
	case ended:
		rc.close()
	}
}

// close counts the open run, if any.
func (rc *runCounter) close() {
	if rc.open > 0 {
		rc.byLength[min(rc.open, maxRunLength)-1]++
		rc.open = 0
	}
}
