package plantstoretest

import (
	"context"
	"fmt"
	"io"
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
// failure or log line that line causes must be reported.
func want(t *testing.T) {
	_, file, line, _ := runtime.Caller(1)
	fmt.Printf("WANT %s %s:%d\n", t.Name(), filepath.Base(file), line+1)
}

// wantNamed prints where the next line of the caller is, which the failure
// that line causes must name in its message.
func wantNamed(t *testing.T) {
	_, file, line, _ := runtime.Caller(1)
	fmt.Printf("WANTNAMED %s %s:%d\n", t.Name(), filepath.Base(file), line+1)
}

// wantWithOutput is want where the test has Go 1.25's Output: without
// it, what the server's goroutines report is located in the package.
func wantWithOutput(t *testing.T) {
	if hasOutput(t) {
		_, file, line, _ := runtime.Caller(1)
		fmt.Printf("WANT %s %s:%d\n", t.Name(), filepath.Base(file), line+1)
	}
}

// hasOutput reports whether tb has Go 1.25's Output, through which the
// fake reports what its server's goroutines see at the test's line.
func hasOutput(tb testing.TB) bool {
	_, ok := tb.(interface{ Output() io.Writer })
	return ok
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
		s := NewServer(t)
		wantNamed(t)
		s.Inject(Fault{Status: http.StatusServiceUnavailable})
	})
	t.Run("Match panics", func(t *testing.T) {
		s := NewServer(t)
		wantWithOutput(t)
		s.Inject(Fault{Match: func(Request) bool { panic("boom") }, Status: http.StatusServiceUnavailable})
		s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	})
	t.Run("WithLogging", func(t *testing.T) {
		wantWithOutput(t)
		s := NewServer(t, WithLogging())
		s.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperChild", "-test.v") // and TestHelperChildBubble
	cmd.Env = append(os.Environ(), helperChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child's misuse did not fail it; output:\n%s", out)
	}
	wants := regexp.MustCompile(`(?m)^(WANT|WANTNAMED) (\S+) (\S+)$`).FindAllStringSubmatch(string(out), -1)
	// Output came with Go 1.25, as synctest.Test, which TestHelperChildBubble needs.
	if n := 5 + 3*btoi(hasOutput(t)); len(wants) != n {
		t.Fatalf("the child announced %d failures, want %d; output:\n%s", len(wants), n, out)
	}
	for _, w := range wants {
		kind, name, loc := w[1], w[2], w[3]
		block := subtestOutput(string(out), name)
		// A failure is reported in the subtest's block as
		// "    helper_test.go:NN: plantstoretest: …", or names the line
		// as "… at helper_test.go:NN …".
		at := `(?m)^\s+` + regexp.QuoteMeta(loc) + `: plantstoretest: `
		if kind == "WANTNAMED" {
			at = `(?m)^\s+\S+_test\.go:\d+: plantstoretest: .* at ` + regexp.QuoteMeta(loc) + ` `
		}
		if !regexp.MustCompile(at).MatchString(block) {
			t.Errorf("%s: failure not reported at, or naming, %s; its output:\n%s", name, loc, block)
		}
		if regexp.MustCompile(`(?m)^\s+[a-z]+\.go:\d+: `).MatchString(block) {
			t.Errorf("%s: reported inside a library file; its output:\n%s", name, block)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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

// splitFault splits a journal Fault, "chaos 3:503", into its source and the
// fault's text.
func splitFault(fault string) (by, kind string) {
	by, item, _ := strings.Cut(fault, " ")
	_, kind, _ = strings.Cut(item, ":")
	return by, kind
}
