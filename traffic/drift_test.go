package traffic

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// fault is one failure outcome of a synthetic mix and its weight (its
// share of all attempts).
type fault struct {
	kind       Kind
	status     int
	code       int32 // 0: none
	weight     float64
	median     time.Duration
	retryAfter [2]int // seconds, uniform in [lo, hi]; zero: none
}

// trafficMix is a synthetic service: failures in runs of a mean length
// (a two-state chain), their outcome drawn by weight, lognormal latencies.
type trafficMix struct {
	faults    []fault
	runLength float64
	okMedian  time.Duration
	okP99     float64 // p99 / p50 of the 2xx latency
}

// issueMix is issue 29's example: 1 % 503, 0.5 % 429 with Retry-After
// 1–5 s, 0.2 % broken after sending, 0.1 % 400 with code 3, lognormal
// latency with p99 ≈ 20 × p50, failures in runs of mean length 4.
func issueMix() trafficMix {
	return trafficMix{
		faults: []fault{
			{kind: Kind5xx, status: 503, weight: 0.01, median: 5 * time.Millisecond},
			{kind: Kind429, status: 429, weight: 0.005, median: 2 * time.Millisecond, retryAfter: [2]int{1, 5}},
			{kind: KindBrokenAfterSend, weight: 0.002, median: 30 * time.Millisecond},
			{kind: Kind4xx, status: 400, code: 3, weight: 0.001, median: 3 * time.Millisecond},
		},
		runLength: 4,
		okMedian:  20 * time.Millisecond,
		okP99:     20,
	}
}

// z99 is the standard normal's 99th percentile.
const z99 = 2.3263478740408408

// record runs n attempts of m through a Recorder, as the hooks would
// count them, seeded.
func (m trafficMix) record(n int, seed uint64) *Recording {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var fail float64
	for _, f := range m.faults {
		fail += f.weight
	}
	stay := 1 - 1/m.runLength               // P(fail → fail)
	enter := fail * (1 - stay) / (1 - fail) // P(ok → fail): the stationary failure share is fail
	lognormal := func(median time.Duration, sigma float64) time.Duration {
		return time.Duration(float64(median) * math.Exp(sigma*rng.NormFloat64()))
	}
	sigma := math.Log(m.okP99) / z99
	r := NewRecorder()
	failing := rng.Float64() < fail
	for i := range n {
		if failing {
			x := rng.Float64() * fail
			f := m.faults[len(m.faults)-1]
			for _, g := range m.faults {
				if x < g.weight {
					f = g
					break
				}
				x -= g.weight
			}
			var code *int32
			if f.code != 0 {
				code = &f.code
			}
			var ra time.Duration
			if f.retryAfter[1] > 0 {
				ra = time.Duration(f.retryAfter[0]+rng.IntN(f.retryAfter[1]-f.retryAfter[0]+1)) * time.Second
			}
			r.count(uint64(i), uint8(f.kind.rank()), f.status, code, ra, lognormal(f.median, 0.5))
			failing = rng.Float64() < stay
		} else {
			r.count(uint64(i), kOK, 201, nil, 0, lognormal(m.okMedian, sigma))
			failing = rng.Float64() < enter
		}
	}
	return r.Recording()
}

// change returns the mix with edit applied to a copy.
func change(edit func(m *trafficMix)) trafficMix {
	m := issueMix()
	m.faults = append([]fault(nil), m.faults...)
	edit(&m)
	return m
}

func faultOf(m *trafficMix, k Kind) *fault {
	for i := range m.faults {
		if m.faults[i].kind == k {
			return &m.faults[i]
		}
	}
	panic("no fault " + k)
}

const driftCalls = 50_000

// TestCompareFlagsPlantedChanges records 50,000 calls of the issue's mix
// and of the mix with one change planted, and checks that Compare reports
// the change, naming what moved.
func TestCompareFlagsPlantedChanges(t *testing.T) {
	t.Parallel()
	for i, tc := range []struct {
		name   string
		before trafficMix
		after  trafficMix
		want   string // a subject Compare must report
	}{
		{"503 rate tripled", issueMix(), change(func(m *trafficMix) { faultOf(m, Kind5xx).weight *= 3 }), "rate of 5xx 503"},
		{"a new error code", issueMix(), change(func(m *trafficMix) {
			m.faults = append(m.faults, fault{kind: Kind4xx, status: 400, code: 7, weight: 0.001, median: 3 * time.Millisecond})
		}), "rate of 4xx 400 code 7"},
		{"p99 × 1.5", issueMix(), change(func(m *trafficMix) { m.okP99 *= 1.5 }), "latency of 2xx 201"},
		{"Retry-After doubled", issueMix(), change(func(m *trafficMix) { faultOf(m, Kind429).retryAfter = [2]int{2, 10} }), "retry_after of 429"},
		{"breaks after sending appear", change(func(m *trafficMix) { faultOf(m, KindBrokenAfterSend).kind = KindBrokenBeforeSend }), issueMix(), "rate of broken_after_send"},
		{"p50 × 1.2", issueMix(), change(func(m *trafficMix) { m.okMedian = m.okMedian * 6 / 5 }), "latency of 2xx 201"},
		{"runs twice as long", issueMix(), change(func(m *trafficMix) { m.runLength = 8 }), "failure run length"},
		{"503 became 502", issueMix(), change(func(m *trafficMix) { faultOf(m, Kind5xx).status = 502 }), "rate of 5xx 502"},
		{"429 rate tripled", issueMix(), change(func(m *trafficMix) { faultOf(m, Kind429).weight *= 3 }), "rate of 429"},
		{"timeouts appear", issueMix(), change(func(m *trafficMix) {
			m.faults = append(m.faults, fault{kind: KindAttemptTimeout, weight: 0.001, median: 2 * time.Second})
		}), "rate of attempt_timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seed := uint64(100 + 2*i)
			changes := Compare(tc.before.record(driftCalls, seed), tc.after.record(driftCalls, seed+1))
			var lines []string
			found := false
			for _, c := range changes {
				lines = append(lines, c.String())
				found = found || c.Subject == tc.want
			}
			if !found {
				t.Errorf("Compare did not report %q; it reported:\n%s", tc.want, strings.Join(lines, "\n"))
			} else {
				t.Logf("reported:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// TestCompareQuietOnSameMix compares recordings of 50,000 calls of the
// issue's mix made with other seeds: Compare reports nothing.
func TestCompareQuietOnSameMix(t *testing.T) {
	t.Parallel()
	base := issueMix().record(driftCalls, 1)
	for seed := uint64(2); seed < 12; seed++ {
		if changes := Compare(base, issueMix().record(driftCalls, seed)); len(changes) > 0 {
			for _, c := range changes {
				t.Errorf("seed %d: %s", seed, c)
			}
		}
	}
}
