package plantstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
