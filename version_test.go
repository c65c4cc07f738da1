package plantstore

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// changelogVersion runs scripts/changelog-version.sh, the one reader of
// CHANGELOG.md's newest release heading, on changelog and returns the
// version it prints, or its error message. It skips the test without bash.
func changelogVersion(t *testing.T, changelog string) (version string, err error) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run scripts/changelog-version.sh:", err)
	}
	file := filepath.Join(t.TempDir(), "CHANGELOG.md")
	if err := os.WriteFile(file, []byte(changelog), 0o644); err != nil {
		t.Fatal(err)
	}
	// Read here, not by bash, so that go test's cache knows the script.
	script, err := os.ReadFile("scripts/changelog-version.sh")
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd := exec.Command(bash, "-c", string(script), "changelog-version.sh", file)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.ReplaceAll(stderr.String(), file, "CHANGELOG.md"))
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

func TestChangelogVersion(t *testing.T) {
	tests := []struct {
		name      string
		changelog string
		want      string // the version, or the start of the error message
	}{
		{"unreleased first", "# Changelog\n\n## [Unreleased]\n\n- x\n\n## [0.2.0] - 2026-11-23\n\n## [0.1.0] - 2026-01-02\n", "0.2.0"},
		{"released first", "## [1.10.3] - 2027-02-28\n## [Unreleased]\n", "1.10.3"},
		{"leap day", "## [Unreleased]\n## [0.3.0] - 2028-02-29\n", "0.3.0"},
		{"no final newline", "## [0.3.0] - 2026-12-01", "0.3.0"},
		{"only unreleased", "# Changelog\n\n## [Unreleased]\n\n### Added\n", "CHANGELOG.md: no release heading"},
		{"empty", "", "CHANGELOG.md: no release heading"},
		{"en dash", "## [Unreleased]\n\n## [0.3.0] \u2013 2026-12-01\n\n## [0.2.0] - 2026-11-23\n", "CHANGELOG.md:3: \"## [0.3.0] \u2013 2026-12-01\" is neither"},
		{"no date", "## [Unreleased]\n## [0.3.0]\n## [0.2.0] - 2026-11-23\n", "CHANGELOG.md:2: \"## [0.3.0]\" is neither"},
		{"v prefix", "## [v0.3.0] - 2026-12-01\n", "CHANGELOG.md:1: \"## [v0.3.0] - 2026-12-01\" is neither"},
		{"leading zero", "## [0.03.0] - 2026-12-01\n", "CHANGELOG.md:1: \"## [0.03.0] - 2026-12-01\" is neither"},
		{"impossible month", "## [0.3.0] - 2026-13-01\n", "CHANGELOG.md:1: \"## [0.3.0] - 2026-13-01\": no such date"},
		{"not a leap year", "## [0.3.0] - 2100-02-29\n", "CHANGELOG.md:1: \"## [0.3.0] - 2100-02-29\": no such date"},
		{"other heading", "## Unreleased\n## [0.2.0] - 2026-11-23\n", "CHANGELOG.md:1: \"## Unreleased\" is neither"},
		{"subheadings are not releases", "### [0.3.0] - 2026-12-01\n## [0.2.0] - 2026-11-23\n", "0.2.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := changelogVersion(t, tt.changelog)
			if err != nil {
				got = err.Error()
				if _, msg, ok := strings.Cut(got, ": "); ok && strings.HasPrefix(msg, tt.want) {
					return
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scripts/changelog-version.sh: (-want +got):\n%s", diff)
			}
		})
	}
}

