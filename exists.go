package plantstore

import (
	"context"
	"errors"
	"fmt"
)

// ErrAlreadyExists matches the error of a create the service refused
// because the plant's id is already stored, as the Client's
// [WithAlreadyExists] rule reads the answer; without the rule it never
// matches. When an earlier attempt of the call may have stored the plant,
// the error matches [ErrMaybeCreated] too: the plant is stored, by this
// call if the id is the caller's alone ([Client.EnsurePlant]).
var ErrAlreadyExists = errors.New("plantstore: the plant's id is already stored")

// WithAlreadyExists tells the Client how its deployment, which the
// specification leaves free, refuses a create whose id is already stored:
// with status, from 400 to 499, and an Error body whose "error" is code (0
// for an answer without an Error body); only that pair matches
// [ErrAlreadyExists]. plantstore-mock conformance prints the pair ("repeated
// id: status S, error code C"); plantstoretest.Profile.DuplicateIDError
// reads it from a profile, and the fake's clients have it already.
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

// EnsurePlant stores p exactly once, or returns an error: one that matches
// [ErrMaybeCreated] when this call may have stored p. It creates p and,
// while the outcome is unknown, creates it again with the same id, up to 3
// times and while ctx allows; an answer that the id is stored
// ([ErrAlreadyExists]) is success. That is right only for an id that is the caller's alone, as
// [NewID]'s are: with ids from a clock or a counter two writers share, the
// plant stored may be another's.
//
// It returns nil when p is stored; an error that matches ErrMaybeCreated
// when that is still not known, however the last create ended (call
// EnsurePlant again with the same p), as on a ctx that has ended, which
// sends nothing and cannot tell a first call from a settle; otherwise why
// this call did not store p. Then p is not stored, unless an earlier call
// sent its id, in this process or in one before a restart: a call that
// learned nothing of that send (an outage, a 429) cannot tell, and p is
// still not known (call EnsurePlant again later). A Client without a
// [WithAlreadyExists] rule gets an error at once.
func (c *Client) EnsurePlant(ctx context.Context, p NewPlant, opts ...CallOption) error {
	if c.exists == nil {
		return errors.New("plantstore: EnsurePlant needs the deployment's answer to a repeated id: give the Client WithAlreadyExists")
	}
	_, err := c.CreatePlant(ctx, p, opts...)
	if err == nil {
		return nil
	}
	// A call its context ended before it sent anything learned nothing:
	// this may be a settle of a plant an earlier call stored. A plant, an
	// option or a nil ctx it refused first was never sent, by any call.
	var ce *CallError
	ended := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	maybe := errors.Is(err, ErrMaybeCreated) || errors.As(err, &ce) && ce.Call.Attempts == 0 && ended
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
