//go:build go1.25 && !race

package plantstoretest_test

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
