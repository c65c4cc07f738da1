package traffic

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/plantstore/plantstore-go/internal/latency"
)

// Change is one thing that moved between two recordings, as [Compare]
// finds it.
type Change struct {
	// Subject is what moved: "rate of 5xx 503", "latency of 2xx 201",
	// "retry_after of 429", "failure run length".
	Subject string
	// Before and After are the figures, such as "1.00% (500 of 50000)" or
	// "p50 20ms p95 96ms p99 401ms".
	Before, After string
	// Test names the statistical test and its statistic; P is its p-value
	// (see [Compare] for when it is small enough).
	Test string
	P    float64
}

// String returns the change on one line, with its figures and test.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s -> %s (%s, p=%.2g)", c.Subject, c.Before, c.After, c.Test, c.P)
}

// The thresholds of [Compare], as its doc states them.
const (
	driftAlpha          = 0.001
	minRateChange       = 0.0005
	minLatencyShift     = 0.02
	minLatencyMoveUS    = 2000 // the latency floor: max(2 ms, 5 %)
	minLatencyMoveShare = 0.05
	minRetryAfterShift  = 0.1
	minRunLengthRatio   = 1.25
	minSamples          = 30
)

// Compare returns what moved from before to after, or nothing. It tests:
//
//   - each outcome's rate (its count over the attempts), by the Pearson
//     chi-square test of the 2×2 table, with the Rao-Scott correction for
//     failures that come in runs: the statistic is divided by the design
//     effect 1 + s·(E[N²]−E[N])/E[N], N the run length and s the outcome's
//     share of the failures (1 for a 2xx), both pooled over the two
//     recordings — failures in a run are not independent trials;
//   - each outcome's latency, when both have 30 attempts of it, by
//     the two-sample Kolmogorov-Smirnov test on the histograms' CDFs at
//     the bucket bounds, with the effective size n₁n₂/(n₁+n₂), past a
//     floor: the distance is the largest share of attempts whose latency t
//     moved by more than max(2 ms, 5 % of t) (binned, the test is
//     conservative). Below the floor a shift is the machine's, not the
//     service's (recordings of one mock setting made minutes apart on a
//     loaded machine moved their p99 by up to 3.1 ms), so a fast service's
//     slowing under 2 ms, such as a p50 of 200 µs become 1.5 ms, is not
//     reported;
//   - the Retry-After of 429 and 5xx outcomes alike (none counts below 0 s);
//   - the failures' runs, when both have 30 runs, by how often a failure
//     follows a failure, a run of n holding n−1 such: the chi-square test
//     of the 2×2 table, divided by the design effect Var(N)/(E[N](E[N]−1)),
//     within each recording, at least 1 — the run lengths' variance over
//     a two-state chain's, under which the failures that follow one are
//     independent trials. A failure is as in [Runs]: a 4xx is set aside,
//     so "follows" skips it.
//
// Outcomes match by kind, status and code; one in a single recording has
// a rate of 0 in the other. A difference is a change when its test's
// p-value is below 0.001 divided by the number of tests made (Bonferroni:
// the chance that two recordings of one mix show any change is at most
// 0.001), and its size is at least its test's minimum effect, so that
// large recordings do not report trivia: a rate that moved by 0.0005 and
// by a quarter of the earlier rate; a Kolmogorov-Smirnov distance of 0.02
// for latency (2 % of the attempts moved past the floor), 0.1 for Retry-After;
// a ratio of 1.25 between the mean run lengths, either way.
func Compare(before, after *Recording) []Change {
	var tests []test
	spread := runSpread(&before.FailureRuns, &after.FailureRuns)
	failures := float64(before.FailureRuns.Failures + after.FailureRuns.Failures)
	for _, pair := range pairOutcomes(before, after) {
		b, a := pair[0], pair[1]
		o := cmp.Or(a, b)
		name := o.name()
		x1, x2 := countOf(b), countOf(a)
		n1, n2 := float64(before.Attempts), float64(after.Attempts)
		if pool := (x1 + x2) / (n1 + n2); n1 > 0 && n2 > 0 && pool > 0 && pool < 1 {
			share := 1.0
			if o.Kind.Failure() && failures > 0 {
				share = (x1 + x2) / failures
			}
			p1, p2, deff := x1/n1, x2/n2, 1+share*spread
			chi, p := proportions(x1, n1, x2, n2, deff)
			tests = append(tests, test{Change{
				Subject: "rate of " + name,
				Before:  fmt.Sprintf("%.3g%% (%d of %d)", 100*p1, int64(x1), before.Attempts),
				After:   fmt.Sprintf("%.3g%% (%d of %d)", 100*p2, int64(x2), after.Attempts),
				Test:    fmt.Sprintf("chi-square, Rao-Scott design effect %.2f: %.1f, 1 df", deff, chi),
				P:       p,
			}, math.Abs(p2-p1) >= max(minRateChange, p1/4)})
		}
		if b != nil && a != nil && b.Count >= minSamples && a.Count >= minSamples {
			tests = append(tests, latencyTest(name, b, a))
			if o.Kind.hasRetryAfter() {
				tests = append(tests, retryAfterTest(name, b, a))
			}
		}
	}
	if before.FailureRuns.Runs >= minSamples && after.FailureRuns.Runs >= minSamples {
		tests = append(tests, burstTest(&before.FailureRuns, &after.FailureRuns))
	}
	var changes []Change
	for _, t := range tests {
		if t.large && t.P < driftAlpha/float64(len(tests)) {
			t.Test += fmt.Sprintf(", Bonferroni over %d tests", len(tests))
			changes = append(changes, t.Change)
		}
	}
	return changes
}

