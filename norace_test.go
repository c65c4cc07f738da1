//go:build !race

package plantstore

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
