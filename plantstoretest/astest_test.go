//go:build go1.25

package plantstoretest_test

import (
	"flag"
	"testing"
)

// asTest runs f as a test of its own and reports whether it passed, for
// an Example or a benchmark, which have no *testing.T to give
// synctest.Test. It goes through testing.RunTests, which go test's own main
// uses, with -test.v off for the while, so that the test's chatter (=== RUN)
// does not end up in an Example's output (a failure is still printed, and
// fails an Example by its output), -test.skip off, which RunTests would
// otherwise match against name too, and -test.count at 1, which RunTests
// would otherwise run it as many times.
func asTest(name string, f func(t *testing.T)) bool {
	for flagName, value := range map[string]string{"test.v": "false", "test.skip": "", "test.count": "1"} {
		if v := flag.Lookup(flagName); v != nil {
			old := v.Value.String()
			if err := v.Value.Set(value); err == nil {
				defer v.Value.Set(old)
			}
		}
	}
	all := func(string, string) (bool, error) { return true, nil }
	return testing.RunTests(all, []testing.InternalTest{{Name: name, F: f}})
}