// TestVersionMatchesChangelog holds the one version constant (which the
// User-Agent reports and the release check tags) to the newest released
// heading of CHANGELOG.md, read as the release check reads it: a release
// updates both, or this fails.
func TestVersionMatchesChangelog(t *testing.T) {
	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	released, err := changelogVersion(t, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if version != released {
		t.Errorf("the version constant is %q, but the newest release in CHANGELOG.md is %q: update both together (see RELEASING.md)", version, released)
	}
	if want := "plantstore-go/" + released; userAgent != want {
		t.Errorf("userAgent = %q, want %q", userAgent, want)
	}
}

// readmes are the guides that quote the version: the project's README and
// the mock's, which holds its install line.
var readmes = []string{"README.md", "cmd/plantstore-mock/README.md"}

// TestDocsQuoteTheVersion checks that where the READMEs and the doc comments
// show the User-Agent the SDK sends ("plantstore-go/0.2.0"), they show the
// version the client reports, so a release cannot leave them behind.
func TestDocsQuoteTheVersion(t *testing.T) {
	quoted := regexp.MustCompile(`plantstore-go/[0-9]+\.[0-9]+\.[0-9]+`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(files, readmes...) {
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

// TestREADMEInstallsTheVersion checks that the READMEs' go get, go install
// and require lines name this module (or one of its modules and commands) at
// the version the client reports, "github.com/plantstore/plantstore-go@v0.2.0"
// and "github.com/plantstore/plantstore-go/otel v0.2.0", so that a release
// cannot leave a newcomer installing the previous one.
func TestREADMEInstallsTheVersion(t *testing.T) {
	pinned := regexp.MustCompile(`github\.com/plantstore/plantstore-go[\w/.-]*[@ ]v([0-9]+\.[0-9]+\.[0-9]+)`)
	for _, name := range readmes {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range pinned.FindAllStringSubmatch(line, -1) {
				found++
				if m[1] != version {
					t.Errorf("%s:%d: %q, want version %s, the one the client reports", name, i+1, m[0], version)
				}
			}
		}
		if found == 0 {
			t.Errorf("%s names no module at a version: the pattern no longer fits its install lines", name)
		}
	}
}

// TestReleaseCheckRefusesMisspeltHeading runs scripts/release-check.sh on a
// changelog whose newest release heading it cannot read: it must stop at
// once, naming the line, and never go on to check the release before it.
func TestReleaseCheckRefusesMisspeltHeading(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash:", err)
	}
	scripts, err := filepath.Glob("scripts/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, heading string
	}{
		{"en dash", "## [0.3.0] – 2026-12-01"},
		{"no date", "## [0.3.0]"},
		{"impossible date", "## [0.3.0] - 2026-02-29"},
		{"v prefix", "## [v0.3.0] - 2026-12-01"},
		{"unbracketed", "## 0.3.0 - 2026-12-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "scripts"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, s := range scripts {
				data, err := os.ReadFile(s)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, s), data, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			changelog := "# Changelog\n\n## [Unreleased]\n\n" + tt.heading + "\n\n- x\n\n## [0.2.0] - 2026-11-23\n"
			if err := os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte(changelog), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			cmd := exec.Command(bash, filepath.Join(dir, "scripts", "release-check.sh"))
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err == nil {
				t.Fatalf("release-check.sh passed; stdout:\n%s", stdout.String())
			}
			want := `CHANGELOG.md:5: "` + tt.heading + `"`
			if !strings.Contains(stderr.String(), want) || stdout.String() != "" {
				t.Errorf("release-check.sh: %v\nstdout:\n%s\nstderr:\n%s\nwant nothing on stdout and %s on stderr", err, stdout.String(), stderr.String(), want)
			}
		})
	}
}

// TestREADMESaysHowToUseAnUntaggedVersion checks that before the README's
// first command, go get of the version the client reports, it says what to
// do while that tag is not published (go get then fails): it links to the
// README's section on using a clone, which must exist.
func TestREADMESaysHowToUseAnUntaggedVersion(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	first := strings.Index(readme, "\ngo get github.com/plantstore/plantstore-go@v"+version+"\n")
	if first < 0 {
		t.Fatalf("README.md has no line %q", "go get github.com/plantstore/plantstore-go@v"+version)
	}
	const anchor = "#from-a-clone-until-the-tags-are-published"
	above := readme[:first]
	if !strings.Contains(above, "]("+anchor+")") || !strings.Contains(above, "not published") {
		t.Errorf("README.md: above its first go get, no word that the tag may not be published yet and no link to %s:\n%s", anchor, above)
	}
	if !strings.Contains(readme, "\n## From a clone, until the tags are published\n") {
		t.Errorf("README.md has no section %q for the link %s", "## From a clone, until the tags are published", anchor)
	}
}

// TestREADMEOrder holds the README to what a new user reads to the end:
// at most 400 lines, its sections in the order install, create a plant,
// errors, testing with the fake, the mock; the guides in depth live beside
// their code.
func TestREADMEOrder(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte("\n")); n > 400 {
		t.Errorf("README.md has %d lines, more than 400: move depth to the package docs or cmd/plantstore-mock/README.md", n)
	}
	var got []string
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			got = append(got, h)
		}
	}
	want := []string{"Install", "From a clone, until the tags are published", "Create a plant", "Errors", "Testing with plantstoretest", "The mock server"}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("README.md sections begin %q, want %q", got, want)
	}
}

// TestChangelogLinksTheVersion checks the link definitions at the bottom of
// CHANGELOG.md that RELEASING.md's first step asks for: the newest release's
// heading, "## [X.Y.Z] - …", links to its tag, and "[Unreleased]" compares
// from it. Without them the heading renders with bare brackets and
// "Unreleased" shows the changes of a release already made.
func TestChangelogLinksTheVersion(t *testing.T) {
	data, err := os.ReadFile("CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	const repo = "https://github.com/plantstore/plantstore-go"
	for _, want := range []string{
		"\n[Unreleased]: " + repo + "/compare/v" + version + "...HEAD\n",
		"\n[" + version + "]: " + repo + "/releases/tag/v" + version + "\n",
	} {
		if !strings.Contains(string(data)+"\n", want) {
			t.Errorf("CHANGELOG.md has no line %q", strings.TrimSpace(want))
		}
	}
}
