package plantstoretest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/plantstore/plantstore-go"
)

// The classes of what a call returns to the caller's code, as [Explore]
// counts them: an error may be of more than one.
const (
	reachedStored = iota
	reachedExists
	reachedRefused // an *plantstore.APIError but the answer to a repeated id
	reachedMaybe
	reachedBudget
	reachedDeadline // the call's context ended
	reachedRestart  // not a call's: the scenario ran again after a crash
	outcomeClasses
)

// outcomeNames name the classes in Explore's report.
var outcomeNames = [outcomeClasses]string{"stored", "ErrAlreadyExists", "refused", "ErrMaybeCreated", "ErrRetryBudgetExhausted", "a deadline", "a restart"}

// reached is the classes of what a Server's clients returned in one run, a
// bit each, set by their CallEnd hook.
type reached struct{ bits atomic.Uint32 }

// hooks returns the hook a watched Server gives its clients of the life
// whose Disk is d: what a call returns after its process crashed, no code
// saw.
func (r *reached) hooks(d *Disk) plantstore.Hooks {
	return plantstore.Hooks{CallEnd: func(_ context.Context, _ *plantstore.CallInfo, err error) {
		if d.alive() {
			r.bits.Or(classes(err))
		}
	}}
}

// classes returns the bits of the classes err is of.
func classes(err error) uint32 {
	if err == nil {
		return 1 << reachedStored
	}
	var bits uint32
	var apiErr *plantstore.APIError
	for class, is := range [outcomeClasses]bool{
		reachedExists:   errors.Is(err, plantstore.ErrAlreadyExists),
		reachedRefused:  errors.As(err, &apiErr) && !errors.Is(err, plantstore.ErrAlreadyExists),
		reachedMaybe:    errors.Is(err, plantstore.ErrMaybeCreated),
		reachedBudget:   errors.Is(err, plantstore.ErrRetryBudgetExhausted),
		reachedDeadline: errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled),
	} {
		if is {
			bits |= 1 << class
		}
	}
	return bits
}

// coverage says how many runs reached each class: "stored 1000,
// ErrMaybeCreated 12, …".
func coverage(runs [outcomeClasses]int) string {
	parts := make([]string, outcomeClasses)
	for class, n := range runs {
		parts[class] = fmt.Sprintf("%s %d", outcomeNames[class], n)
	}
	return strings.Join(parts, ", ")
}
