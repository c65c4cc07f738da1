package plantstoretest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  Option
		want string
	}{
		{"negative max plants", WithMaxPlants(-1), "plantstoretest: WithMaxPlants(-1): the limit must be 0 or more"},
		{"negative body limit", WithJournalBodyLimit(-1), "plantstoretest: WithJournalBodyLimit(-1): the limit must be 0 or more"},
		{"rate of zero", WithRateLimit(0, time.Second), "plantstoretest: WithRateLimit(0, 1s): want at least 1 request per positive duration"},
		{"rate per zero", WithRateLimit(5, 0), "plantstoretest: WithRateLimit(5, 0s): want at least 1 request per positive duration"},
		{"rate per negative", WithRateLimit(5, -time.Second), "plantstoretest: WithRateLimit(5, -1s): want at least 1 request per positive duration"},
		{"rate too high", WithRateLimit(10, time.Nanosecond), "plantstoretest: WithRateLimit(10, 1ns): more than one request per nanosecond"},
		{"chaos below 0", WithChaos(-0.1, 1), "plantstoretest: WithChaos(-0.1, 1): the fraction must be from 0 to 1"},
		{"chaos above 1", WithChaos(1.5, 1), "plantstoretest: WithChaos(1.5, 1): the fraction must be from 0 to 1"},
		{"chaos NaN", WithChaos(math.NaN(), 1), "plantstoretest: WithChaos(NaN, 1): the fraction must be from 0 to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &fakeTB{}
			if runFatal(func() { NewServer(tb, tt.opt) }) {
				t.Errorf("NewServer returned, want tb.Fatalf")
			}
			tb.cleanup()
			if diff := cmp.Diff([]string{tt.want}, tb.fatals); diff != "" {
				t.Errorf("NewServer Fatalf calls mismatch (-want +got):\n%s", diff)
			}
			if got := panicOf(func() { NewHandler(tt.opt) }); got != tt.want {
				t.Errorf("NewHandler panic = %v, want %q", got, tt.want)
			}
		})
	}
}

// panicOf calls fn and returns what it panicked with, or nil.
func panicOf(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// TestNewHandlerRefusesServerOptions checks that the options only a server
// can honour are refused by NewHandler rather than silently dropped.
func TestNewHandlerRefusesServerOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		opt  Option
	}{{"WithTLS", WithTLS()}, {"WithLogging", WithLogging()}, {"WithInMemoryNetwork", WithInMemoryNetwork()}, {"WithHTTP2", WithHTTP2()}} {
		want := fmt.Sprintf("plantstoretest: NewHandler: %s is an option of NewServer only: "+
			"TLS, the network and logging through a test belong to the server a Handler is mounted in (use WithLogger to log)", tt.name)
		if got := panicOf(func() { NewHandler(WithToken("t"), tt.opt) }); got != want {
			t.Errorf("NewHandler(%s) panic = %v, want %q", tt.name, got, want)
		}
	}
}
