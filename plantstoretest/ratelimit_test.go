package plantstoretest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is a clock a test moves by hand; the Handler reads it from the
// test's own goroutine only (through ServeHTTP called in-process).
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestWithRateLimit(t *testing.T) {
	t.Parallel()
	type step struct {
		advance        time.Duration // before the request
		wantStatus     int
		wantRetryAfter string
	}
	tests := []struct {
		name  string
		n     int
		per   time.Duration
		steps []step
	}{
		{"burst of two, then one per half second", 2, time.Second, []step{
			{0, 200, ""}, {0, 200, ""}, {0, 429, "1"},
			{499 * time.Millisecond, 429, "1"}, {time.Millisecond, 200, ""}, {0, 429, "1"},
			{500 * time.Millisecond, 200, ""},
			{2 * time.Second, 200, ""}, {0, 200, ""}, {0, 429, "1"}, // a full bucket holds n, no more
		}},
		{"one per ten seconds", 1, 10 * time.Second, []step{
			{0, 200, ""}, {time.Second, 429, "9"}, {8500 * time.Millisecond, 429, "1"}, {500 * time.Millisecond, 200, ""},
		}},
		{"fifty per second", 50, time.Second, append(repeat(step{0, 200, ""}, 50), step{0, 429, "1"}, step{20 * time.Millisecond, 200, ""})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(WithRateLimit(tt.n, tt.per))
			clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			h.now = clock.now
			stored := 0
			for i, st := range tt.steps {
				clock.t = clock.t.Add(st.advance)
				w := serve(h, validHeader(DefaultToken), fmt.Sprintf(`{"id":%d,"name":"Fern"}`, i))
				if w.Code != st.wantStatus || w.Header().Get("Retry-After") != st.wantRetryAfter {
					t.Fatalf("request %d (+%v): status %d, Retry-After %q; want %d, %q",
						i, st.advance, w.Code, w.Header().Get("Retry-After"), st.wantStatus, st.wantRetryAfter)
				}
				r := h.Requests()[i]
				if st.wantStatus == http.StatusTooManyRequests {
					var body ErrorBody
					if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Code != CodeRateLimited {
						t.Errorf("request %d: body %s, want an ErrorBody with CodeRateLimited", i, w.Body)
					}
					wantFault := fmt.Sprintf("rate-limit %d:429", r.Seq)
					if ra := st.wantRetryAfter; ra != "1" {
						wantFault += " retry-after=" + ra
					}
					if r.Fault != wantFault || r.Status != http.StatusTooManyRequests || r.Invalid != nil {
						t.Errorf("request %d: journal Fault %q, Status %d, Invalid %+v; want %q, 429, nil", i, r.Fault, r.Status, r.Invalid, wantFault)
					}
				} else {
					stored++
				}
			}
			if got := len(h.Plants()); got != stored {
				t.Errorf("len(Plants()) = %d, want %d: nothing over the rate may be stored", got, stored)
			}
		})
	}
}

