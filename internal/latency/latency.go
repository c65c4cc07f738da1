// Package latency is the histogram scheme of package traffic's latencies:
// OpenTelemetry's base-2 exponential histogram at scale 3 (base 2^(1/8)),
// in microseconds. Bucket i holds the latencies in (2^(i/8), 2^((i+1)/8)]
// µs, for i from 0 to [Buckets]-1; bucket 0 also holds every latency of
// 1 µs or less, and the last one every latency over 2^32 µs (about 71
// minutes). A bucket is 9.05 % wider than where it starts, which bounds
// the error of a quantile read from the histogram. The scheme is a
// standard so that another language reads a recording's buckets, and
// writes its own, with no constants of ours.
package latency

import (
	"math"
	"strconv"
	"time"
)

// perOctave is 2^scale, scale 3: the buckets to a doubling.
const perOctave = 8

// Buckets is the number of buckets: 32 octaves from 1 µs.
const Buckets = 32 * perOctave

// Of returns the index of the bucket that holds latency d, as
// OpenTelemetry's LogarithmMapping computes it: a power of two exactly,
// which a logarithm may round, goes in the bucket it ends.
func Of(d time.Duration) int {
	if d <= time.Microsecond {
		return 0
	}
	us := float64(d) / float64(time.Microsecond)
	i := 0
	if frac, exp := math.Frexp(us); frac == 0.5 {
		i = (exp-1)*perOctave - 1
	} else {
		i = int(math.Floor(math.Log2(us) * perOctave))
	}
	return min(max(i, 0), Buckets-1)
}

// Bounds returns the bounds of bucket i in microseconds, rounded to 7
// significant digits as a recording writes them: from is exclusive, to
// inclusive. It panics if i is not in [0, Buckets).
func Bounds(i int) (fromUS, toUS float64) {
	if i < 0 || i >= Buckets {
		panic("latency: bucket index out of range")
	}
	return round7(math.Exp2(float64(i) / perOctave)), round7(math.Exp2(float64(i+1) / perOctave))
}

// tolerance is how far, relative to the scheme's, a bucket's bounds read
// from a file may lie: writers round them (Bounds to 7 significant
// digits), and neighbouring bounds are 9 % apart.
const tolerance = 1e-4

// Index returns the index of the bucket whose bounds are from and to, and
// false if they are no bucket's.
func Index(fromUS, toUS float64) (int, bool) {
	if !(fromUS > 0) || math.IsInf(fromUS, 0) {
		return 0, false
	}
	i := int(math.Round(perOctave * math.Log2(fromUS)))
	if i < 0 || i >= Buckets {
		return 0, false
	}
	from, to := Bounds(i)
	if math.Abs(fromUS-from) > tolerance*from || math.Abs(toUS-to) > tolerance*to {
		return 0, false
	}
	return i, true
}

// round7 rounds x to 7 significant digits, so that a file reads well.
func round7(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 7, 64), 64)
	return r
}
