//go:build !(go1.25 && race && !go1.27)

package bubble

import "testing"

// OneProcUnderRace does nothing: the runtime crash it works around
// (see oneproc_race.go) needs the race detector and Go 1.25 or
// 1.26.
func OneProcUnderRace(testing.TB) {}
