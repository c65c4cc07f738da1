package main

import (
	"testing"
	"time"
)

func TestRateSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    rate
		wantStr string
	}{
		{"50/s", rate{50, time.Second}, "50/1s"},
		{"100/m", rate{100, time.Minute}, "100/1m0s"},
		{"3/h", rate{3, time.Hour}, "3/1h0m0s"},
		{"10/1500ms", rate{10, 1500 * time.Millisecond}, "10/1.5s"},
	}
	for _, tt := range tests {
		var r rate
		if err := r.Set(tt.in); err != nil {
			t.Errorf("Set(%q) error: %v", tt.in, err)
			continue
		}
		if r != tt.want || r.String() != tt.wantStr {
			t.Errorf("Set(%q) = %+v (%q), want %+v (%q)", tt.in, r, r.String(), tt.want, tt.wantStr)
		}
		var again rate
		if err := again.Set(r.String()); err != nil || again != r {
			t.Errorf("Set(%q) = %+v, %v; want String's output to parse back", r.String(), again, err)
		}
	}
	for _, bad := range []string{"", "50", "/s", "x/s", "-1/s", "0/s", "5/", "5/d", "5/-1s", "5/0s", "1.5/s"} {
		var r rate
		if err := r.Set(bad); err == nil {
			t.Errorf("Set(%q) = %+v, want an error", bad, r)
		}
	}
	if got := (&rate{}).String(); got != "" {
		t.Errorf("zero rate String() = %q, want \"\"", got)
	}
}
