package plantstore

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"120", 2 * time.Minute, true},
		{"-5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", 1<<63 - 1, true},
		{"9999999999999", 1<<63 - 1, true},
		{"Sun, 22 Nov 2026 10:00:30 GMT", 30 * time.Second, true},
		{"Sunday, 22-Nov-26 10:01:00 GMT", time.Minute, true},
		{"Sun, 22 Nov 2026 09:00:00 GMT", 0, true},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	const base, limit = 100 * time.Millisecond, time.Second
	for attempt, ceiling := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		ceiling *= time.Millisecond
		distinct := map[time.Duration]bool{}
		for i := 0; i < 200; i++ {
			d := backoff(base, limit, attempt, 0, rand.N[time.Duration])
			if d < ceiling/2 || d > ceiling {
				t.Fatalf("backoff(%v, %v, %d) = %v, want within [%v, %v]", base, limit, attempt, d, ceiling/2, ceiling)
			}
			distinct[d] = true
		}
		if len(distinct) < 10 {
			t.Errorf("backoff(%v, %v, %d) gave %d distinct waits in 200 draws, want jitter", base, limit, attempt, len(distinct))
		}
	}
	if d := backoff(base, limit, 1000, 0, rand.N[time.Duration]); d < limit/2 || d > limit {
		t.Errorf("backoff(%v, %v, 1000) = %v, want within [%v, %v] (no overflow)", base, limit, d, limit/2, limit)
	}
	// WithRetryBackoff promises that a base of zero retries at once, however
	// many retries there are: 0·2^k is 0 even once limit>>k is.
	for _, attempt := range []int{0, 33, 40, 62, 63, 1000} {
		if d := backoff(0, limit, attempt, 0, rand.N[time.Duration]); d != 0 {
			t.Errorf("backoff(0, %v, %d) = %v, want 0", limit, attempt, d)
		}
	}
	if d := backoff(base, limit, 0, 7*time.Second, rand.N[time.Duration]); d != 7*time.Second {
		t.Errorf("backoff with Retry-After: 7 = %v, want 7s", d)
	}
}
