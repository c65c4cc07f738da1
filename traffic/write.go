package traffic

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strings"
)

// noteOrigin notes the scheme and host of a call's URL.
func (r *Recorder) noteOrigin(u string) {
	o := r.origin.Load()
	if o == nil {
		first := originOf(u)
		r.origin.CompareAndSwap(nil, &first)
		o = r.origin.Load()
	}
	if !r.mixed.Load() && !strings.HasPrefix(u, *o) {
		r.mixed.Store(true) // or the origin is "-", which source leaves out
	}
}

// originOf returns "scheme://host/" of URL u, or "-" for one that does
// not parse or has something else in its host.
func originOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User != nil || p.Host == "" || strings.ContainsFunc(p.Scheme+p.Host, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".-:[]+", c))
	}) {
		return "-"
	}
	return p.Scheme + "://" + p.Host + "/"
}

// snapshot returns what r recorded so far. The runs count the attempts
// that ended, in the order they started, with the open run closed, as if
// the attempts still running had not started.
func (r *Recorder) snapshot() *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordingLocked()
}

// Reset returns what r recorded so far, as [Recorder.WriteTo] writes it,
// and starts a new period with nothing recorded, at one instant, so that a
// long-running service records period after period (a day's traffic, to
// compare with the last) through the same hooks. An attempt in flight at
// the Reset is counted in neither period; the calls' origin is kept.
func (r *Recorder) Reset() *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.recordingLocked()
	from := r.seq.Load()
	r.attempts, r.keyed, r.nslots = 0, 0, 0
	r.slots = [maxOutcomes]slot{}
	r.runs = runCounter{}
	r.win = [window]uint8{}
	r.next, r.from = from, from
	r.afterOK, r.afterRefused = 0, 0
	return rec
}

// recordingLocked is snapshot; r.mu is held.
func (r *Recorder) recordingLocked() *Recording {
	rec := &Recording{Attempts: int64(r.attempts), Outcomes: make([]Outcome, 0, r.nslots)}
	for i := range r.nslots {
		rec.Outcomes = append(rec.Outcomes, r.slots[i].outcome())
	}
	slices.SortFunc(rec.Outcomes, func(a, b Outcome) int { return compareOutcomes(&a, &b) })
	for _, o := range rec.Outcomes {
		if o.Kind.Failure() {
			rec.FailureRuns.Failures += o.Count
		}
	}
	// Fold what the window holds into a copy of the runs.
	runs := r.runs
	for seq := r.next; seq < r.next+window; seq++ {
		runs.fold(r.win[seq%window])
	}
	runs.close()
	rec.FailureRuns.Lengths = []RunLength{}
	for i, n := range runs.byLength {
		if n > 0 {
			rec.FailureRuns.Lengths = append(rec.FailureRuns.Lengths, RunLength{Length: i + 1, Count: int64(n)})
			rec.FailureRuns.Runs += int64(n)
		}
	}
	if r.afterOK+r.afterRefused > 0 {
		rec.AfterBreaks = &AfterBreaks{OK: int64(r.afterOK), Refused: int64(r.afterRefused)}
	}
	return rec
}

// source returns the document's source: "traffic.Recorder: " and the
// origin of the calls recorded.
func (r *Recorder) source() string {
	o := r.origin.Load()
	if o == nil || *o == "-" {
		return "traffic.Recorder"
	}
	src := "traffic.Recorder: " + strings.TrimSuffix(*o, "/")
	if r.mixed.Load() {
		src += " and others"
	}
	return src
}

// WriteTo writes what r recorded so far as a profile document, as the
// package doc shows it, an outcome a line.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	src := r.source()
	rec := r.snapshot()
	var b bytes.Buffer
	b.WriteString("{\n  \"source\": ")
	writeJSON(&b, src)
	b.WriteString(",\n  \"traffic\": {\n    \"attempts\": ")
	writeJSON(&b, rec.Attempts)
	b.WriteString(",\n    \"outcomes\": [")
	for i := range rec.Outcomes {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n      ")
		writeJSON(&b, &rec.Outcomes[i])
	}
	b.WriteString("\n    ],\n    \"failure_runs\": ")
	writeJSON(&b, &rec.FailureRuns)
	if rec.AfterBreaks != nil {
		b.WriteString(",\n    \"after_breaks\": ")
		writeJSON(&b, rec.AfterBreaks)
	}
	b.WriteString("\n  }\n}\n")
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// writeJSON writes v's JSON, which cannot fail for the types written.
func writeJSON(b *bytes.Buffer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic("traffic: " + err.Error())
	}
	b.Write(data)
}
