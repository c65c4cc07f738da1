// Package inventory shows a downstream service built on the Plant Store SDK,
// and, in its test, how to test such a service with plantstoretest. Copy from
// it freely.
//
// The service registers plants it receives from elsewhere, each exactly
// once. The one subtle part is a create whose outcome is unknown
// (plantstore.ErrMaybeCreated): Register leaves it to the SDK's
// EnsurePlant, which settles it by creating the same plant again and reads
// the deployment's "that id exists" answer as stored. That answer is the
// Client's configuration (plantstore.WithAlreadyExists), as a conformance
// run against the deployment learned it: the specification does not say.
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

// Register stores the plant with the given id, exactly once: registering
// it again, after any error, stores no second plant. The id must be the
// caller's alone, from plantstore.NewID: a plant already stored under it
// counts as this one. A plant the store refuses (a 400, or a plant the SDK
// refuses to send) is an error that matches ErrRejected; an error that
// matches plantstore.ErrMaybeCreated means it is not known yet whether the
// plant is stored (register it again later); any other error (credentials,
// an outage) is returned wrapped, and nothing was stored.
func (inv *Inventory) Register(ctx context.Context, id int64, name, tag string) error {
	err := inv.store.EnsurePlant(ctx, plantstore.NewPlant{ID: id, Name: name, Tag: tag})
	var (
		apiErr  *plantstore.APIError
		invalid *plantstore.ValidationError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr) && apiErr.StatusCode == 400 && !errors.Is(err, plantstore.ErrMaybeCreated), errors.As(err, &invalid):
		return fmt.Errorf("%w: plant %d: %v", ErrRejected, id, err)
	}
	return fmt.Errorf("inventory: register plant %d: %w", id, err)
}
