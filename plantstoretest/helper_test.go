package plantstoretest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// helperChildEnv makes TestFailuresPointAtTheTest's child process run the
// failing tests of TestHelperChild.
const helperChildEnv = "PLANTSTORETEST_HELPER_CHILD"

// want prints where the next line of the caller is, which is where the
// failure that line causes must be reported.
func want(t *testing.T) {
	_, file, line, _ := runtime.Caller(1)
	fmt.Printf("WANT %s %s:%d\n", t.Name(), filepath.Base(file), line+1)
}

// TestHelperChild misuses the fake in every way that fails a test. It runs
// only as TestFailuresPointAtTheTest's child, where failing is the point.
func TestHelperChild(t *testing.T) {
	if os.Getenv(helperChildEnv) == "" {
		t.Skip("run by TestFailuresPointAtTheTest")
	}
	t.Run("NewServer invalid option", func(t *testing.T) {
		want(t)
		NewServer(t, WithToken(""))
	})
	t.Run("NewServer invalid WithPlants", func(t *testing.T) {
		want(t)
		NewServer(t, WithPlants(plantstore.NewPlant{ID: 1}))
	})
	t.Run("Inject", func(t *testing.T) {
		s := NewServer(t)
		want(t)
		s.Inject(Fault{Store: true})
	})
	t.Run("unused fault", func(t *testing.T) {
		want(t)
		s := NewServer(t)
		s.Inject(Fault{Status: http.StatusServiceUnavailable})
	})
	t.Run("Client", func(t *testing.T) {
		s := NewServer(t)
		want(t)
		s.Client(plantstore.WithMaxRetries(-1))
	})
}

// TestFailuresPointAtTheTest checks that every misuse of the fake is
// reported at the line of the test that made it, not inside the package:
// tb.Helper is called on every step of the way. It runs TestHelperChild in
// a child process, whose failures are its output.
func TestFailuresPointAtTheTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperChild$", "-test.v")
	cmd.Env = append(os.Environ(), helperChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child's misuse did not fail it; output:\n%s", out)
	}
	wants := regexp.MustCompile(`(?m)^WANT (\S+) (\S+)$`).FindAllStringSubmatch(string(out), -1)
	if len(wants) != 5 {
		t.Fatalf("the child announced %d failures, want 5; output:\n%s", len(wants), out)
	}
	for _, w := range wants {
		name, loc := w[1], w[2]
		// The failure is reported in the subtest's block as
		// "    helper_test.go:NN: plantstoretest: …".
		block := subtestOutput(string(out), name)
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(loc) + `: plantstoretest: `).MatchString(block) {
			t.Errorf("%s: failure not reported at %s; its output:\n%s", name, loc, block)
		}
		if strings.Contains(block, "fault.go:") || strings.Contains(block, "server.go:") || strings.Contains(block, "handler.go:") {
			t.Errorf("%s: failure reported inside the package; its output:\n%s", name, block)
		}
	}
}

// subtestOutput returns the lines of out from the subtest's RUN line to
// the next RUN line.
func subtestOutput(out, name string) string {
	start := strings.Index(out, "=== RUN   "+name+"\n")
	if start < 0 {
		return ""
	}
	rest := out[start+1:]
	if end := strings.Index(rest, "=== RUN"); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// repliesLeft is how many injected replies are still waiting for a request:
// the sum of Left over faults.
func repliesLeft(faults []InjectedFault) int {
	n := 0
	for _, f := range faults {
		n += f.Left
	}
	return n
}
