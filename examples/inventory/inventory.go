// Package inventory shows a downstream service built on the Plant Store SDK,
// and, in its test, how to test such a service with plantstoretest. Copy from
// it freely.
//
// The service registers plants it receives from elsewhere (a queue that
// delivers a message again until it is acknowledged), each exactly once,
// across restarts of its process. The subtle parts are a create whose
// outcome is unknown (plantstore.ErrMaybeCreated), which Register leaves
// to the SDK's EnsurePlant, which settles it by creating the same plant
// again and reads the deployment's "that id exists" answer as stored (the
// Client's configuration, plantstore.WithAlreadyExists, as a conformance
// run against the deployment learned it: the specification does not say);
// and the plant's id, which Register derives from the message's own key
// (plantstore.IDFor), so that a restarted process sends the same one.
package inventory

import (
	"context"
	"errors"
	"fmt"

	"github.com/plantstore/plantstore-go"
)

// ErrRejected reports a plant the Plant Store refused; retrying the same
// plant will not help.
var ErrRejected = errors.New("inventory: plant rejected")

// PlantStore is the part of *plantstore.Client the inventory uses. It is
// declared here, where it is used, as the consumer's own small interface.
type PlantStore interface {
	EnsurePlant(ctx context.Context, p plantstore.NewPlant, opts ...plantstore.CallOption) error
}

// Inventory registers plants in the Plant Store.
type Inventory struct {
	store PlantStore
}

// New returns an Inventory that stores plants through store, usually a
// *plantstore.Client built with plantstore.WithAlreadyExists.
func New(store PlantStore) *Inventory {
	return &Inventory{store: store}
}

// Register stores the plant that key names, exactly once: registering it
// again, after any error, in this process or another, stores no second
// plant. key is the caller's own for this plant, such as "orders/17": the
// plant's id is plantstore.IDFor(key), and a plant already stored under
// it counts as this one. A plant the store refuses (a 400, or a plant the
// SDK refuses to send) is an error that matches ErrRejected: it is not
// stored, and never will be. Any other error matches
// plantstore.ErrMaybeCreated: it is not known whether the plant is stored,
// for even a create that learned nothing (an outage, a 429) does not know
// what an earlier delivery of key sent, perhaps from a process since
// restarted. Register it again later (a queue redelivers).
func (inv *Inventory) Register(ctx context.Context, key, name, tag string) error {
	id := plantstore.IDFor(key)
	err := inv.store.EnsurePlant(ctx, plantstore.NewPlant{ID: id, Name: name, Tag: tag})
	var (
		apiErr  *plantstore.APIError
		invalid *plantstore.ValidationError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr) && apiErr.StatusCode == 400 && !errors.Is(err, plantstore.ErrMaybeCreated), errors.As(err, &invalid):
		return fmt.Errorf("%w: plant %q: %v", ErrRejected, key, err)
	case errors.Is(err, plantstore.ErrMaybeCreated):
		return fmt.Errorf("inventory: register plant %q: %w", key, err)
	}
	return fmt.Errorf("inventory: register plant %q: %w (%w)", key, err, plantstore.ErrMaybeCreated)
}
