package plantstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
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

// TestIDFor pins IDFor's ids, worked out by python3's hashlib (the first
// 63 bits of SHA-256 of "plantstore.IDFor\x00" and the key): a change of
// any would give a restarted process of a new version another id for the
// same key, and store its plant twice.
func TestIDFor(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]int64{
		"":          5986579187196483983,
		"orders/17": 5804267392063540989,
		"orders/18": 3881329687733300283,
		"Fern":      1182367755403451434,
		"ключ/🌿":    744554358240354247,
	} {
		if got := plantstore.IDFor(key); got != want {
			t.Errorf("IDFor(%q) = %d, want %d", key, got, want)
		}
	}
}

func ExampleIDFor() {
	// A queue may deliver "orders/17" again, to a process that restarted
	// meanwhile: the plant's id is the same, so EnsurePlant settles the
	// create instead of storing a second plant.
	fmt.Println(plantstore.IDFor("orders/17"))
	// Output: 5804267392063540989
}

// TestIDForKeyReused is IDFor's doc's warning: a key reused for another
// plant gives the same id, and EnsurePlant reads the repeat as its plant
// stored, returning nil, though the plant stored is the first.
func TestIDForKeyReused(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t)
	c := srv.Client()
	for _, name := range []string{"Fern", "Ivy"} {
		if err := c.EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.IDFor("orders/17"), Name: name}); err != nil {
			t.Fatalf("EnsurePlant(%s): %v", name, err)
		}
	}
	want := []plantstore.NewPlant{{ID: plantstore.IDFor("orders/17"), Name: "Fern"}}
	if got := srv.Plants(); len(got) != 1 || got[0] != want[0] {
		t.Errorf("stored %v, want %v: the first plant only", got, want)
	}
}
