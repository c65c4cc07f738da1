package plantstore

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// releaseHeading matches a released version's heading in CHANGELOG.md, as
// Keep a Changelog writes it: "## [0.2.0] - 2026-11-23".
var releaseHeading = regexp.MustCompile(`^## \[([0-9]+\.[0-9]+\.[0-9]+)\] - ([0-9]{4}-[0-9]{2}-[0-9]{2})$`)

// newestRelease returns the version and date of the first released heading
// of a changelog, skipping "## [Unreleased]". Any other "## " heading is an
// error, so that a misspelt release heading cannot be skipped silently.
func newestRelease(changelog string) (version, date string, err error) {
	for i, line := range strings.Split(changelog, "\n") {
		if !strings.HasPrefix(line, "## ") || line == "## [Unreleased]" {
			continue
		}
		m := releaseHeading.FindStringSubmatch(line)
		if m == nil {
			return "", "", fmt.Errorf("line %d: %q is neither \"## [Unreleased]\" nor \"## [X.Y.Z] - YYYY-MM-DD\"", i+1, line)
		}
		if _, err := time.Parse(time.DateOnly, m[2]); err != nil {
			return "", "", fmt.Errorf("line %d: %q: %v", i+1, line, err)
		}
		return m[1], m[2], nil
	}
	return "", "", fmt.Errorf("no released version: no heading \"## [X.Y.Z] - YYYY-MM-DD\"")
}

func TestNewestRelease(t *testing.T) {
	tests := []struct {
		name      string
		changelog string
		want      string // "version date", or "" for an error
	}{
		{"unreleased first", "# Changelog\n\n## [Unreleased]\n\n- x\n\n## [0.2.0] - 2026-11-23\n\n## [0.1.0] - 2026-01-02\n", "0.2.0 2026-11-23"},
		{"released first", "## [1.10.3] - 2027-02-28\n## [Unreleased]\n", "1.10.3 2027-02-28"},
		{"only unreleased", "# Changelog\n\n## [Unreleased]\n\n### Added\n", ""},
		{"empty", "", ""},
		{"no date", "## [Unreleased]\n## [0.2.0]\n", ""},
		{"v prefix", "## [v0.2.0] - 2026-11-23\n", ""},
		{"impossible date", "## [0.2.0] - 2026-13-01\n", ""},
		{"other heading", "## Unreleased\n## [0.2.0] - 2026-11-23\n", ""},
		{"subheadings are not releases", "### [0.3.0] - 2026-12-01\n## [0.2.0] - 2026-11-23\n", "0.2.0 2026-11-23"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version, date, err := newestRelease(tt.changelog)
			got := version + " " + date
			if err != nil {
				got = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("newestRelease: (-want +got):\n%s(err: %v)", diff, err)
			}
		})
	}
}

// TestVersionMatchesChangelog holds the one version constant (which the
// User-Agent reports and the release check tags) to the newest released
// heading of CHANGELOG.md: a release updates both, or this fails.
func TestVersionMatchesChangelog(t *testing.T) {
	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	released, _, err := newestRelease(string(data))
	if err != nil {
		t.Fatalf("CHANGELOG.md: %v", err)
	}
	if version != released {
		t.Errorf("the version constant is %q, but the newest release in CHANGELOG.md is %q: update both together (see RELEASING.md)", version, released)
	}
	if want := "plantstore-go/" + released; userAgent != want {
		t.Errorf("userAgent = %q, want %q", userAgent, want)
	}
}

// TestDocsQuoteTheVersion checks that where the README and the doc comments
// show the User-Agent the SDK sends ("plantstore-go/0.2.0"), they show the
// version the client reports, so a release cannot leave them behind.
func TestDocsQuoteTheVersion(t *testing.T) {
	quoted := regexp.MustCompile(`plantstore-go/[0-9]+\.[0-9]+\.[0-9]+`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(files, "README.md") {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range quoted.FindAllString(string(data), -1) {
			if q != userAgent {
				t.Errorf("%s quotes %q, want %q, the version the client reports", name, q, userAgent)
			}
		}
	}
}

// TestREADMEInstallsTheVersion checks that the README's go get, go install
// and require lines name this module (or one of its modules and commands) at
// the version the client reports, "github.com/plantstore/plantstore-go@v0.2.0"
// and "github.com/plantstore/plantstore-go/otel v0.2.0", so that a release
// cannot leave a newcomer installing the previous one.
func TestREADMEInstallsTheVersion(t *testing.T) {
	pinned := regexp.MustCompile(`github\.com/plantstore/plantstore-go[\w/.-]*[@ ]v([0-9]+\.[0-9]+\.[0-9]+)`)
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, line := range strings.Split(string(data), "\n") {
		for _, m := range pinned.FindAllStringSubmatch(line, -1) {
			found++
			if m[1] != version {
				t.Errorf("README.md:%d: %q, want version %s, the one the client reports", i+1, m[0], version)
			}
		}
	}
	if found == 0 {
		t.Error("README.md names no module at a version: the pattern no longer fits its install lines")
	}
}
