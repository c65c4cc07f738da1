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
// examples/inventory's Register as a careful service calls it: one id per
// plant, registered again with that id while the outcome is not known,
// each try with a deadline of its own. It passes every schedule; a service
// that took a new id for a try would fail it, under 1:delay (the plant
// stored is not this id's) as under 1:store-delay (two plants).
func TestExploreInventory(t *testing.T) {
	testenv.Long(t) // 1,000 schedules: 3 s under -race
	plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
		inv := inventory.New(srv.Client()) // your service, on the fake's client
		id := plantstore.NewID()           // one id per plant: every try sends it
		var err error
		for try := 0; try < 3; try++ { // your create path: again while not known
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = inv.Register(ctx, id, "Fern", "")
			cancel()
			if !errors.Is(err, plantstore.ErrMaybeCreated) {
				break
			}
		}
		stored := srv.Plants() // what must hold: this plant stored once, or an error that says
		ours := len(stored) == 1 && stored[0].ID == id
		if err == nil && !ours || err != nil && len(stored) > 0 && !(ours && errors.Is(err, plantstore.ErrMaybeCreated)) {
			t.Errorf("Register: %v, and stored %v", err, stored)
		}
	}) // on a failure: "reproduce it in fake time with plantstoretest.ExploreOnly("1:store-drop") …"
}
