package plantstore

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

// fakeClock is a budget's clock that moves only when told.
type fakeClock struct{ t atomic.Int64 }

func (c *fakeClock) now() time.Duration      { return time.Duration(c.t.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.t.Add(int64(d)) }

// testBudget returns a budget with a fake clock at zero.
func testBudget(t *testing.T, cfg budgetConfig) (*retryBudget, *fakeClock) {
	t.Helper()
	b := newRetryBudget(cfg)
	if b == nil {
		t.Fatal("newRetryBudget returned no budget")
	}
	clk := new(fakeClock)
	b.now = clk.now
	return b, clk
}

// allowN asks b for n retries and returns how many it allowed.
func allowN(b *retryBudget, n int) int {
	allowed := 0
	for range n {
		if b.allow() {
			allowed++
		}
	}
	return allowed
}

func callN(b *retryBudget, n int) {
	for range n {
		b.called()
	}
}

func TestRetryBudgetLimit(t *testing.T) {
	tests := []struct {
		name  string
		cfg   budgetConfig
		calls int
		want  int // retries allowed out of 10,000 asked
	}{
		{"default, no calls: the floor", defaultConfig().budget, 0, 100},
		{"default, 499 calls: the floor", defaultConfig().budget, 499, 100},
		{"default, 1000 calls: 20 %", defaultConfig().budget, 1000, 200},
		{"default, 1004 calls: 20 %, rounded down", defaultConfig().budget, 1004, 200},
		{"default, 10000 calls: 20 %", defaultConfig().budget, 10000, 2000},
		{"ratio only", budgetConfig{ratio: 0.5}, 100, 50},
		{"floor only", budgetConfig{minPerSecond: 3}, 1000, 30},
		{"ratio 0.001", budgetConfig{ratio: 0.001}, 5000, 5},
		{"ratio above 1", budgetConfig{ratio: 2.5}, 100, 250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := testBudget(t, tt.cfg)
			callN(b, tt.calls)
			if got := allowN(b, 10000); got != tt.want {
				t.Errorf("allowed %d retries, want %d", got, tt.want)
			}
		})
	}
}

// TestRetryBudgetRefills checks that retries, and calls, stop counting 10 s
// after they were made, to the second: a budget that never refills would
// deny retries to a recovered service for ever (aws-sdk-go-v2#3550).
func TestRetryBudgetRefills(t *testing.T) {
	b, clk := testBudget(t, defaultConfig().budget)
	callN(b, 1000)
	clk.advance(500 * time.Millisecond)
	if got := allowN(b, 300); got != 200 {
		t.Fatalf("at 0.5 s: allowed %d retries, want 200", got)
	}
	clk.advance(9 * time.Second) // 9.5 s: the retries of second 0 still count
	if b.allow() {
		t.Fatal("at 9.5 s: a retry was allowed; the retries of second 0 should still count")
	}
	clk.advance(500 * time.Millisecond) // 10 s: second 0 has left the window
	if got := allowN(b, 300); got != 100 {
		t.Errorf("at 10 s: allowed %d retries, want the floor, 100 (the calls of second 0 no longer count either)", got)
	}
}

// TestRetryBudgetSlidingWindow spreads calls and retries over seconds and
// checks the window slides one second at a time.
func TestRetryBudgetSlidingWindow(t *testing.T) {
	b, clk := testBudget(t, budgetConfig{ratio: 0.1})
	var got []int
	// Each second: 100 calls, then as many retries as allowed.
	for range 12 {
		b.allow() // the retry path sees the second, and counts its calls from here
		callN(b, 100)
		got = append(got, allowN(b, 1000))
		clk.advance(time.Second)
	}
	// Seconds 0-9: 10 more allowed each second. From second 10 on, the
	// window holds 10 seconds: 1000 calls allow 100 retries, and the 10
	// retries of the second that left make room for 10 more.
	want := []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("retries allowed per second (-want +got):\n%s", diff)
	}
}

// TestRetryBudgetQuietSpell checks that calls made while no retry was
// considered, long ago, do not fund the retries of an outage now.
func TestRetryBudgetQuietSpell(t *testing.T) {
	b, clk := testBudget(t, defaultConfig().budget)
	callN(b, 100000) // a busy hour without failures
	clk.advance(time.Hour)
	if got := allowN(b, 1000); got != 100 {
		t.Errorf("after a quiet hour: allowed %d retries, want the floor, 100", got)
	}
}

