package traffic

import (
	"math"
	"slices"
	"time"

	"github.com/plantstore/plantstore-go/internal/latency"
)

// slot counts one outcome.
type slot struct {
	kind    uint8 // index in kinds
	hasCode bool
	nra     uint8
	status  uint16
	code    int32
	count   uint32
	latency [latency.Buckets]uint32
	ra      [maxRetryAfters]raCount // kinds 429 and 5xx only
}

// raCount counts one Retry-After value, in seconds; -1 for none.
type raCount struct {
	seconds int32
	count   uint32
}

// The kinds by their index in kinds, as the hooks classify attempts:
// comparing Kind strings would cost the hot path.
const (
	kOK uint8 = iota
	k4xx
	k429
	k5xx
	kBrokenBeforeSend
	kBrokenAfterSend
	kAttemptTimeout
)

// keyedSlots is how many distinct outcomes with a status a Recorder keeps:
// the others hold the four kinds without a status, 429, and the catch-alls
// of 2xx, 4xx and 5xx.
const keyedSlots = maxOutcomes - 7

// count records one attempt of sequence number seq.
func (r *Recorder) count(seq uint64, k uint8, status int, code *int32, ra, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.attempts == math.MaxUint32 || seq < r.from {
		return
	}
	r.attempts++
	s := r.slot(k, status, code)
	s.count++
	s.latency[latency.Of(d)]++
	if k == k429 || k == k5xx {
		s.countRetryAfter(ra)
	}
	state := failed
	switch k {
	case kOK:
		state = ended
	case k4xx:
		state = skipped // the caller's own mistake: see Runs
	}
	r.settleLocked(seq, state)
}

// slot returns the slot of an outcome, taking a free one, or the catch-all
// of its kind once the keyed ones are all taken. r.mu is held.
func (r *Recorder) slot(ki uint8, status int, code *int32) *slot {
	if ki > k5xx || !kinds[ki].statusFits(status) {
		status, code = 0, nil
	}
	var c int32
	if code != nil {
		c = *code
	}
	for i := range r.nslots {
		s := &r.slots[i]
		if s.kind == ki && int(s.status) == status && s.hasCode == (code != nil) && s.code == c {
			return s
		}
	}
	if status != 0 && ki != k429 {
		if r.keyed == keyedSlots {
			return r.slot(ki, 0, nil)
		}
		r.keyed++
	}
	s := &r.slots[r.nslots]
	r.nslots++
	*s = slot{kind: ki, status: uint16(status), hasCode: code != nil, code: c}
	return s
}

// countRetryAfter counts the wait ra asked for.
func (s *slot) countRetryAfter(ra time.Duration) {
	sec := int32(-1)
	if ra > 0 {
		sec = int32(min((ra+time.Second/2)/time.Second, maxRetryAfterSeconds))
	}
	dist := func(i int) int32 { d := s.ra[i].seconds - sec; return max(d, -d) }
	best := -1
	for i := range int(s.nra) {
		if s.ra[i].seconds == sec {
			s.ra[i].count++
			return
		}
		if best < 0 || dist(i) < dist(best) {
			best = i
		}
	}
	if s.nra < maxRetryAfters {
		s.ra[s.nra] = raCount{seconds: sec, count: 1}
		s.nra++
		return
	}
	s.ra[best].count++
}

// outcome returns what s counted, as a Recording holds it.
func (s *slot) outcome() Outcome {
	o := Outcome{Kind: kinds[s.kind], Status: int(s.status), Count: int64(s.count), Latency: []Bucket{}}
	if s.hasCode {
		code := s.code
		o.Code = &code
	}
	for i, n := range s.latency {
		if n > 0 {
			from, to := latency.Bounds(i)
			o.Latency = append(o.Latency, Bucket{FromUS: from, ToUS: to, Count: int64(n)})
		}
	}
	if o.Kind.hasRetryAfter() {
		for _, ra := range s.ra[:s.nra] {
			v := RetryAfter{Count: int64(ra.count)}
			if ra.seconds >= 0 {
				sec := int64(ra.seconds)
				v.Seconds = &sec
			}
			o.RetryAfter = append(o.RetryAfter, v)
		}
		slices.SortFunc(o.RetryAfter, func(a, b RetryAfter) int { return compareAbsentFirst(a.Seconds, b.Seconds) })
	}
	return o
}
