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
