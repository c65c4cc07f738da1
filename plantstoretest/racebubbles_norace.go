//go:build go1.25 && (!race || go1.27)

package plantstoretest

import "testing"

// oneProcForRaceBubbles does nothing: the runtime crash it works around
// (see racebubbles_race_test.go) needs the race detector and Go 1.25 or
// 1.26.
func oneProcForRaceBubbles(testing.TB) {}
