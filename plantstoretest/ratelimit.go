package plantstoretest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// rateLimiter is [WithRateLimit]'s token bucket as the generic cell rate
// algorithm: it keeps the theoretical arrival time tat of the next
// request, which a full bucket lets run up to burst ahead of the clock, in
// exact integer durations. The Handler's mutex guards it.
type rateLimiter struct {
	n        int
	per      time.Duration
	interval time.Duration // per / n rounded up: the time one token takes to refill
	burst    time.Duration // (n-1) * interval: how far tat may run ahead
	tat      time.Time
}

// newRateLimiter returns the bucket for n requests per per. The interval
// rounds up, keeping the rate at most n per per and the burst exactly n;
// a burst too long for a Duration is cut to the longest.
func newRateLimiter(n int, per time.Duration) *rateLimiter {
	interval := per / time.Duration(n)
	if per%time.Duration(n) != 0 {
		interval++
	}
	burst := time.Duration(math.MaxInt64) // a bucket that never empties in a process's life
	if time.Duration(n-1) <= burst/interval {
		burst = time.Duration(n-1) * interval
	}
	return &rateLimiter{n: n, per: per, interval: interval, burst: burst}
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

// place is the rate limit as a fault source (see [Handler.decide]): a
// token taken at the Handler's now, or its refusal.
func (l *rateLimiter) place(h *Handler, _ Request) (*Fault, string) {
	if wait, ok := l.take(h.now()); !ok {
		return l.refusal(wait), "rate-limit"
	}
	return nil, ""
}

// refusal is the 429 for a request that must wait that long for a token.
func (l *rateLimiter) refusal(wait time.Duration) *Fault {
	secs := wait / time.Second // rounded up below: a truthful Retry-After
	if wait%time.Second != 0 {
		secs++ // (adding a second first would overflow near the largest wait)
	}
	body, _ := json.Marshal(ErrorBody{Code: CodeRateLimited, Message: fmt.Sprintf( // cannot fail: Retry-After is the wait rounded up
		"over the rate limit of %d requests per %v (WithRateLimit, plantstore-mock -rate-limit); retry after %ds", l.n, l.per, secs)})
	return &Fault{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {strconv.FormatInt(int64(secs), 10)}}, Body: body}
}
