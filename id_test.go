package plantstore_test

import (
	"sync"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// TestNewID draws 100,000 ids from 8 goroutines: each is positive, none
// repeats, and every one of the 63 bits is set in about half of them.
func TestNewID(t *testing.T) {
	t.Parallel()
	const goroutines, each = 8, 12_500
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for g := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				ids[g] = append(ids[g], plantstore.NewID())
			}
		}()
	}
	wg.Wait()
	seen := make(map[int64]bool, goroutines*each)
	var ones [64]int
	for _, list := range ids {
		for _, id := range list {
			if id <= 0 {
				t.Fatalf("NewID() = %d, want a positive id", id)
			}
			if seen[id] {
				t.Fatalf("NewID() gave %d twice in %d ids", id, goroutines*each)
			}
			seen[id] = true
			for b := range 64 {
				ones[b] += int(uint64(id) >> b & 1)
			}
		}
	}
	n := goroutines * each
	for b := range 63 {
		// 50 % ± 6 standard deviations (0.16 % each at this n).
		if share := float64(ones[b]) / float64(n); share < 0.49 || share > 0.51 {
			t.Errorf("bit %d is set in %.2f %% of the ids, want about 50 %%", b, 100*share)
		}
	}
	if ones[63] != 0 {
		t.Errorf("the sign bit is set in %d ids", ones[63])
	}
}
