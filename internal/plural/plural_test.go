package plural

import "testing"

func TestCount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 faults"}, {1, "1 fault"}, {2, "2 faults"}, {1000, "1000 faults"}} {
		if got := Count(tt.n, "fault"); got != tt.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tt.n, "fault", got, tt.want)
		}
	}
}