// test is a test Compare made, and whether its difference is large enough.
type test struct {
	Change
	large bool
}

// countOf returns o's count, 0 for none.
func countOf(o *Outcome) float64 {
	if o == nil {
		return 0
	}
	return float64(o.Count)
}

// pairOutcomes pairs the outcomes of two recordings by kind, status and
// code, in order; nil stands for an outcome one of them lacks.
func pairOutcomes(before, after *Recording) [][2]*Outcome {
	var pairs [][2]*Outcome
	i, j := 0, 0
	for i < len(before.Outcomes) || j < len(after.Outcomes) {
		switch {
		case j == len(after.Outcomes) || i < len(before.Outcomes) && compareOutcomes(&before.Outcomes[i], &after.Outcomes[j]) < 0:
			pairs = append(pairs, [2]*Outcome{&before.Outcomes[i], nil})
			i++
		case i == len(before.Outcomes) || compareOutcomes(&before.Outcomes[i], &after.Outcomes[j]) > 0:
			pairs = append(pairs, [2]*Outcome{nil, &after.Outcomes[j]})
			j++
		default:
			pairs = append(pairs, [2]*Outcome{&before.Outcomes[i], &after.Outcomes[j]})
			i, j = i+1, j+1
		}
	}
	return pairs
}

// runSums returns the number of runs, and the sums of their lengths and of
// their lengths squared.
func runSums(r *Runs) (n, s1, s2 float64) {
	for _, l := range r.Lengths {
		c, x := float64(l.Count), float64(l.Length)
		n, s1, s2 = n+c, s1+c*x, s2+c*x*x
	}
	return n, s1, s2
}

// runSpread returns (E[N²]−E[N])/E[N] of the run lengths N of both
// recordings: how much more than independent trials failures in runs vary.
func runSpread(b, a *Runs) float64 {
	_, b1, b2 := runSums(b)
	_, a1, a2 := runSums(a)
	if b1+a1 == 0 {
		return 0
	}
	return (b2 + a2 - b1 - a1) / (b1 + a1)
}

// latencyTest compares two outcomes' latency histograms, beyond the
// latency floor.
func latencyTest(name string, b, a *Outcome) test {
	d := ksBeyond(cdf(b), cdf(a), minLatencyMoveUS, minLatencyMoveShare)
	ne := float64(b.Count) * float64(a.Count) / float64(b.Count+a.Count)
	return test{Change{
		Subject: "latency of " + name,
		Before:  quantiles(b.Latency, b.Count),
		After:   quantiles(a.Latency, a.Count),
		Test: fmt.Sprintf("Kolmogorov-Smirnov on the histograms beyond a shift of max(%v, %g%%): D=%.3f, n=%.0f",
			time.Duration(minLatencyMoveUS*1e3), 100*minLatencyMoveShare, d, ne),
		P: ksProb(d, ne),
	}, d >= minLatencyShift}
}

// ksBeyond returns the Kolmogorov-Smirnov distance between two CDFs, as
// cdf returns them, once every latency t of either may move by
// max(floorUS, share·t) µs: the largest share of attempts that moved
// further. With no floor it is the distance itself.
func ksBeyond(cb, ca []float64, floorUS, share float64) float64 {
	d := 0.0
	for i := range cb {
		_, t := latency.Bounds(i)
		moved := t + max(floorUS, share*t)
		d = max(d, cb[i]-cdfAt(ca, moved), ca[i]-cdfAt(cb, moved))
	}
	return d
}

// cdfAt reads the CDF f, as cdf returns it, at x µs, log-uniformly within
// x's bucket.
func cdfAt(f []float64, x float64) float64 {
	i := latency.Of(time.Duration(x * 1e3))
	from, to := latency.Bounds(i)
	below := 0.0
	if i > 0 {
		below = f[i-1]
	}
	return below + (f[i]-below)*min(1, max(0, math.Log(x/from)/math.Log(to/from)))
}

// cdf returns the CDF of o's latency at each bucket's upper bound.
func cdf(o *Outcome) []float64 {
	f := make([]float64, latency.Buckets)
	for _, b := range o.Latency {
		if i, ok := latency.Index(b.FromUS, b.ToUS); ok {
			f[i] = float64(b.Count)
		}
	}
	var sum float64
	for i := range f {
		sum += f[i]
		f[i] = sum / float64(o.Count)
	}
	return f
}