func repeat[T any](v T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestRateLimitRetryAfterIsTruthful checks, over random arrivals, that a
// request refused with a wait is let through once the wait is over, and
// refused a nanosecond before: the wait is exact, and Retry-After, that
// wait rounded up to whole seconds, never lies.
func TestRateLimitRetryAfterIsTruthful(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rate := range []struct {
		n   int
		per time.Duration
	}{{1, time.Second}, {3, 7 * time.Second}, {50, time.Second}, {7, 1500 * time.Millisecond}} {
		l := newRateLimiter(rate.n, rate.per)
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		refused := 0
		for i := 0; i < 2000; i++ {
			now = now.Add(time.Duration(rng.Int64N(int64(rate.per / time.Duration(rate.n))))) // twice the rate, on average
			before := *l
			wait, ok := l.take(now)
			if ok {
				continue
			}
			refused++
			if wait <= 0 {
				t.Fatalf("%d per %v: refused with wait %v", rate.n, rate.per, wait)
			}
			if *l != before {
				t.Fatalf("%d per %v: a refused request changed the limiter", rate.n, rate.per)
			}
			early, late := before, before
			if _, ok := early.take(now.Add(wait - 1)); ok {
				t.Errorf("%d per %v: let through 1ns before the wait %v was over", rate.n, rate.per, wait)
			}
			if _, ok := late.take(now.Add(wait)); !ok {
				t.Errorf("%d per %v: refused once the wait %v was over", rate.n, rate.per, wait)
			}
			retryAfter, _ := time.ParseDuration(l.refusal(wait).Header.Get("Retry-After") + "s")
			if retryAfter < wait || retryAfter-wait >= time.Second {
				t.Errorf("%d per %v: Retry-After %v for a wait of %v, want it rounded up to whole seconds", rate.n, rate.per, retryAfter, wait)
			}
		}
		if refused == 0 {
			t.Errorf("%d per %v: no request refused; the test checked nothing", rate.n, rate.per)
		}
	}
}

// TestRateLimitComesFirst checks that a request over the rate uses up no
// injected fault and is still checked for the journal.
func TestRateLimitComesFirst(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithRateLimit(1, time.Hour))
	h.Inject(Fault{Status: http.StatusBadGateway, Times: 2})
	serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`) // the token; answered by the fault
	w := serve(h, http.Header{}, `{"id":2,"name":"Ivy"}`)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "3600" {
		t.Errorf("second request: status %d, Retry-After %q; want 429, 3600", w.Code, w.Header().Get("Retry-After"))
	}
	if got := repliesLeft(h.Faults()); got != 1 {
		t.Errorf("replies left = %d, want 1: the refused request must not use up the fault", got)
	}
	got := h.Requests()
	want := []string{"inject#1 1:502", "rate-limit 2:429 retry-after=3600"}
	if diff := cmp.Diff(want, []string{got[0].Fault, got[1].Fault}); diff != "" {
		t.Errorf("journal Faults mismatch (-want +got):\n%s", diff)
	}
	if got[1].Invalid == nil || got[1].Invalid.Code != CodeUnauthorized {
		t.Errorf("refused request's Invalid = %+v, want the missing token found", got[1].Invalid)
	}
	h.ClearFaults()
}

// TestRateLimitBurstIsN checks that a full bucket lets exactly n requests
// through at one instant, and that over a long run no more than n plus the
// rate pass, also when per is not a multiple of n.
func TestRateLimitBurstIsN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n   int
		per time.Duration
	}{
		{1, time.Second}, {2, time.Second}, {7, 1500 * time.Millisecond},
		{3, 5 * time.Nanosecond}, {1000, 1999 * time.Nanosecond}, {300_000, time.Second},
	}
	for _, tt := range tests {
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		l := newRateLimiter(tt.n, tt.per)
		burst := 0
		for ; burst <= tt.n; burst++ {
			if _, ok := l.take(now); !ok {
				break
			}
		}
		if burst != tt.n {
			t.Errorf("WithRateLimit(%d, %v): %d requests passed at one instant, want %d", tt.n, tt.per, burst, tt.n)
		}
		if tt.n > 1000 {
			continue // the long run below would take too long
		}
		// Arrivals far faster than the rate, over 100 periods.
		const periods = 100
		end := now.Add(periods * tt.per)
		step := max(tt.per/time.Duration(10*tt.n), 1)
		passed := burst
		for now = now.Add(step); !now.After(end); now = now.Add(step) {
			if _, ok := l.take(now); ok {
				passed++
			}
		}
		if max := tt.n + periods*tt.n; passed > max {
			t.Errorf("WithRateLimit(%d, %v): %d requests passed in %d periods, want at most %d", tt.n, tt.per, passed, periods, max)
		}
	}
}

// TestRateLimitRetryAfterOfLongWaits checks that Retry-After is the wait
// rounded up to whole seconds even for waits near the largest Duration,
// where adding a second before dividing would overflow.
func TestRateLimitRetryAfterOfLongWaits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		wait time.Duration
		want string
	}{
		{time.Nanosecond, "1"},
		{time.Second, "1"},
		{time.Second + 1, "2"},
		{time.Duration(math.MaxInt64), strconv.FormatInt(math.MaxInt64/int64(time.Second)+1, 10)},
		{time.Duration(math.MaxInt64) - time.Duration(math.MaxInt64)%time.Second, strconv.FormatInt(math.MaxInt64/int64(time.Second), 10)},
	}
	l := newRateLimiter(1, time.Duration(math.MaxInt64))
	for _, tt := range tests {
		if got := l.refusal(tt.wait).Header.Get("Retry-After"); got != tt.want {
			t.Errorf("Retry-After for a wait of %v = %q, want %q", tt.wait, got, tt.want)
		}
	}
}

// TestRateLimitBurstNearTheLargestDuration checks a bucket whose burst,
// (n-1) times the interval, does not fit in a time.Duration: such a bucket
// never empties in a process's life, so every request passes.
func TestRateLimitBurstNearTheLargestDuration(t *testing.T) {
	t.Parallel()
	per := time.Duration(math.MaxInt64) / time.Hour * time.Hour // 2562047h, the largest whole hours
	for _, n := range []int{100_000_000_000_000, math.MaxInt64 / 3} {
		l := newRateLimiter(n, per)
		now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; i < 1000; i++ {
			if wait, ok := l.take(now); !ok {
				t.Fatalf("WithRateLimit(%d, %v): request %d at one instant refused, wait %v; want a burst of n", n, per, i, wait)
			}
		}
	}
}
