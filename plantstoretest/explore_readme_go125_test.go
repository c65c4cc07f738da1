//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/examples/inventory"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestExploreInventory is the README's: Explore, with its defaults, on
// examples/inventory's Register, whose id is derived from the work's key:
// it passes every schedule, crashes of the process included; an inventory
// that drew a NewID for each life would fail it under 1:crash (two plants).
func TestExploreInventory(t *testing.T) {
	testenv.Long(t) // 1,000 schedules: 3 s under -race
	plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
		inv := inventory.New(srv.Client()) // your service, on the fake's client: a new one each life
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := inv.Register(ctx, "orders/17", "Fern", "") // its id: IDFor("orders/17"), in every life
		stored := srv.Plants()                            // what must hold: this plant stored once, or an error that says
		ours := len(stored) == 1 && stored[0].ID == plantstore.IDFor("orders/17")
		bad := err == nil && !ours || err != nil && len(stored) > 0 && !(ours && errors.Is(err, plantstore.ErrMaybeCreated))
		if bad && !srv.Crashed() { // a life that crashed counts for nothing
			t.Errorf("Register: %v, and stored %v", err, stored)
		}
	}) // on a failure: "reproduce it in fake time with plantstoretest.ExploreOnly("1:crash") …"
}
