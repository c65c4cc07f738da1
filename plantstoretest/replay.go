package plantstoretest

import (
	"cmp"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/plantstore/plantstore-go/traffic"
)

// replay makes the fake answer with the mix of a recorded deployment's
// traffic, as a [Profile]'s Traffic describes and TRAFFIC.md ("What the
// fake does with a recording") details. The Handler's mutex guards it.
type replay struct {
	draws   draws
	failing bool // the last decision was a failure
	pFail   [2]float64
	ok      histogram // the 2xx outcome's latency; empty if none was recorded
	fails   []replayed
	total   int64   // the failures' count: the last fails[i].upTo
	stored  float64 // the share of breaks after sending that store the plant
}

// replayed is one recorded outcome, made ready to replay.
type replayed struct {
	kind    traffic.Kind
	status  int   // of a 429 or 5xx; 500 for 5xx's catch-all outcome
	upTo    int64 // the failures' counts up to and including this one
	latency histogram
	after   []retryAfter // nil for no Retry-After, as for kinds other than 429 and 5xx
}

// histogram is a latency histogram: the buckets that hold any, in order.
type histogram []span

// span is a bucket of a histogram, from and to in microseconds, with the
// counts up to and including it.
type span struct {
	from, to float64
	upTo     int64
}

// retryAfter is a recorded Retry-After: header is nil for none.
type retryAfter struct {
	header http.Header
	upTo   int64
}

// replaySalt keeps the replay's choices apart from [chaos]'s under the same
// seed.
const replaySalt = 0x7472_6166_6669_6321 // "traffic!"

// newReplay makes rec, which rec.Check accepted, ready to replay with seed.
func newReplay(rec *traffic.Recording, seed int64) *replay {
	r := &replay{draws: draws{seed: uint64(seed) ^ replaySalt}, stored: 1}
	// A recording made before v0.4.0 has no evidence: every break stores.
	if ab := rec.AfterBreaks; ab != nil && ab.OK+ab.Refused > 0 {
		r.stored = float64(ab.Refused) / float64(ab.OK+ab.Refused)
	}
	var ok []traffic.Bucket // of every 2xx outcome
	for _, o := range rec.Outcomes {
		switch o.Kind {
		case traffic.KindOK:
			ok = append(ok, o.Latency...)
			continue
		case traffic.Kind4xx: // the fake's own checks answer what the request said
			continue
		}
		r.total += o.Count
		p := replayed{kind: o.Kind, status: o.Status, upTo: r.total, latency: newHistogram(o.Latency)}
		if o.Kind == traffic.Kind429 || o.Kind == traffic.Kind5xx {
			p.status = cmp.Or(p.status, http.StatusInternalServerError) // 5xx's catch-all
			var upTo int64
			for _, ra := range o.RetryAfter {
				upTo += ra.Count
				a := retryAfter{upTo: upTo}
				if ra.Seconds != nil {
					a.header = http.Header{"Retry-After": {strconv.FormatInt(*ra.Seconds, 10)}}
				}
				p.after = append(p.after, a)
			}
		}
		r.fails = append(r.fails, p)
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].FromUS < ok[j].FromUS })
	r.ok = newHistogram(ok)
	// The chain of TRAFFIC.md. (A recording made before v0.4.0 counts its
	// 4xx in the runs, which the clamp keeps a probability.)
	if f, runs := r.total, rec.FailureRuns.Runs; f > 0 {
		r.pFail = [2]float64{1, 1} // no other outcome recorded
		if s := rec.Attempts - f; s > 0 {
			r.pFail = [2]float64{min(1, float64(runs)/float64(s)), max(0, 1-float64(runs)/float64(f))}
		}
	}
	return r
}

// newHistogram returns the histogram of buckets, in order, those of one
// bucket merged.
func newHistogram(buckets []traffic.Bucket) histogram {
	var h histogram
	var upTo int64
	for _, b := range buckets {
		upTo += b.Count
		if n := len(h); n > 0 && h[n-1].from == b.FromUS {
			h[n-1].upTo = upTo
			continue
		}
		h = append(h, span{from: b.FromUS, to: b.ToUS, upTo: upTo})
	}
	return h
}

// place is the replay as a fault source (see [Handler.decide]): its next
// decision, a fault, or a fault with only a Delay and no source for the
// fake's own reply after the recorded latency, or none for the fake's own
// reply at once. The i-th decision depends on the seed and the decisions
// before it only.
func (r *replay) place(*Handler, Request) (*Fault, string) {
	x := r.draws.next()
	u := func() float64 {
		x = mix64(x)
		return uniform(x)
	}
	state := 0
	if r.failing {
		state = 1
	}
	r.failing = u() < r.pFail[state]
	if !r.failing {
		return r.success(u)
	}
	c := int64(u() * float64(r.total))
	o := &r.fails[sort.Search(len(r.fails), func(i int) bool { return r.fails[i].upTo > c })]
	switch o.kind {
	case traffic.KindBrokenBeforeSend:
		return &Fault{Drop: true, Delay: o.latency.sample(u)}, "traffic"
	case traffic.KindBrokenAfterSend:
		// The draw is made only for a share below 1, so that a recording
		// without the evidence replays as it did.
		store := r.stored >= 1 || u() < r.stored
		return &Fault{Store: store, Drop: true, Delay: o.latency.sample(u)}, "traffic"
	case traffic.KindAttemptTimeout: // held to its bucket's top: the client times out first
		return &Fault{Drop: true, Delay: o.latency.top(u)}, "traffic"
	case traffic.Kind429, traffic.Kind5xx:
		f := &Fault{Status: o.status, Delay: o.latency.sample(u)}
		if len(o.after) > 0 {
			c := int64(u() * float64(o.after[len(o.after)-1].upTo))
			f.Header = o.after[sort.Search(len(o.after), func(i int) bool { return o.after[i].upTo > c })].header
		}
		return f, "traffic"
	}
	return r.success(u) // no failure to replay was recorded
}

// success is the fake's own reply after a latency of the 2xx outcome.
func (r *replay) success(u func() float64) (*Fault, string) {
	if d := r.ok.sample(u); d > 0 {
		return &Fault{Delay: d}, ""
	}
	return nil, ""
}

// sample draws a latency: a bucket by its count, then a point log-uniform
// within it (uniform from 0), or 0 for an empty histogram.
func (h histogram) sample(u func() float64) time.Duration {
	b, ok := h.pick(u)
	if !ok {
		return 0
	}
	v := b.from * math.Pow(b.to/b.from, u())
	if b.from <= 0 {
		v = b.to * u()
	}
	return micros(v)
}

// top draws a bucket as sample does and returns its top, 0 for an empty
// histogram.
func (h histogram) top(u func() float64) time.Duration {
	b, _ := h.pick(u) // the zero span if empty
	return micros(b.to)
}

// pick draws a bucket by its count; ok is false for an empty histogram.
func (h histogram) pick(u func() float64) (b span, ok bool) {
	if len(h) == 0 {
		return b, false
	}
	c := int64(u() * float64(h[len(h)-1].upTo))
	return h[sort.Search(len(h), func(i int) bool { return h[i].upTo > c })], true
}

// micros converts v microseconds to a Duration, within a Duration's range.
func micros(v float64) time.Duration {
	if ns := v * 1e3; ns < float64(math.MaxInt64) {
		return time.Duration(ns)
	}
	return math.MaxInt64
}
