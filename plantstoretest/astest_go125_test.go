//go:build go1.25

package plantstoretest_test

import (
	"flag"
	"testing"
)

// TestAsTestIgnoresRunSkipAndCount: an Example that runs its body through
// asTest must run it once whatever -run, -skip and -count the go test
// command was given (a -skip pattern once skipped the body, and the Example
// failed with no output; -count=2 ran it twice, and it failed with its
// output twice).
func TestAsTestIgnoresRunSkipAndCount(t *testing.T) {
	for name, value := range map[string]string{"test.run": "^NoSuchTest$", "test.skip": "^inner$", "test.count": "3"} {
		t.Run(name, func(t *testing.T) {
			f := flag.Lookup(name)
			if f == nil {
				t.Fatalf("no flag %s", name)
			}
			old := f.Value.String()
			t.Cleanup(func() { _ = f.Value.Set(old) }) // even if the test fails first
			if err := f.Value.Set(value); err != nil {
				t.Fatal(err)
			}
			runs := 0
			ok := asTest("inner", func(*testing.T) { runs++ })
			if runs != 1 || !ok {
				t.Errorf("with -%s=%s, asTest ran its test %d times and passed: %v; want once, passed", name[len("test."):], value, runs, ok)
			}
		})
	}
}
