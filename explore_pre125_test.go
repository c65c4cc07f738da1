//go:build !go1.25

package plantstore_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// exploreChildEnv makes TestExplorePre125Child run, as the child of
// TestExploreNeedsGo125.
const exploreChildEnv = "PLANTSTORE_EXPLORE_PRE125_CHILD"

func TestExplorePre125Child(t *testing.T) {
	if os.Getenv(exploreChildEnv) == "" {
		t.Skip("runs only as the child of TestExploreNeedsGo125")
	}
	plantstoretest.Explore(t, func(*testing.T, *plantstoretest.Server) {}) // the caller's line
}

// TestExploreNeedsGo125 checks, on a Go before 1.25 (CI runs the client's
// tests on go1.23), that Explore fails the test at the caller's line and
// names the Go it needs.
func TestExploreNeedsGo125(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestExplorePre125Child$", "-test.v")
	cmd.Env = append(os.Environ(), exploreChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "explore_pre125_test.go:22: plantstoretest: Explore needs Go 1.25 or later") {
		t.Errorf("Explore on %s: %v, want a failure at the caller's line naming Go 1.25:\n%s", "this Go", err, out)
	}
}
