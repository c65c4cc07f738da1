package inventory_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/examples/inventory"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func TestRegister(t *testing.T) {
	t.Parallel()
	monstera := plantstore.NewPlant{ID: plantstore.IDFor("orders/7"), Name: "Monstera", Tag: "indoor"}
	tests := []struct {
		name         string
		faults       []plantstoretest.Fault
		clientOpts   []plantstore.Option
		key          string // of the plant, whose id is IDFor(key)
		plant        plantstore.NewPlant
		wantErr      error // nil for success
		wantStored   []plantstore.NewPlant
		wantRequests int
	}{
		{
			name:         "success",
			key:          "orders/7",
			plant:        monstera,
			wantStored:   []plantstore.NewPlant{monstera},
			wantRequests: 1,
		},
		{
			name:         "400 from the store is a rejection",
			faults:       []plantstoretest.Fault{{Status: http.StatusBadRequest, Body: []byte(`{"error":2,"message":"no such tag"}`)}},
			key:          "orders/7",
			plant:        monstera,
			wantErr:      inventory.ErrRejected,
			wantRequests: 1,
		},
		{
			name:         "invalid plant is rejected without a request",
			key:          "orders/8",
			plant:        plantstore.NewPlant{ID: plantstore.IDFor("orders/8")},
			wantErr:      inventory.ErrRejected,
			wantRequests: 0,
		},
		{
			name:         "503 is retried by the SDK",
			faults:       []plantstoretest.Fault{{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}}},
			key:          "orders/7",
			plant:        monstera,
			wantStored:   []plantstore.NewPlant{monstera},
			wantRequests: 2,
		},
		{
			name:         "stored, then the connection dropped",
			faults:       []plantstoretest.Fault{{Store: true, Drop: true}},
			key:          "orders/7",
			plant:        monstera,
			wantStored:   []plantstore.NewPlant{monstera},
			wantRequests: 2, // the lost create, then the SDK's retry learns the ID exists
		},
		{
			name:         "stored, then dropped, with the SDK's retries off",
			faults:       []plantstoretest.Fault{{Store: true, Drop: true}},
			clientOpts:   []plantstore.Option{plantstore.WithMaxRetries(0)},
			key:          "orders/7",
			plant:        monstera,
			wantStored:   []plantstore.NewPlant{monstera},
			wantRequests: 2, // the lost create, then EnsurePlant's second try
		},
		{
			name: "store down for good",
			// Three attempts fail, so no one knows whether one stored the
			// plant: EnsurePlant asks three times more, three attempts each.
			faults:       []plantstoretest.Fault{{Status: http.StatusServiceUnavailable, Times: 12}},
			key:          "orders/7",
			plant:        monstera,
			wantErr:      plantstore.ErrMaybeCreated, // a 503, to every attempt
			wantRequests: 12,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := plantstoretest.NewServer(t)
			for _, f := range tt.faults {
				srv.Inject(f)
			}
			inv := inventory.New(srv.Client(tt.clientOpts...))
			err := inv.Register(context.Background(), tt.key, tt.plant.Name, tt.plant.Tag)
			if tt.wantErr == nil && err != nil || !errors.Is(err, tt.wantErr) {
				t.Fatalf("Register(%+v) error = %v, want %v", tt.plant, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantStored, srv.Plants()); diff != "" {
				t.Errorf("Register(%+v) stored plants mismatch (-want +got):\n%s", tt.plant, diff)
			}
			if n := len(srv.Requests()); n != tt.wantRequests {
				t.Errorf("Register(%+v) made %d requests, want %d", tt.plant, n, tt.wantRequests)
			}
		})
	}
}

func TestRegisterTwiceStoresOnce(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t)
	inv := inventory.New(srv.Client())
	for i := 0; i < 2; i++ {
		if err := inv.Register(context.Background(), "orders/7", "Monstera", ""); err != nil {
			t.Fatalf("Register #%d error: %v", i+1, err)
		}
	}
	if n := len(srv.Plants()); n != 1 {
		t.Errorf("two Registers of one ID stored %d plants, want 1", n)
	}
}

// TestRegisterAfterLostAnswer: a plant stored whose answer was lost (the
// connection dropped) is registered once, without an error: EnsurePlant
// settles it. plantstoretest's TestExploreInventory, the README's, tries
// this and every other single fault.
func TestRegisterAfterLostAnswer(t *testing.T) {
	srv := plantstoretest.NewServer(t)                        // a fake on loopback, closed when the test ends
	srv.Inject(plantstoretest.Fault{Store: true, Drop: true}) // stored, then the connection drops
	inv := inventory.New(srv.Client())                        // knows the fake's answer to a repeated id
	if err := inv.Register(context.Background(), "orders/7", "Monstera", "indoor"); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Plants()); got != 1 {
		t.Errorf("stored %d plants, want 1", got)
	}
}

// TestRegisterAcrossACrash: the process dies at the create, after the plant
// is stored and before the answer (a schedule's "crash"); the restarted
// process, given the same message again, stores no second plant, for it
// derives the same id from the message's key.
func TestRegisterAcrossACrash(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithSchedule("1:crash"))
	for {
		inv := inventory.New(srv.Client()) // a new process: nothing in memory
		err := inv.Register(context.Background(), "orders/7", "Monstera", "")
		if srv.Restart() {
			continue // the process died: this life's error counts for nothing
		}
		if err != nil {
			t.Fatalf("Register in life %d: %v", srv.Life(), err)
		}
		break
	}
	want := []plantstore.NewPlant{{ID: plantstore.IDFor("orders/7"), Name: "Monstera"}}
	if diff := cmp.Diff(want, srv.Plants()); diff != "" || srv.Life() != 2 {
		t.Errorf("after a crash and a restart (life %d, want 2), stored plants (-want +got):\n%s", srv.Life(), diff)
	}
}

// TestRegisterAfterACrashSaysNotKnown: the process dies at the create,
// after the plant is stored; the restarted process's create gets 429 twice
// and learns nothing, and an earlier life may have stored the plant (it
// did): Register says it is not known, never that it is not stored.
func TestRegisterAfterACrashSaysNotKnown(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithSchedule("1:crash,2-3:429"))
	_ = inventory.New(srv.Client()).Register(context.Background(), "orders/7", "Monstera", "")
	if !srv.Restart() {
		t.Fatal("the first life did not crash")
	}
	err := inventory.New(srv.Client(plantstore.WithMaxRetries(1))).Register(context.Background(), "orders/7", "Monstera", "")
	if !errors.Is(err, plantstore.ErrMaybeCreated) || len(srv.Plants()) != 1 {
		t.Errorf("Register after a crash, answered 429: %v, and %d plants stored; want an error matching ErrMaybeCreated, 1 plant", err, len(srv.Plants()))
	}
}
