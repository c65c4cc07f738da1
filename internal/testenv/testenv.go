// Package testenv says what kind of run the module's tests are in.
//
// The long tests (the batteries that drive the built mock from python3 and
// curl, the memory measurements, the soaks) run only when the environment
// has PLANTSTORE_LONG=1, which `scripts/test.sh -long` and CI set: plain
// `go test ./...` and `scripts/test.sh` skip them, and so stay quick.
//
// A test that builds a program builds it with -race when [Race] is true:
// the build then reuses the standard library compiled for the test
// instead of compiling it a second time (40 s of CPU with a cold cache).
package testenv

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that asks for the long tests, with
// the value 1.
const LongEnv = "PLANTSTORE_LONG"

// LongEnabled reports whether the run asks for the long tests, for a test
// that runs a short form of itself otherwise.
func LongEnabled() bool { return os.Getenv(LongEnv) == "1" }

// Long skips t unless the run asks for the long tests (PLANTSTORE_LONG=1).
// A test that takes seconds by design calls it first: a memory
// measurement, a soak, a battery of processes.
func Long(t testing.TB) {
	t.Helper()
	if !LongEnabled() {
		t.Skip("skipping a long test: it runs with " + LongEnv + "=1 (scripts/test.sh -long)")
	}
}
