package traffic

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

func TestBucketScheme(t *testing.T) {
	for i := range NumBuckets {
		from, to := BucketBounds(i)
		if got, ok := (Bucket{FromUS: from, ToUS: to}).Index(); !ok || got != i {
			t.Fatalf("Bucket of bounds %d = [%g, %g) has Index %d, %v", i, from, to, got, ok)
		}
		exact := math.Exp2(float64(i) / BucketsPerOctave)
		if math.Abs(from-exact) > 1e-6*exact {
			t.Errorf("bucket %d starts at %g, want 2^(%d/8) = %g", i, from, i, exact)
		}
		// A latency a little inside each end falls in the bucket.
		lo := time.Duration(math.Ceil(exact * 1.0001 * 1000))
		hi := time.Duration(math.Floor(math.Exp2(float64(i+1)/BucketsPerOctave) * 0.9999 * 1000))
		if i > 0 && i < NumBuckets-1 && lo <= hi {
			if got := BucketOf(lo); got != i {
				t.Errorf("BucketOf(%v) = %d, want %d", lo, got, i)
			}
			if got := BucketOf(hi); got != i {
				t.Errorf("BucketOf(%v) = %d, want %d", hi, got, i)
			}
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {-time.Second, 0}, {999, 0}, {time.Microsecond, 0}, {2 * time.Microsecond, 8},
		{time.Millisecond, 79}, // 2^(79/8) = 937 µs, 2^(80/8) = 1024 µs
		{1024 * time.Microsecond, 80},
		{1 << 32 * time.Microsecond, NumBuckets - 1}, {math.MaxInt64, NumBuckets - 1},
	} {
		if got := BucketOf(tc.d); got != tc.want {
			t.Errorf("BucketOf(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	for _, b := range []Bucket{{0, 1, 1}, {-1, 1, 1}, {1024, 1200, 1}, {1025, 1116.123, 1}, {math.Inf(1), math.Inf(1), 1}, {math.NaN(), 1, 1}, {1 << 40, 1 << 41, 1}} {
		if i, ok := b.Index(); ok {
			t.Errorf("%+v.Index() = %d, true; want false", b, i)
		}
	}
}

func BenchmarkBucketOf(b *testing.B) {
	d := 3 * time.Millisecond
	for i := 0; i < b.N; i++ {
		sink += BucketOf(d + time.Duration(i&1023))
	}
}

var sink int

// TestDocumentedBucketsAreOfTheScheme checks that every latency bucket the
// docs and scripts show, as "from_us": X, "to_us": Y, is one of the scheme,
// so that an example copied from them loads.
func TestDocumentedBucketsAreOfTheScheme(t *testing.T) {
	t.Parallel()
	bucket := regexp.MustCompile(`"from_us":\s*([0-9.]+),\s*"to_us":\s*([0-9.]+)`)
	seen := 0
	for _, file := range []string{"doc.go", "../README.md", "../plantstoretest/TRAFFIC.md", "../cmd/plantstore-mock/README.md", "../scripts/e2e-mock.sh", "../scripts/e2e_mock.py"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range bucket.FindAllStringSubmatch(string(data), -1) {
			seen++
			from, _ := strconv.ParseFloat(m[1], 64)
			to, _ := strconv.ParseFloat(m[2], 64)
			if _, ok := (Bucket{FromUS: from, ToUS: to, Count: 1}).Index(); !ok {
				t.Errorf("%s: bucket [%s, %s) µs is not one of the scheme", file, m[1], m[2])
			}
		}
	}
	if seen == 0 {
		t.Errorf("no bucket found in the docs: the pattern is out of date")
	}
}
