package traffic

import (
	"math"
	"strconv"
	"time"
)

// The latency scheme every recording shares, so that two recordings'
// buckets line up: [NumBuckets] log-linear buckets, [BucketsPerOctave] to
// an octave from 1 µs, bucket i covering [2^(i/8), 2^((i+1)/8)) µs.
// Bucket 0 also holds every latency under 1 µs, and the last one every
// latency of 2^32 µs (about 71 minutes) or more. A bucket is at most 9.05 %
// wider than where it starts, which bounds the error of a quantile read
// from the histogram.
const (
	BucketsPerOctave = 8
	NumBuckets       = 32 * BucketsPerOctave
)

// octaveSteps[k] is 2^(k/8): the bounds of the buckets of the octave from 1 µs.
var octaveSteps = func() (s [BucketsPerOctave + 1]float64) {
	for k := range s {
		s[k] = math.Exp2(float64(k) / BucketsPerOctave)
	}
	return s
}()

// BucketOf returns the index of the bucket that holds latency d.
func BucketOf(d time.Duration) int {
	if d < time.Microsecond {
		return 0
	}
	us := math.Float64bits(float64(d) / float64(time.Microsecond)) // ≥ 1: normal
	octave := int(us>>52) - 1023
	if octave >= NumBuckets/BucketsPerOctave {
		return NumBuckets - 1
	}
	m := math.Float64frombits(us&(1<<52-1) | 1023<<52) // in [1, 2)
	k := 0
	for k+1 < BucketsPerOctave && m >= octaveSteps[k+1] {
		k++
	}
	return octave*BucketsPerOctave + k
}

// BucketBounds returns the bounds of bucket i in microseconds, as a
// [Bucket] carries them: from is inclusive, to exclusive. It panics if i is
// not in [0, NumBuckets).
func BucketBounds(i int) (fromUS, toUS float64) {
	if i < 0 || i >= NumBuckets {
		panic("traffic: bucket index out of range")
	}
	octave, k := i/BucketsPerOctave, i%BucketsPerOctave
	return round7(math.Ldexp(octaveSteps[k], octave)), round7(math.Ldexp(octaveSteps[k+1], octave))
}

// bucketTolerance is how far, relative to the scheme's, a bucket's bounds
// read from a file may lie: writers round them (this package to 7
// significant digits), and neighbouring bounds are 9 % apart.
const bucketTolerance = 1e-4

// Index returns the index of the scheme's bucket that b is, by its bounds,
// and false if b is none of them.
func (b Bucket) Index() (int, bool) {
	if !(b.FromUS > 0) || math.IsInf(b.FromUS, 0) {
		return 0, false
	}
	i := int(math.Round(BucketsPerOctave * math.Log2(b.FromUS)))
	if i < 0 || i >= NumBuckets {
		return 0, false
	}
	from, to := BucketBounds(i)
	if math.Abs(b.FromUS-from) > bucketTolerance*from || math.Abs(b.ToUS-to) > bucketTolerance*to {
		return 0, false
	}
	return i, true
}

// round7 rounds x to 7 significant digits, so that a file reads well.
func round7(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 7, 64), 64)
	return r
}
