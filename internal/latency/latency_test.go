package latency

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

func TestScheme(t *testing.T) {
	for i := range Buckets {
		from, to := Bounds(i)
		if got, ok := Index(from, to); !ok || got != i {
			t.Fatalf("the bounds of bucket %d, (%g, %g], have Index %d, %v", i, from, to, got, ok)
		}
		exact := math.Exp2(float64(i) / 8)
		if math.Abs(from-exact) > 1e-6*exact {
			t.Errorf("bucket %d starts at %g, want 2^(%d/8) = %g", i, from, i, exact)
		}
		// A latency a little inside each end falls in the bucket.
		lo := time.Duration(math.Ceil(exact * 1.0001 * 1000))
		hi := time.Duration(math.Floor(math.Exp2(float64(i+1)/8) * 0.9999 * 1000))
		if i > 0 && i < Buckets-1 && lo <= hi {
			if got := Of(lo); got != i {
				t.Errorf("Of(%v) = %d, want %d", lo, got, i)
			}
			if got := Of(hi); got != i {
				t.Errorf("Of(%v) = %d, want %d", hi, got, i)
			}
		}
	}
	for _, tc := range []struct {
		d    time.Duration
		want int
	}{
		{0, 0}, {-time.Second, 0}, {999, 0}, {time.Microsecond, 0}, {1001, 0},
		// A power of two is the top of its bucket, as in OpenTelemetry.
		{2 * time.Microsecond, 7}, {2*time.Microsecond + 1, 8},
		{time.Millisecond, 79}, // 2^(79/8) = 937 µs, 2^(80/8) = 1024 µs
		{1024 * time.Microsecond, 79}, {1024*time.Microsecond + 1, 80},
		{1 << 32 * time.Microsecond, Buckets - 1}, {math.MaxInt64, Buckets - 1},
	} {
		if got := Of(tc.d); got != tc.want {
			t.Errorf("Of(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
	for _, b := range [][2]float64{{0, 1}, {-1, 1}, {1024, 1200}, {1025, 1116.123}, {math.Inf(1), math.Inf(1)}, {math.NaN(), 1}, {1 << 40, 1 << 41}} {
		if i, ok := Index(b[0], b[1]); ok {
			t.Errorf("Index(%g, %g) = %d, true; want false", b[0], b[1], i)
		}
	}
}

// TestOpenTelemetry checks the scheme against OpenTelemetry's own mapping
// of a value to an index at scale 3, written from the specification: the
// index of v is ceil(log2(v) × 8) − 1, exactly at the powers of two.
func TestOpenTelemetry(t *testing.T) {
	for us := 1.5; us < 1<<32; us *= 1.37 {
		want := int(math.Ceil(math.Log2(us)*8)) - 1
		d := time.Duration(us * 1000)
		if got := Of(d); got != want && math.Abs(math.Log2(float64(d)/1000)*8-math.Round(math.Log2(float64(d)/1000)*8)) > 1e-9 {
			t.Errorf("Of(%v) = %d, want OpenTelemetry's index %d", d, got, want)
		}
	}
}

func BenchmarkOf(b *testing.B) {
	d := 3 * time.Millisecond
	for i := 0; i < b.N; i++ {
		sink += Of(d + time.Duration(i&1023))
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
	for _, file := range []string{"../../traffic/doc.go", "../../README.md", "../../plantstoretest/TRAFFIC.md", "../../cmd/plantstore-mock/README.md", "../../scripts/e2e-mock.sh", "../../scripts/e2e_mock.py"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range bucket.FindAllStringSubmatch(string(data), -1) {
			seen++
			from, _ := strconv.ParseFloat(m[1], 64)
			to, _ := strconv.ParseFloat(m[2], 64)
			if _, ok := Index(from, to); !ok {
				t.Errorf("%s: bucket (%s, %s] µs is not one of the scheme", file, m[1], m[2])
			}
		}
	}
	if seen == 0 {
		t.Errorf("no bucket found in the docs: the pattern is out of date")
	}
}
