//go:build go1.25

package plantstoretest

// The tests in this file wait for a Fault's Delay or a chaos delay. They
// run in a testing/synctest bubble, on the in-memory network
// (WithInMemoryNetwork), so the waits take no wall time and their lengths
// can be checked exactly: the delays are fake time.

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go/internal/bubble"
)

// TestChaosOnTheWire checks that each kind of chaos fault does what the
// journal says it did, and that a chaos delay lasts exactly what the
// journal says.
func TestChaosOnTheWire(t *testing.T) {
	t.Parallel()
	bubble.OneProcUnderRace(t)
	synctest.Test(t, testChaosOnTheWire)
}

func testChaosOnTheWire(t *testing.T) {
	s := NewServer(t, WithInMemoryNetwork(), WithChaos(1, 5))
	client := &http.Client{Transport: s.transport}
	for i := 0; i < 40; i++ {
		req, err := http.NewRequest(http.MethodPost, s.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Fern"}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = validHeader(string(s.cfg.token))
		start := time.Now()
		resp, err := client.Do(req)
		took := time.Since(start)
		r := s.Requests()[i]
		stored := false
		for _, p := range s.Plants() {
			stored = stored || p.ID == int64(i)
		}
		by, kind := splitFault(r.Fault)
		switch {
		case by == "chaos" && kind == "503":
			if err != nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || stored {
				t.Errorf("request %d (%s): %v, stored %v; want 503 with Retry-After 1, nothing stored", i, r.Fault, errOrStatus(resp, err), stored)
			}
		case by == "chaos" && kind == "502":
			if err != nil || resp.StatusCode != http.StatusBadGateway || stored {
				t.Errorf("request %d (%s): %v, stored %v; want 502, nothing stored", i, r.Fault, errOrStatus(resp, err), stored)
			}
		case by == "chaos" && (kind == "drop" || kind == "store-drop"):
			if err == nil || r.Outcome != OutcomeDropped || stored != (kind == "store-drop") {
				t.Errorf("request %d (%s): %v, outcome %s, stored %v; want a dropped connection", i, r.Fault, errOrStatus(resp, err), r.Outcome, stored)
			}
		case by == "chaos" && strings.HasPrefix(kind, "delay after="):
			if err != nil || resp.StatusCode != http.StatusOK || !stored {
				t.Errorf("request %d (%s): %v, stored %v; want 200 and the plant stored", i, r.Fault, errOrStatus(resp, err), stored)
			}
			delay, perr := time.ParseDuration(strings.TrimPrefix(kind, "delay after="))
			if perr != nil || delay < 10*time.Millisecond || delay > 500*time.Millisecond || took != delay || r.Duration != delay {
				t.Errorf("request %d (%s) took %v, journal Duration %v; want both the delay, from 10ms to 500ms", i, r.Fault, took, r.Duration)
			}
		default:
			t.Errorf("request %d: journal Fault %q, want a chaos fault for every request at fraction 1", i, r.Fault)
		}
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// TestFaultDelay checks that a Fault's Delay holds the reply exactly that
// long, then sends the usual reply or the scripted one.
func TestFaultDelay(t *testing.T) {
	t.Parallel()
	const delay = 20 * time.Second
	tests := []struct {
		name       string
		fault      Fault
		wantStatus int
		wantStored bool
	}{
		{"slow success", Fault{Delay: delay}, http.StatusOK, true},
		{"slow failure", Fault{Delay: delay, Status: http.StatusGatewayTimeout}, http.StatusGatewayTimeout, false},
	}
	bubble.OneProcUnderRace(t)
	for _, tt := range tests {
		synctest.Test(t, func(t *testing.T) {
			s := NewServer(t, WithInMemoryNetwork())
			s.Inject(tt.fault)
			start := time.Now()
			resp := post(t, s, `{"id":1,"name":"Fern"}`)
			if elapsed := time.Since(start); elapsed != delay {
				t.Errorf("%s: POST /plants with Fault{Delay: %v} took %v, want exactly %v", tt.name, delay, elapsed, delay)
			}
			if resp.status != tt.wantStatus {
				t.Errorf("%s: POST /plants with Fault{Delay: %v} status = %d, want %d", tt.name, delay, resp.status, tt.wantStatus)
			}
			if got := len(s.Plants()) == 1; got != tt.wantStored {
				t.Errorf("%s: stored = %v, want %v", tt.name, got, tt.wantStored)
			}
		})
	}
}

// TestResetDuringDelayLeavesNoTrace checks that a request held by a Delay
// when Reset runs is answered but neither stores its plant nor stays in the
// journal.
func TestResetDuringDelayLeavesNoTrace(t *testing.T) {
	t.Parallel()
	bubble.OneProcUnderRace(t)
	synctest.Test(t, testResetDuringDelayLeavesNoTrace)
}

func testResetDuringDelayLeavesNoTrace(t *testing.T) {
	s := NewServer(t, WithInMemoryNetwork())
	match, arrived := arrival()
	// The delay is the fault under test: Reset runs while it holds the
	// request, long before it ends.
	s.Inject(Fault{Match: match, Delay: time.Second})
	respc := make(chan response, 1)
	go func() { respc <- post(t, s, `{"id":1,"name":"Fern"}`) }()
	waitFor(t, "the request to arrive", arrived)
	s.Reset()
	resp := waitFor(t, "the delayed response", respc)
	if resp.status != http.StatusOK {
		t.Errorf("delayed POST /plants status = %d, want 200", resp.status)
	}
	if got := s.Plants(); len(got) != 0 {
		t.Errorf("Plants() after Reset = %+v, want none: the request began before Reset", got)
	}
	if got := len(s.Requests()); got != 0 {
		t.Errorf("len(Requests()) after Reset = %d, want 0", got)
	}
}
