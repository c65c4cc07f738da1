package plantstoretest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// rateLimiter is the token bucket of [WithRateLimit], in the form of the
// generic cell rate algorithm: instead of counting tokens it keeps the
// theoretical arrival time tat of the next request, which a full bucket
// lets run up to burst ahead of the clock. Integer durations keep it exact.
// The Handler's mutex guards it.
type rateLimiter struct {
	n        int
	per      time.Duration
	interval time.Duration // per / n: the time one token takes to refill
	burst    time.Duration // per - interval: how far tat may run ahead
	tat      time.Time
}

func newRateLimiter(n int, per time.Duration) *rateLimiter {
	interval := per / time.Duration(n)
	return &rateLimiter{n: n, per: per, interval: interval, burst: per - interval}
}

// take takes a token at now, or reports how long until one is there.
func (l *rateLimiter) take(now time.Time) (wait time.Duration, ok bool) {
	tat := l.tat
	if tat.Before(now) {
		tat = now
	}
	if ahead := tat.Sub(now); ahead > l.burst {
		return ahead - l.burst, false
	}
	l.tat = tat.Add(l.interval)
	return 0, true
}

// reply is the 429 for a request that must wait that long for a token.
func (l *rateLimiter) reply(wait time.Duration) reply {
	secs := (wait + time.Second - 1) / time.Second // rounded up: a truthful Retry-After
	return reply{
		status: http.StatusTooManyRequests,
		body: &ErrorBody{Code: CodeRateLimited, Message: fmt.Sprintf(
			"over the rate limit of %d requests per %v (WithRateLimit, plantstore-mock -rate-limit); retry after %ds",
			l.n, l.per, secs)},
		retryAfter: strconv.FormatInt(int64(secs), 10),
	}
}
