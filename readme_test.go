package plantstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestREADMEGoIsCompiled checks that every Go block of README.md is cut
// from a Go file of the repository, which its module's build and vet
// compile: the block's lines are that file's lines in the same order
// (runs of spaces aside), with lines of the file left out between them. A
// snippet written for the README alone, or one whose source changed, fails
// here rather than in a reader's first build.
func TestREADMEGoIsCompiled(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources [][]string
	var names []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sources = append(sources, normalizedLines(string(b)))
		names = append(names, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "\n```go\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go block")
	}
	for _, block := range blocks {
		block, _, _ = strings.Cut(block, "\n```")
		lines := normalizedLines(block)
		from := ""
		for i, src := range sources {
			if isCut(lines, src) {
				from = names[i]
				break
			}
		}
		if from == "" {
			t.Errorf("README.md's Go block beginning %q is cut from no Go file of the repository: copy it from one that compiles\n%s", lines[0], block)
		}
	}
}

// normalizedLines is text's non-blank lines, each trimmed and with every
// run of spaces and tabs made one space.
func normalizedLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

// isCut reports whether lines are src's lines in the same order, with
// lines of src left out between them.
func isCut(lines, src []string) bool {
	i := 0
	for _, s := range src {
		if i < len(lines) && s == lines[i] {
			i++
		}
	}
	return i == len(lines)
}

// TestGuidesLinksResolve checks every relative link of the user's prose:
// the file or directory it names exists, and its #anchor is a heading of
// a markdown file, as
// GitHub makes anchors of headings. A section renamed without its links
// fails here, not on a reader's click.
func TestGuidesLinksResolve(t *testing.T) {
	guides := []string{"README.md", "CHANGELOG.md", "RELEASING.md", "bench/BENCHMARKS.md",
		"cmd/plantstore-mock/README.md", "cmd/plantstore-mock/NAMESPACES.md", "plantstoretest/TRAFFIC.md"}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, guide := range guides {
		data, err := os.ReadFile(guide)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(stripCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			if file == "" {
				file = guide
			} else {
				file = filepath.Join(filepath.Dir(guide), file)
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link %s: %v", guide, target, err)
				continue
			}
			if !strings.HasSuffix(file, ".md") || anchor == "" {
				continue
			}
			if body, _ := os.ReadFile(file); !slices.Contains(anchors(string(body)), anchor) {
				t.Errorf("%s: link %s: %s has no heading with that anchor", guide, target, file)
			}
		}
	}
}

// stripCode returns markdown without its fenced blocks, whose text is no
// link.
func stripCode(md string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// anchors returns the anchors GitHub gives the headings of md: lower case,
// punctuation but hyphens dropped, spaces made hyphens.
func anchors(md string) []string {
	var out []string
	for _, line := range strings.Split(stripCode(md), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range title {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out = append(out, b.String())
	}
	return out
}