// TestRetryBudgetConcurrent runs calls and retries from many goroutines at
// once (run it with -race) and checks the budget's bound holds exactly.
func TestRetryBudgetConcurrent(t *testing.T) {
	b, _ := testBudget(t, defaultConfig().budget)
	var (
		wg      sync.WaitGroup
		allowed atomic.Int64
	)
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 { // 10,000 calls in all, each asking for a retry
				b.called()
				if b.allow() {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got > 2000 || got < 1990 {
		t.Errorf("allowed %d retries for 10,000 calls, want 2,000 or, for calls counted late, a little fewer", got)
	}
	// Every call has been counted now: exactly the rest is left.
	if got := int64(allowN(b, 10000)); allowed.Load()+got != 2000 {
		t.Errorf("allowed %d retries during the calls and %d after, want 2,000 in all", allowed.Load(), got)
	}
}

// TestRetryBudgetDenied checks what a refused retry looks like: the call
// returns the attempt's outcome at once, its error is what it was and says
// the budget refused the retry, and hooks and the log see it.
func TestRetryBudgetDenied(t *testing.T) {
	t.Parallel()
	const note = " (not retried: the client's retry budget is exhausted) (the plant may have been created)"
	tests := []struct {
		name     string
		reply    reply
		wantText string // the whole text, or its end when it starts with " ("
		status   int    // of the *APIError; 0 for none
		reason   string // the log's reason
	}{
		{"503", reply{status: 503, body: `{"error":9,"message":"down"}`},
			"plantstore: create plant: 503 Service Unavailable: down (error 9)" + note, 503, "status 503"},
		{"dropped connection", reply{drop: true}, note, 0, "E"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply)
			var (
				mu       sync.Mutex
				attempts []Attempt
				buf      syncbuf.Buffer
			)
			hooks := Hooks{AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) {
				mu.Lock()
				defer mu.Unlock()
				a.Err = nil // compared apart
				attempts = append(attempts, a)
			}}
			logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
				Level: slog.LevelWarn,
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					switch {
					case a.Key == slog.TimeKey:
						return slog.Attr{}
					case a.Key == "reason" && strings.HasPrefix(a.Value.String(), "Post "):
						return slog.String(a.Key, "E")
					}
					return a
				},
			}))
			// 10 retries per 10 s, whatever the traffic.
			c := newTestClient(t, srv.URL, WithRetryBudget(0, 1), WithHooks(hooks), WithLogger(logger), WithRetryBackoff(0, 0))
			c.budget.now = new(fakeClock).now
			for i := range 5 { // 5 calls of 3 attempts spend the 10
				_, err := c.CreatePlant(context.Background(), monstera)
				if err == nil || errors.Is(err, ErrRetryBudgetExhausted) || strings.Contains(err.Error(), "budget") {
					t.Fatalf("call %d: error %v, want one that made all its attempts", i, err)
				}
			}
			mu.Lock()
			attempts = nil
			mu.Unlock()
			var info CallInfo
			_, err := c.CreatePlant(context.Background(), monstera, WithCallInfo(&info), WithRequestID("req-6"))

			if !errors.Is(err, ErrRetryBudgetExhausted) {
				t.Errorf("errors.Is(%v, ErrRetryBudgetExhausted) = false, want true", err)
			}
			if !errors.Is(err, ErrMaybeCreated) {
				t.Errorf("errors.Is(%v, ErrMaybeCreated) = false, want true: the attempt was sent", err)
			}
			if got := err.Error(); strings.HasPrefix(tt.wantText, " (") && !strings.HasSuffix(got, tt.wantText) ||
				!strings.HasPrefix(tt.wantText, " (") && got != tt.wantText {
				t.Errorf("error text %q, want %q", got, tt.wantText)
			}
			var apiErr *APIError
			if got := errors.As(err, &apiErr); got != (tt.status != 0) || got && apiErr.StatusCode != tt.status {
				t.Errorf("errors.As(%v, *APIError) = %v, want an *APIError: %v, with status %d", err, got, tt.status != 0, tt.status)
			}
			if info.Attempts != 1 {
				t.Errorf("the call made %d attempts, want 1", info.Attempts)
			}
			// The dropped connection had the request sent: MaybeSent.
			want := []Attempt{{Number: 1, StatusCode: tt.status, RetryDenied: true, MaybeSent: tt.status == 0}}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(want, attempts); diff != "" {
				t.Errorf("attempts the hooks saw (-want +got):\n%s", diff)
			}
			u := srv.URL + "/plants"
			wantLog := `level=WARN msg="plantstore: retry budget exhausted" method=POST url=` + u +
				` request_id=req-6 attempt=1 reason="` + tt.reason + `"` + "\n"
			if tt.reason == "E" {
				wantLog = strings.Replace(wantLog, `"E"`, "E", 1)
			}
			if diff := cmp.Diff(wantLog, buf.String()); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryBudgetNil(t *testing.T) {
	var b *retryBudget // WithoutRetryBudget
	b.called()
	if got := allowN(b, 1000); got != 1000 {
		t.Errorf("no budget allowed %d retries of 1000", got)
	}
	if newRetryBudget(budgetConfig{off: true}) != nil {
		t.Error("WithoutRetryBudget's config made a budget")
	}
}

func TestWithRetryBudgetErrors(t *testing.T) {
	tests := []struct {
		name         string
		ratio        float64
		minPerSecond int
		want         string // in the error; "" for none
	}{
		{"defaults", 0.2, 10, ""},
		{"ratio only", 0.5, 0, ""},
		{"floor only", 0, 5, ""},
		{"largest", 1000, 1_000_000, ""},
		{"both zero", 0, 0, "allows no retry: use WithMaxRetries(0)"},
		{"negative ratio", -0.1, 10, "ratio must be 0 to 1000, got -0.1"},
		{"ratio too large", 1000.5, 10, "ratio must be 0 to 1000, got 1000.5"},
		{"NaN ratio", nan(), 10, "ratio must be 0 to 1000, got NaN"},
		{"negative floor", 0.2, -1, "minimum must be 0 to 1000000 per second, got -1"},
		{"floor too large", 0.2, 1_000_001, "minimum must be 0 to 1000000 per second, got 1000001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewClient("http://127.0.0.1:1", WithToken("secret-token"), WithRetryBudget(tt.ratio, tt.minPerSecond))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("NewClient: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "plantstore: ")):
				t.Fatalf("NewClient: error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func nan() float64 { z := 0.0; return z / z }

func BenchmarkRetryBudgetCalled(b *testing.B) {
	budget := newRetryBudget(defaultConfig().budget)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			budget.called()
		}
	})
}
