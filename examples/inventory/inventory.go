// Package inventory shows a downstream service built on the Plant Store SDK,
// and, in its test, how to test such a service with plantstoretest. Copy from
// it freely.
//
// The service registers plants it receives from elsewhere. The one subtle
// part is a create whose outcome is unknown: the SDK reports it with
// plantstore.ErrMaybeCreated, and Register settles it by creating the same
// plant again, counting the server's "that ID exists" answer as success.
//
// That answer is an assumption about the deployment: the service
// specification says neither whether repeated IDs are rejected nor which
// "error" code says so. Inventory therefore takes the status and the code as
// configuration instead of guessing them.
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

// PlantCreator is the part of *plantstore.Client the inventory uses. It is
// declared here, where it is used, as the consumer's own small interface.
type PlantCreator interface {
	CreatePlant(ctx context.Context, p plantstore.NewPlant, opts ...plantstore.CallOption) (*plantstore.Plant, error)
}

// Inventory registers plants in the Plant Store.
type Inventory struct {
	store           PlantCreator
	duplicateStatus int
	duplicateCode   int32
}

// New returns an Inventory that stores plants through store, usually a
// *plantstore.Client. duplicateStatus and duplicateCode are the status and
// the "error" code with which your deployment rejects a create whose ID is
// already stored; only that pair counts as "already stored", since a
// deployment may use one code for many refusals. The specification leaves
// both open: take them from a conformance run against the deployment
// (plantstore-mock conformance prints "repeated id: status S, error code
// C"; plantstoretest.Profile.DuplicateIDError reads them from the
// profile). plantstoretest's own are 400 and plantstoretest.CodeDuplicateID.
func New(store PlantCreator, duplicateStatus int, duplicateCode int32) *Inventory {
	return &Inventory{store: store, duplicateStatus: duplicateStatus, duplicateCode: duplicateCode}
}

// Register stores the plant with the given ID. It is idempotent: registering
// an ID again, or after an attempt whose outcome was unknown, succeeds
// without storing a second plant. A plant the store refuses (a 400, or a
// plant the SDK refuses to send) is an error that matches ErrRejected; any
// other error (credentials, an outage) is returned wrapped.
func (inv *Inventory) Register(ctx context.Context, id int64, name, tag string) error {
	p := plantstore.NewPlant{ID: id, Name: name, Tag: tag}
	_, err := inv.store.CreatePlant(ctx, p)
	if errors.Is(err, plantstore.ErrMaybeCreated) && !inv.isDuplicate(err) {
		// The plant may or may not be stored: ask again with the same ID.
		_, err = inv.store.CreatePlant(ctx, p)
	}
	var (
		apiErr  *plantstore.APIError
		invalid *plantstore.ValidationError
	)
	switch {
	case err == nil, inv.isDuplicate(err):
		// A duplicate was stored before: by an earlier call, or by an
		// attempt whose answer was lost.
		return nil
	case errors.As(err, &apiErr) && apiErr.StatusCode == 400, errors.As(err, &invalid):
		return fmt.Errorf("%w: plant %d: %v", ErrRejected, id, err)
	}
	return fmt.Errorf("inventory: register plant %d: %w", id, err)
}

// isDuplicate reports whether err is the store's answer that the ID exists:
// the duplicate status with the duplicate code (400 and CodeDuplicateID
// from plantstoretest; a deployment may answer 409, say, as its
// calibration shows).
func (inv *Inventory) isDuplicate(err error) bool {
	var apiErr *plantstore.APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == inv.duplicateStatus && apiErr.Code == inv.duplicateCode
}
