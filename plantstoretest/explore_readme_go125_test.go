//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/examples/inventory"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestExploreInventory is the README's: Explore, with its defaults, on
// examples/inventory's create path, which passes every schedule.
func TestExploreInventory(t *testing.T) {
	testenv.Long(t) // 1,000 schedules: 3 s under -race
	ctx := context.Background()
	plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
		inv := inventory.New(srv.Client())                       // your service, on the fake's client
		err := inv.Register(ctx, plantstore.NewID(), "Fern", "") // your create path
		stored := len(srv.Plants())                              // what must hold: stored once, or an error that says
		if err == nil && stored != 1 || stored > 1 || err != nil && !errors.Is(err, plantstore.ErrMaybeCreated) && stored != 0 {
			t.Errorf("Register: %v, and %d plants stored", err, stored)
		}
	}) // on a failure: "reproduce it with NewServer(t, plantstoretest.WithSchedule("1:store-drop"))"
}
