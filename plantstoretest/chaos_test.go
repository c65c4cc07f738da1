package plantstoretest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decisions returns the first n chaos decisions of a Handler, as journal
// Faults ("" for none).
func decisions(fraction float64, seed int64, n int) []string {
	return drawChaos(sourceOf[*chaos](NewHandler(WithChaos(fraction, seed))), n)
}

// drawChaos returns c's next n decisions, as faults' texts ("" for none).
func drawChaos(c *chaos, n int) []string {
	out := make([]string, n)
	for i := range out {
		if f, _ := c.place(nil, Request{}); f != nil {
			out[i] = f.String()
		}
	}
	return out
}

// sourceOf returns h's fault source of type S, or S's zero.
func sourceOf[S faultSource](h *Handler) S {
	for _, src := range h.sources {
		if s, ok := src.(S); ok {
			return s
		}
	}
	var none S
	return none
}

// TestChaosSeed checks that WithChaosSeed sets the seed WithChaos's
// choices come from, and that of the two the last given wins.
func TestChaosSeed(t *testing.T) {
	t.Parallel()
	const n = 100
	want := decisions(0.5, 7, n)
	if cmp.Equal(want, decisions(0.5, 1, n)) {
		t.Fatalf("seeds 7 and 1 made the same %d decisions; the test cannot tell them apart", n)
	}
	for _, tt := range []struct {
		name string
		opts []Option
	}{
		{"WithChaosSeed after WithChaos", []Option{WithChaos(0.5, 1), WithChaosSeed(7)}},
		{"WithChaos after WithChaosSeed", []Option{WithChaosSeed(1), WithChaos(0.5, 7)}},
	} {
		if diff := cmp.Diff(want, drawChaos(sourceOf[*chaos](NewHandler(tt.opts...)), n)); diff != "" {
			t.Errorf("%s: decisions differ from seed 7's (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestChaosDecisions(t *testing.T) {
	t.Parallel()
	const n = 2000
	tests := []struct {
		fraction float64
		seed     int64
	}{{0.5, 1}, {0.1, 42}, {1, -7}, {0.01, 3}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v seed %d", tt.fraction, tt.seed), func(t *testing.T) {
			t.Parallel()
			got := decisions(tt.fraction, tt.seed, n)
			if diff := cmp.Diff(got, decisions(tt.fraction, tt.seed, n)); diff != "" {
				t.Fatalf("same seed, different decisions (-first +second):\n%s", diff)
			}
			if cmp.Equal(got, decisions(tt.fraction, tt.seed+1, n)) {
				t.Errorf("seeds %d and %d made the same %d decisions", tt.seed, tt.seed+1, n)
			}
			kinds := map[string]int{}
			faults := 0
			for _, d := range got {
				if d == "" {
					continue
				}
				faults++
				kind, _, _ := strings.Cut(d, " ")
				kinds[kind]++
			}
			// The counts are those of one fixed sequence, so this is not
			// flaky; the bounds say the sequence looks like the fraction.
			if want := tt.fraction * n; float64(faults) < want*0.7-5 || float64(faults) > want*1.3+5 {
				t.Errorf("%d of %d requests got a fault, want about %v", faults, n, want)
			}
			if faults >= 100 && len(kinds) != 5 {
				t.Errorf("fault kinds = %v, want all five", kinds)
			}
		})
	}
	if h := NewHandler(WithChaos(0, 1)); sourceOf[*chaos](h) != nil {
		t.Errorf("WithChaos(0, …) left chaos on")
	}
}

func errOrStatus(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
}

// TestChaosIsDeterministicUnderConcurrency checks that concurrent clients
// see, in the journal's order, the same sequence of faults as one client:
// the i-th decision depends on the seed and i only.
func TestChaosIsDeterministicUnderConcurrency(t *testing.T) {
	t.Parallel()
	const requests = 100
	run := func(workers int) []string {
		s := NewServer(t, WithChaos(0.3, 99))
		client := &http.Client{Transport: s.transport}
		var wg sync.WaitGroup
		ids := make(chan int, requests)
		for i := range requests {
			ids <- i
		}
		close(ids)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range ids {
					req, _ := http.NewRequest(http.MethodPost, s.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Fern"}`, i)))
					req.Header = validHeader(string(s.cfg.token))
					if resp, err := client.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}()
		}
		wg.Wait()
		var faults []string
		for _, r := range s.Requests() {
			_, kind := splitFault(r.Fault)
			faults = append(faults, kind)
		}
		return faults
	}
	serial := run(1)
	if diff := cmp.Diff(serial, run(8)); diff != "" {
		t.Errorf("faults in journal order, 1 client vs 8 (-1 +8):\n%s", diff)
	}
	if diff := cmp.Diff(decisions(0.3, 99, requests), serial); diff != "" {
		t.Errorf("faults on the wire vs decisions of the same seed (-decisions +wire):\n%s", diff)
	}
}
