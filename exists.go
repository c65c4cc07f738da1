package plantstore

import (
	"context"
	"errors"
	"fmt"
)

// ErrAlreadyExists matches the error of a create the service refused
// because the plant's id is already stored, as the Client's
// [WithAlreadyExists] rule reads the answer. The specification does not
// say how a deployment answers a repeated id, so the rule is
// configuration: the clients of package plantstoretest know the fake's,
// and a production client takes its deployment's, as a conformance run
// learned it. A Client without the rule never matches it.
//
// The error of a call whose first attempt may have stored the plant and
// whose retry was then refused as a repeat matches both ErrAlreadyExists
// and [ErrMaybeCreated]: the plant is stored, by this call when the id is
// the caller's alone ([NewID]). [Client.EnsurePlant] makes that decision.
var ErrAlreadyExists = errors.New("plantstore: the plant's id is already stored")

// WithAlreadyExists tells the Client how its deployment refuses a create
// whose id is already stored: with status, from 400 to 499, and an Error
// body whose "error" is code (0 for an answer without an Error body). Only
// that pair matches [ErrAlreadyExists], since a deployment may answer many
// refusals with one status. plantstore-mock conformance prints the pair
// ("repeated id: status S, error code C"), and
// plantstoretest.Profile.DuplicateIDError reads it from the profile.
func WithAlreadyExists(status int, code int32) Option {
	return func(c *config) error {
		if status < 400 || status > 499 {
			return fmt.Errorf("plantstore: already-exists status is %d, want 400 to 499", status)
		}
		c.exists = &existsRule{status: status, code: code}
		return nil
	}
}

// existsRule is WithAlreadyExists's answer to a repeated id.
type existsRule struct {
	status int
	code   int32
}

// matches reports whether err, a call's cause, is r's answer; a nil r
// matches nothing.
func (r *existsRule) matches(err error) bool {
	var apiErr *APIError
	return r != nil && errors.As(err, &apiErr) && apiErr.StatusCode == r.status && apiErr.Code == r.code
}

// maxSettles bounds the creates [Client.EnsurePlant] sends again to settle
// an unknown outcome.
const maxSettles = 3

// EnsurePlant stores p exactly once, or returns an error that says it is
// not known whether it did. It creates p and, while the outcome is unknown
// ([ErrMaybeCreated]), creates it again with the same id, up to 3 times
// and while ctx allows. An answer that the id is stored ([ErrAlreadyExists],
// by the Client's [WithAlreadyExists] rule) is success.
//
// That is right only for an id that is the caller's alone: one from
// [NewID], or from a scheme of its own that no other writer shares. Then a
// plant stored under it is the caller's, stored by this call or by an
// earlier one for the same plant. With ids from a clock or a counter two
// writers share, a repeat may be another's plant, and EnsurePlant would
// report as stored a plant that is not.
//
// It returns nil when p is stored; an error that matches ErrMaybeCreated
// when that is still not known (call EnsurePlant again with the same p to
// settle it); and otherwise the error that says why p is not stored. Once
// any of its creates may have stored p, the error matches ErrMaybeCreated
// however the last one ended (a 429, a refused connection): a refusal of a
// settle does not say that p is not stored. It returns an error at once
// for a Client without a WithAlreadyExists rule.
func (c *Client) EnsurePlant(ctx context.Context, p NewPlant, opts ...CallOption) error {
	if c.exists == nil {
		return errors.New("plantstore: EnsurePlant needs the deployment's answer to a repeated id: give the Client WithAlreadyExists")
	}
	_, err := c.CreatePlant(ctx, p, opts...)
	maybe := errors.Is(err, ErrMaybeCreated)
	for n := 0; n < maxSettles && errors.Is(err, ErrMaybeCreated) && !errors.Is(err, ErrAlreadyExists) && ctx.Err() == nil; n++ {
		_, err = c.CreatePlant(ctx, p, opts...)
	}
	switch {
	case errors.Is(err, ErrAlreadyExists):
		return nil
	case maybe && !errors.Is(err, ErrMaybeCreated):
		return maybeCreated(err)
	}
	return err
}

// maybeCreated returns a settle's error err, which does not match
// [ErrMaybeCreated], as one that does: an earlier create of the same plant
// may have stored it.
func maybeCreated(err error) error {
	var ce *CallError
	if !errors.As(err, &ce) {
		return err // unreachable: every create's error is a *CallError
	}
	settle := *ce
	settle.maybeCreated = true
	return &settle
}
