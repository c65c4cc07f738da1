package traffic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRecordingString checks the summary of a small recording, line by
// line: the totals, then each outcome with its share, quantiles and
// Retry-After values.
func TestRecordingString(t *testing.T) {
	t.Parallel()
	rec, err := Read(strings.NewReader(okDoc))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(rec.String(), "\n"), "\n")
	if len(got) != 1+len(rec.Outcomes) {
		t.Fatalf("String() has %d lines, want %d: %q", len(got), 1+len(rec.Outcomes), got)
	}
	want := "3 attempts; 33.33 % failed, in 1 runs of mean length 1.00 (4xx aside)"
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("the first line (-want +got):\n%s", diff)
	}
	for i, line := range got[1:] {
		o := &rec.Outcomes[i]
		for _, part := range []string{o.name(), "p50 ", "p95 ", "p99 "} {
			if !strings.Contains(line, part) {
				t.Errorf("line %d, %q, does not hold %q", i+2, line, part)
			}
		}
		if (len(o.RetryAfter) > 0) != strings.Contains(line, "Retry-After") {
			t.Errorf("line %d, %q: Retry-After shown %v, want %v", i+2, line, !(len(o.RetryAfter) > 0), len(o.RetryAfter) > 0)
		}
	}
}
