package traffic

import (
	"fmt"
	"math"
	"slices"
	"time"
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
	// Test names the statistical test and its statistic; P is its p-value,
	// which was below [DriftAlpha] divided by the number of tests made.
	Test string
	P    float64
}

// String returns the change on one line, with its figures and test.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s -> %s (%s, p=%.2g)", c.Subject, c.Before, c.After, c.Test, c.P)
}

// The thresholds of [Compare]. A difference is a change when its test's
// p-value is below DriftAlpha divided by the number of tests made
// (Bonferroni: the chance that two recordings of one mix show any change
// is at most DriftAlpha), and its size is at least the minimum effect of
// its test, so that large recordings do not report trivia.
const (
	// DriftAlpha is the chance, for two recordings of the same traffic,
	// that Compare reports anything.
	DriftAlpha = 0.001
	// MinRateChange is the least change of an outcome's rate reported: an
	// absolute change at least this, and at least a quarter of the
	// earlier rate.
	MinRateChange = 0.0005
	// MinLatencyShift is the least Kolmogorov-Smirnov distance between two
	// latency histograms reported: 2 % of the attempts moved.
	MinLatencyShift = 0.02
	// MinRetryAfterShift is the same for Retry-After: 10 %.
	MinRetryAfterShift = 0.1
	// MinRunLengthRatio is the least ratio of the mean failure-run
	// lengths reported, either way.
	MinRunLengthRatio = 1.25
	// MinSamples is the fewest attempts of an outcome, in each recording,
	// whose latency or Retry-After Compare tests, and the fewest failure
	// runs whose length it tests.
	MinSamples = 30
)

