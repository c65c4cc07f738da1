// Package inventory shows a downstream service built on the Plant Store SDK,
// and, in its test, how to test such a service with plantstoretest. Copy from
// it freely.
//
// The service registers plants it receives from elsewhere. The one subtle
// part is a create whose outcome is unknown: the SDK reports it with
// plantstore.ErrMaybeCreated, and Register settles it by creating the same
// plant again, counting the server's "that ID exists" answer as success.
package inventory

import (
	"context"
	"errors"
	"fmt"

	"github.com/plantstore/plantstore-go"
)

// DuplicateIDCode is the "error" code with which the Plant Store answers a
// create whose ID is already taken. The service specification leaves error
// codes open; this is the value agreed with the service's operators, and the
// one plantstoretest uses.
const DuplicateIDCode int32 = 5

// ErrRejected reports a plant the Plant Store refused; retrying the same
// plant will not help.
var ErrRejected = errors.New("inventory: plant rejected")

// PlantCreator is the part of *plantstore.Client the inventory uses. Declaring
// it here, where it is used, keeps the inventory easy to fake.
type PlantCreator interface {
	CreatePlant(ctx context.Context, p plantstore.NewPlant) (*plantstore.Plant, error)
}

// Inventory registers plants in the Plant Store.
type Inventory struct {
	store PlantCreator
}

// New returns an Inventory that stores plants through store, usually a
// *plantstore.Client.
func New(store PlantCreator) *Inventory {
	return &Inventory{store: store}
}

// Register stores the plant with the given ID. It is idempotent: registering
// an ID again, or after an attempt whose outcome was unknown, succeeds
// without storing a second plant. A plant the store refuses is an error that
// matches ErrRejected; any other error is worth retrying later.
func (inv *Inventory) Register(ctx context.Context, id int64, name, tag string) error {
	p := plantstore.NewPlant{ID: id, Name: name, Tag: tag}
	_, err := inv.store.CreatePlant(ctx, p)
	if errors.Is(err, plantstore.ErrMaybeCreated) && !isDuplicate(err) {
		// The plant may or may not be stored: ask again with the same ID.
		_, err = inv.store.CreatePlant(ctx, p)
	}
	var apiErr *plantstore.APIError
	switch {
	case err == nil, isDuplicate(err):
		// A duplicate was stored before: by an earlier call, or by an
		// attempt whose answer was lost.
		return nil
	case errors.As(err, &apiErr) && apiErr.StatusCode == 400, errors.Is(err, plantstore.ErrInvalidPlant):
		return fmt.Errorf("%w: plant %d: %v", ErrRejected, id, err)
	}
	return fmt.Errorf("inventory: register plant %d: %w", id, err)
}

func isDuplicate(err error) bool {
	var apiErr *plantstore.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == 400 && apiErr.Code == DuplicateIDCode
}
