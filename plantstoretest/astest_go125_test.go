//go:build go1.25

package plantstoretest_test

import (
	"flag"
	"testing"
)

// TestAsTestIgnoresRunAndSkip: an Example that runs its body through
// asTest must run it whatever -run and -skip the go test command was given
// (a -skip pattern once skipped the body, and the Example failed with no
// output).
func TestAsTestIgnoresRunAndSkip(t *testing.T) {
	for _, name := range []string{"test.run", "test.skip"} {
		t.Run(name, func(t *testing.T) {
			f := flag.Lookup(name)
			if f == nil {
				t.Fatalf("no flag %s", name)
			}
			old := f.Value.String()
			if err := f.Value.Set("^NoSuchTest$"); err != nil {
				t.Fatal(err)
			}
			ran := false
			ok := asTest("inner", func(*testing.T) { ran = true })
			if err := f.Value.Set(old); err != nil {
				t.Fatal(err)
			}
			if !ran || !ok {
				t.Errorf("with -%s set, asTest ran its test: %v, passed: %v; want both", name[len("test."):], ran, ok)
			}
		})
	}
}