// quantiles describes a histogram by its p50, p95 and p99, each read
// log-uniformly within its bucket.
func quantiles(bs []Bucket, total int64) string {
	q := func(p float64) time.Duration {
		want := p * float64(total)
		var sum float64
		for _, b := range bs {
			if sum+float64(b.Count) >= want {
				f := (want - sum) / float64(b.Count)
				return time.Duration(b.FromUS * math.Pow(b.ToUS/b.FromUS, f) * 1000)
			}
			sum += float64(b.Count)
		}
		return 0
	}
	return fmt.Sprintf("p50 %v p95 %v p99 %v", round3(q(0.5)), round3(q(0.95)), round3(q(0.99)))
}

// round3 rounds d to 3 significant digits, for a message.
func round3(d time.Duration) time.Duration {
	for m := time.Duration(1); ; m *= 10 {
		if d < 1000*m {
			return d.Round(m)
		}
	}
}

// retryAfterTest compares two outcomes' Retry-After distributions.
func retryAfterTest(name string, b, a *Outcome) test {
	counts := map[int64][2]int64{} // by seconds, -1 for none: b's, a's
	for i, o := range [...]*Outcome{b, a} {
		for _, ra := range o.RetryAfter {
			s := int64(-1)
			if ra.Seconds != nil {
				s = *ra.Seconds
			}
			c := counts[s]
			c[i] += ra.Count
			counts[s] = c
		}
	}
	var sb, sa, d float64
	for _, s := range slices.Sorted(maps.Keys(counts)) {
		sb += float64(counts[s][0]) / float64(b.Count)
		sa += float64(counts[s][1]) / float64(a.Count)
		d = max(d, math.Abs(sb-sa))
	}
	ne := float64(b.Count) * float64(a.Count) / float64(b.Count+a.Count)
	return test{Change{
		Subject: "retry_after of " + name,
		Before:  describeRetryAfter(b),
		After:   describeRetryAfter(a),
		Test:    fmt.Sprintf("Kolmogorov-Smirnov: D=%.3f, n=%.0f", d, ne),
		P:       ksProb(d, ne),
	}, d >= minRetryAfterShift}
}

// describeRetryAfter gives the mean of the waits o's answers asked for and
// the share of them that asked for none.
func describeRetryAfter(o *Outcome) string {
	var n, sum int64
	for _, ra := range o.RetryAfter {
		if ra.Seconds != nil {
			n, sum = n+ra.Count, sum+*ra.Seconds*ra.Count
		}
	}
	if n == 0 {
		return "none asked for"
	}
	return fmt.Sprintf("mean %.2fs (%.3g%% none)", float64(sum)/float64(n), 100*float64(o.Count-n)/float64(o.Count))
}

// burstTest compares how often a failure follows a failure, with the
// design effect of runs that vary more than a two-state chain's (see
// [Compare]).
func burstTest(b, a *Runs) test {
	rb, fb, sb := runSums(b)
	ra, fa, sa := runSums(a)
	deff := 1.0
	if chain := fb*fb/rb - fb + fa*fa/ra - fa; chain > 0 {
		deff = max(1, (sb-fb*fb/rb+sa-fa*fa/ra)/chain)
	}
	chi, p := proportions(fb-rb, fb, fa-ra, fa, deff)
	r := (fa / ra) / (fb / rb)
	describe := func(runs, failures float64) string {
		return fmt.Sprintf("mean %.2f (%.0f runs; %.0f of %.0f failures followed by one)", failures/runs, runs, failures-runs, failures)
	}
	return test{Change{
		Subject: "failure run length",
		Before:  describe(rb, fb),
		After:   describe(ra, fa),
		Test:    fmt.Sprintf("chi-square on the failures followed by a failure, design effect %.2f: %.1f, 1 df", deff, chi),
		P:       p,
	}, r >= minRunLengthRatio || r <= 1/minRunLengthRatio}
}

// proportions tests whether x1 of n1 and x2 of n2 are one proportion: it
// returns Pearson's chi-square of the 2×2 table divided by the design
// effect deff, and its p-value (1 degree of freedom).
func proportions(x1, n1, x2, n2, deff float64) (chi, p float64) {
	pool := (x1 + x2) / (n1 + n2)
	if !(pool > 0 && pool < 1) {
		return 0, 1
	}
	d := x1/n1 - x2/n2
	chi = d * d / (pool * (1 - pool) * (1/n1 + 1/n2)) / deff
	return chi, math.Erfc(math.Sqrt(chi / 2))
}

// ksProb is the two-sample Kolmogorov-Smirnov p-value of distance d at
// effective size ne (Stephens' approximation, as Numerical Recipes gives
// it).
func ksProb(d, ne float64) float64 {
	sq := math.Sqrt(ne)
	lambda := (sq + 0.12 + 0.11/sq) * d
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	sign := 1.0
	for j := 1.0; j <= 100; j++ {
		term := sign * 2 * math.Exp(-2*j*j*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-300 || math.Abs(term) <= 1e-12*math.Abs(sum) {
			break
		}
		sign = -sign
	}
	return min(max(sum, 0), 1)
}
