package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// rate is the value of -rate-limit: n requests per per. The zero rate is no
// limit.
type rate struct {
	n   int
	per time.Duration
}

// String returns the flag's value as Set takes it, "" for no limit.
func (r *rate) String() string {
	if r == nil || r.n == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%v", r.n, r.per)
}

// Set parses "N/s", "N/m", "N/h", or "N/duration" with a Go duration such as
// 1500ms: N requests per that long, N at least 1.
func (r *rate) Set(s string) error {
	count, unit, ok := strings.Cut(s, "/")
	if !ok {
		return fmt.Errorf("want N/s, N/m, N/h or N/duration (like 50/s), got %q", s)
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return fmt.Errorf("want a whole number of requests from 1 before the slash, got %q", count)
	}
	per, ok := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[unit]
	if !ok {
		per, err = time.ParseDuration(unit)
		if err != nil || per <= 0 {
			return fmt.Errorf("want s, m, h or a positive Go duration after the slash, got %q", unit)
		}
	}
	r.n, r.per = n, per
	return nil
}
