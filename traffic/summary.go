package traffic

import (
	"fmt"
	"strings"
)

// String summarises r for a person, in a line and then a line an outcome:
// the attempts, the share that failed and their runs; each outcome's share
// of the attempts, its latency's p50, p95 and p99 (read from the
// histogram, so within a bucket's width, about 9 %), and the Retry-After
// values it asked for. plantstore-mock drift FILE prints it.
func (r *Recording) String() string {
	var b strings.Builder
	share := func(n int64) float64 {
		if r.Attempts == 0 {
			return 0
		}
		return 100 * float64(n) / float64(r.Attempts)
	}
	fr := &r.FailureRuns
	runs, lengths, _ := runSums(fr)
	fmt.Fprintf(&b, "%d attempts; %.2f %% failed, in %d runs of mean length %.2f (4xx aside)\n",
		r.Attempts, share(fr.Failures), fr.Runs, lengths/max(runs, 1)) // 0 without runs
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		fmt.Fprintf(&b, "  %-28s %7.3f %%  %s", o.name(), share(o.Count), quantiles(o.Latency, o.Count))
		for j, ra := range o.RetryAfter {
			sep := ", "
			if j == 0 {
				sep = "; Retry-After "
			}
			v := "none"
			if ra.Seconds != nil {
				v = fmt.Sprintf("%ds", *ra.Seconds)
			}
			fmt.Fprintf(&b, "%s%s ×%d", sep, v, ra.Count)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
