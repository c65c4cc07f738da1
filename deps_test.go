package plantstore

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDependencies checks what a program built on this package links
// besides the standard library: go-retryablehttp, which runs the retries,
// and go-cleanhttp, which it imports, and nothing else; in particular
// nothing of OpenTelemetry, which lives in
// module github.com/plantstore/plantstore-go/otel so that only its users
// download it.
func TestDependencies(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on the PATH")
	}
	out, err := exec.Command("go", "list", "-deps",
		"-f", `{{if not .Standard}}{{.ImportPath}}{{end}}`, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	var got []string
	for _, path := range strings.Fields(string(out)) {
		if !strings.HasPrefix(path, "github.com/plantstore/plantstore-go") {
			got = append(got, path)
		}
	}
	slices.Sort(got)
	want := []string{"github.com/hashicorp/go-cleanhttp", "github.com/hashicorp/go-retryablehttp"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("packages linked besides the standard library and this module (-want +got):\n%s", diff)
	}
}

// TestLayers checks that no package of this module imports one above it:
// the rules of internal/ serve everything; the client comes next; the
// traffic recorder builds on it; the fake builds on both (it replays
// recordings); the conformance kit checks deployments and the
// mock from outside, through the fake's Go API, and so never imports the
// mock; the mock serves the fake; commands and examples sit on top.
func TestLayers(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on the PATH")
	}
	const mod = "github.com/plantstore/plantstore-go"
	layer := func(path string) int {
		switch path = strings.TrimPrefix(path, mod); {
		case strings.HasPrefix(path, "/internal/") && path != "/internal/mockserver":
			return 0
		case path == "":
			return 1
		case path == "/traffic": // the recorder, in production: never the fake
			return 2
		case path == "/plantstoretest":
			return 3
		case path == "/plantstoretest/conformance":
			return 4
		case path == "/internal/mockserver":
			return 5
		}
		return 6 // commands and examples
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, mod) && layer(imp) >= layer(pkg) {
				t.Errorf("%s imports %s, which is not below it", pkg, imp)
			}
		}
	}
}
