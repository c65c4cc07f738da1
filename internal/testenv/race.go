//go:build race

package testenv

// Race reports whether the tests run under the race detector.
const Race = true