// Compare returns what moved from before to after, or nothing. It tests:
//
//   - each outcome's rate (its count over the attempts), by the Pearson
//     chi-square test of the 2×2 table, with the Rao-Scott correction for
//     failures that come in runs: the statistic is divided by the design
//     effect 1 + s·(E[N²]−E[N])/E[N], N the run length and s the outcome's
//     share of the failures (1 for a 2xx), both pooled over the two
//     recordings — failures in a run are not independent trials;
//   - each outcome's latency, when both have MinSamples attempts of it, by
//     the two-sample Kolmogorov-Smirnov test on the histograms' CDFs at
//     the bucket bounds, with the effective size n₁n₂/(n₁+n₂); binned, the
//     test is conservative;
//   - the Retry-After of 429 and 5xx outcomes alike (none counts below 0 s);
//   - the mean failure-run length, by Welch's z-test on the run lengths.
//
// Outcomes match by kind, status and code; one in a single recording has
// a rate of 0 in the other. See [DriftAlpha] and the minimum effects for
// when a difference is reported.
func Compare(before, after *Recording) []Change {
	var tests []Change
	rate := func(o *Outcome, attempts int64) float64 {
		if o == nil || attempts == 0 {
			return 0
		}
		return float64(o.Count) / float64(attempts)
	}
	spread := runSpread(before, after)
	var failures int64
	for _, r := range [...]*Recording{before, after} {
		failures += r.FailureRuns.Failures
	}
	for _, pair := range pairOutcomes(before, after) {
		b, a := pair[0], pair[1]
		o := a
		if o == nil {
			o = b
		}
		name := o.name()
		x1, x2 := countOf(b), countOf(a)
		n1, n2 := float64(before.Attempts), float64(after.Attempts)
		p1, p2 := rate(b, before.Attempts), rate(a, after.Attempts)
		if n1 > 0 && n2 > 0 {
			pool := (x1 + x2) / (n1 + n2)
			if pool > 0 && pool < 1 {
				share := 1.0
				if o.Kind.Failure() && failures > 0 {
					share = (x1 + x2) / float64(failures)
				}
				deff := 1 + share*spread
				chi := (p1 - p2) * (p1 - p2) / (pool * (1 - pool) * (1/n1 + 1/n2)) / deff
				c := Change{
					Subject: "rate of " + name,
					Before:  fmt.Sprintf("%.3g%% (%d of %d)", 100*p1, int64(x1), before.Attempts),
					After:   fmt.Sprintf("%.3g%% (%d of %d)", 100*p2, int64(x2), after.Attempts),
					Test:    fmt.Sprintf("chi-square, Rao-Scott design effect %.2f: %.1f, 1 df", deff, chi),
					P:       math.Erfc(math.Sqrt(chi / 2)),
				}
				if math.Abs(p2-p1) < max(MinRateChange, p1/4) {
					c.P = -1 - c.P // tested, too small to report
				}
				tests = append(tests, c)
			}
		}
		if b != nil && a != nil && b.Count >= MinSamples && a.Count >= MinSamples {
			tests = append(tests, latencyTest(name, b, a))
			if o.Kind.hasRetryAfter() {
				tests = append(tests, retryAfterTest(name, b, a))
			}
		}
	}
	if before.FailureRuns.Runs >= MinSamples && after.FailureRuns.Runs >= MinSamples {
		tests = append(tests, runTest(&before.FailureRuns, &after.FailureRuns))
	}
	var changes []Change
	for _, c := range tests {
		if c.P >= 0 && c.P < DriftAlpha/float64(len(tests)) {
			c.Test += fmt.Sprintf(", Bonferroni over %d tests", len(tests))
			changes = append(changes, c)
		}
	}
	return changes
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

// runSpread returns (E[N²]−E[N])/E[N] of the run lengths N of both
// recordings: how much more than independent trials failures in runs vary.
func runSpread(recs ...*Recording) float64 {
	var n, s1, s2 float64
	for _, r := range recs {
		for _, l := range r.FailureRuns.Lengths {
			c, x := float64(l.Count), float64(l.Length)
			n, s1, s2 = n+c, s1+c*x, s2+c*x*x
		}
	}
	if s1 == 0 {
		return 0
	}
	return (s2 - s1) / s1
}

// latencyTest compares two outcomes' latency histograms.
func latencyTest(name string, b, a *Outcome) Change {
	cb, ca := cdf(b.Latency), cdf(a.Latency)
	d := 0.0
	for i := range cb {
		d = max(d, math.Abs(cb[i]-ca[i]))
	}
	ne := float64(b.Count) * float64(a.Count) / float64(b.Count+a.Count)
	c := Change{
		Subject: "latency of " + name,
		Before:  quantiles(b.Latency, b.Count),
		After:   quantiles(a.Latency, a.Count),
		Test:    fmt.Sprintf("Kolmogorov-Smirnov on the histograms: D=%.3f, n=%.0f", d, ne),
		P:       ksProb(d, ne),
	}
	if d < MinLatencyShift {
		c.P = -1
	}
	return c
}

// cdf returns the histogram's CDF at each bucket's upper bound.
func cdf(bs []Bucket) []float64 {
	f := make([]float64, NumBuckets)
	var total int64
	for _, b := range bs {
		total += b.Count
	}
	var sum int64
	k := 0
	for i := range f {
		if k < len(bs) {
			if j, _ := bs[k].Index(); j == i {
				sum += bs[k].Count
				k++
			}
		}
		f[i] = float64(sum) / float64(total)
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
func retryAfterTest(name string, b, a *Outcome) Change {
	values := func(o *Outcome) map[int64]int64 {
		m := make(map[int64]int64)
		for _, ra := range o.RetryAfter {
			s := int64(-1)
			if ra.Seconds != nil {
				s = *ra.Seconds
			}
			m[s] += ra.Count
		}
		return m
	}
	vb, va := values(b), values(a)
	var keys []int64
	for _, m := range [...]map[int64]int64{vb, va} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	var sb, sa, d float64
	for _, k := range keys {
		sb += float64(vb[k]) / float64(b.Count)
		sa += float64(va[k]) / float64(a.Count)
		d = max(d, math.Abs(sb-sa))
	}
	ne := float64(b.Count) * float64(a.Count) / float64(b.Count+a.Count)
	c := Change{
		Subject: "retry_after of " + name,
		Before:  describeRetryAfter(vb, b.Count),
		After:   describeRetryAfter(va, a.Count),
		Test:    fmt.Sprintf("Kolmogorov-Smirnov: D=%.3f, n=%.0f", d, ne),
		P:       ksProb(d, ne),
	}
	if d < MinRetryAfterShift {
		c.P = -1
	}
	return c
}

// describeRetryAfter gives the mean of the waits asked for and the share
// of answers that asked for none.
func describeRetryAfter(m map[int64]int64, total int64) string {
	var n, sum int64
	for s, c := range m {
		if s >= 0 {
			n, sum = n+c, sum+s*c
		}
	}
	if n == 0 {
		return "none asked for"
	}
	return fmt.Sprintf("mean %.2fs (%.3g%% none)", float64(sum)/float64(n), 100*float64(total-n)/float64(total))
}

// runTest compares the mean failure-run lengths.
func runTest(b, a *Runs) Change {
	moments := func(r *Runs) (mean, variance float64) {
		var n, s1, s2 float64
		for _, l := range r.Lengths {
			c, x := float64(l.Count), float64(l.Length)
			n, s1, s2 = n+c, s1+c*x, s2+c*x*x
		}
		mean = s1 / n
		return mean, (s2/n - mean*mean) * n / max(n-1, 1)
	}
	mb, vb := moments(b)
	ma, va := moments(a)
	se := math.Sqrt(vb/float64(b.Runs) + va/float64(a.Runs))
	z := 0.0
	if se > 0 {
		z = (ma - mb) / se
	}
	c := Change{
		Subject: "failure run length",
		Before:  fmt.Sprintf("mean %.2f (%d runs, %d failures)", b.mean(), b.Runs, b.Failures),
		After:   fmt.Sprintf("mean %.2f (%d runs, %d failures)", a.mean(), a.Runs, a.Failures),
		Test:    fmt.Sprintf("Welch z-test on the run lengths: z=%.2f", z),
		P:       math.Erfc(math.Abs(z) / math.Sqrt2),
	}
	if r := ma / mb; r < MinRunLengthRatio && r > 1/MinRunLengthRatio {
		c.P = -1
	}
	return c
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
