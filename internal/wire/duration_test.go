package wire

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	longest := strings.Repeat("0", MaxDurationText-2) + "1s"
	for _, tt := range []struct {
		text string
		want time.Duration
		ok   bool
	}{
		{"250ms", 250 * time.Millisecond, true},
		{"-2562047h47m16.854775808s", time.Duration(-1 << 63), true},
		{longest, time.Second, true},
		{"0" + longest, 0, false},
		{"1q", 0, false},
	} {
		got, ok := ParseDuration(tt.text)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseDuration(%.20q…) = %v, %v; want %v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

// TestParseDurationOfJunk: a peer's megabyte of junk costs nothing, where
// time.ParseDuration's error quotes it whole.
func TestParseDurationOfJunk(t *testing.T) {
	junk := strings.Repeat("h", 1<<20)
	if allocs := testing.AllocsPerRun(10, func() { _, _ = ParseDuration(junk) }); allocs != 0 {
		t.Errorf("ParseDuration of 1 MiB of junk allocated %v times, want 0", allocs)
	}
}
