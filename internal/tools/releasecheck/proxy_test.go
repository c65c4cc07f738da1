package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/module"
)

const licence = "Apache License\nVersion 2.0\n"

// writeRepo writes files (slash paths to contents) under a new directory
// and returns it.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// repoFiles is a repository like this one: a root module with an upper-case
// letter in its path (escaped in the proxy), a released nested module
// without a LICENSE of its own, and a nested module that is never released.
func repoFiles() map[string]string {
	return map[string]string{
		"go.mod":                    "module example.com/Plants\n\ngo 1.23\n",
		"LICENSE":                   licence,
		"client.go":                 "package plants\n",
		"internal/x/x.go":           "package x\n",
		"otel/go.mod":               "module example.com/Plants/otel\n\ngo 1.23\n\nrequire example.com/Plants v1.2.3\n\nreplace example.com/Plants => ../\n",
		"otel/otel.go":              "package otel\n",
		"bench/go.mod":              "module example.com/Plants/bench\n\ngo 1.23\n",
		"bench/bench.go":            "package bench\n",
		"tools/a/go.mod":            "module example.com/Plants/tools/a\n\ngo 1.26\n",
		"tools/a/main.go":           "package main\n",
		"vendor/example.com/v/v.go": "package v\n",
	}
}

// zipNames returns the names in a module zip, without the module@version/
// prefix, sorted, and the contents of the file named LICENSE.
func zipNames(t *testing.T, path string) ([]string, string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	var lic string
	for _, f := range zr.File {
		// The prefix is module@version/; the module path has slashes.
		at := strings.Index(f.Name, "@")
		name := f.Name[at+strings.Index(f.Name[at:], "/")+1:]
		names = append(names, name)
		if name == "LICENSE" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			lic = string(b)
		}
	}
	slices.Sort(names)
	return names, lic
}

func TestBuildFromDirectory(t *testing.T) {
	repo := writeRepo(t, repoFiles())
	out := filepath.Join(t.TempDir(), "proxy")
	when := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	p := &proxy{repo: repo, version: "v1.2.3", dir: out, time: when}
	mods, err := p.build([]string{".", "otel"})
	if err != nil {
		t.Fatal(err)
	}
	var gotMods []string
	for _, m := range mods {
		gotMods = append(gotMods, m.path+" "+strings.Join(m.excluded, ","))
	}
	wantMods := []string{"example.com/Plants bench,otel,tools/a", "example.com/Plants/otel "}
	if diff := cmp.Diff(wantMods, gotMods); diff != "" {
		t.Errorf("modules built (-want +got):\n%s", diff)
	}

	// The layout the go command reads, with "Plants" escaped as "!plants".
	tests := []struct {
		dir       string
		wantNames []string
		wantMod   string
	}{
		{"example.com/!plants/@v", []string{"LICENSE", "client.go", "go.mod", "internal/x/x.go"}, repoFiles()["go.mod"]},
		{"example.com/!plants/otel/@v", []string{"LICENSE", "go.mod", "otel.go"}, repoFiles()["otel/go.mod"]},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			dir := filepath.Join(out, filepath.FromSlash(tt.dir))
			list, err := os.ReadFile(filepath.Join(dir, "list"))
			if err != nil {
				t.Fatal(err)
			}
			if string(list) != "v1.2.3\n" {
				t.Errorf("list = %q, want %q", list, "v1.2.3\n")
			}
			var info struct {
				Version string
				Time    time.Time
			}
			data, err := os.ReadFile(filepath.Join(dir, "v1.2.3.info"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &info); err != nil {
				t.Fatalf("v1.2.3.info: %v", err)
			}
			if info.Version != "v1.2.3" || !info.Time.Equal(when) {
				t.Errorf("v1.2.3.info = %s, want version v1.2.3 at %v", data, when)
			}
			mod, err := os.ReadFile(filepath.Join(dir, "v1.2.3.mod"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantMod, string(mod)); diff != "" {
				t.Errorf("v1.2.3.mod (-want +got):\n%s", diff)
			}
			names, lic := zipNames(t, filepath.Join(dir, "v1.2.3.zip"))
			if diff := cmp.Diff(tt.wantNames, names); diff != "" {
				t.Errorf("zip (-want +got):\n%s", diff)
			}
			if lic != licence {
				t.Errorf("the zip's LICENSE = %q, want the repository's", lic)
			}
		})
	}
}

func TestBuildRefuses(t *testing.T) {
	tests := []struct {
		name    string
		change  map[string]string // files to add or replace; "" removes
		version string
		out     func(t *testing.T) string
		wantErr string
	}{
		{
			name:    "nested module requires a root that will never exist",
			change:  map[string]string{"otel/go.mod": "module example.com/Plants/otel\n\ngo 1.23\n\nrequire example.com/Plants v0.0.0\n"},
			wantErr: "otel/go.mod: requires example.com/Plants v0.0.0; a module released at v1.2.3 must require the root module at v1.2.3",
		},
		{
			name:    "nested module requires an older root",
			version: "v1.3.0",
			wantErr: "requires example.com/Plants v1.2.3; a module released at v1.3.0",
		},
		{
			name:    "no LICENSE",
			change:  map[string]string{"LICENSE": ""},
			wantErr: "example.com/Plants@v1.2.3: the zip holds no LICENSE",
		},
		{
			name:    "no go.mod",
			change:  map[string]string{"otel/go.mod": ""},
			wantErr: "otel/go.mod",
		},
		{
			name: "proxy directory not empty",
			out: func(t *testing.T) string {
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "stale"), nil, 0o644)
				return dir
			},
			wantErr: "is not empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := repoFiles()
			for name, content := range tt.change {
				if content == "" {
					delete(files, name)
				} else {
					files[name] = content
				}
			}
			out := filepath.Join(t.TempDir(), "proxy")
			if tt.out != nil {
				out = tt.out(t)
			}
			version := "v1.2.3"
			if tt.version != "" {
				version = tt.version
			}
			p := &proxy{repo: writeRepo(t, files), version: version, dir: out}
			_, err := p.build([]string{".", "otel"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("build: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestCheckFindsNestedFiles makes a zip that x/mod would never make, holding
// a file of a nested module, to show that check looks.
func TestCheckFindsNestedFiles(t *testing.T) {
	m := module.Version{Path: "example.com/plants", Version: "v1.2.3"}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"go.mod", "LICENSE", "otel/otel.go"} {
		w, err := zw.Create(m.String() + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		content := "package otel\n"
		if name == "go.mod" {
			content = "module example.com/plants\n"
		}
		io.WriteString(w, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zipFile := filepath.Join(t.TempDir(), "v1.2.3.zip")
	if err := os.WriteFile(zipFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := check(m, zipFile, []string{"bench", "otel"})
	want := "the zip holds otel/otel.go, a file of the nested module in otel/"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check: %v, want an error containing %q", err, want)
	}
	if err := check(m, zipFile, []string{"bench"}); err != nil {
		t.Errorf("check with otel/ not a nested module: %v", err)
	}
}

// TestBuildFromGit zips a revision: what is not committed is not in the
// zip, as it would not be in the tag.
func TestBuildFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("skipping: no git: %v", err)
	}
	repo := writeRepo(t, repoFiles())
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "release")
	os.WriteFile(filepath.Join(repo, "client.go"), []byte("package plants // changed after the commit\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "untracked.go"), []byte("package plants\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "otel", "untracked.go"), []byte("package otel\n"), 0o644)

	out := filepath.Join(t.TempDir(), "proxy")
	p := &proxy{repo: repo, version: "v1.2.3", rev: "HEAD", dir: out}
	if _, err := p.build([]string{".", "otel"}); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string][]string{
		"example.com/!plants/@v":      {"LICENSE", "client.go", "go.mod", "internal/x/x.go"},
		"example.com/!plants/otel/@v": {"LICENSE", "go.mod", "otel.go"},
	} {
		names, lic := zipNames(t, filepath.Join(out, filepath.FromSlash(dir), "v1.2.3.zip"))
		if diff := cmp.Diff(want, names); diff != "" {
			t.Errorf("%s zip (-want +got):\n%s", dir, diff)
		}
		if lic != licence {
			t.Errorf("%s: the zip's LICENSE = %q, want the repository's", dir, lic)
		}
	}
	zr, err := zip.OpenReader(filepath.Join(out, "example.com/!plants/@v/v1.2.3.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open("example.com/Plants@v1.2.3/client.go") // unescaped in the zip
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "package plants\n" {
		t.Errorf("client.go in the zip = %q, want the committed %q", got, "package plants\n")
	}
}

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{"no out", []string{"-version", "v0.2.0"}, 2, "-out is required"},
		{"no version", []string{"-out", "x"}, 2, "want a canonical semantic version"},
		{"not canonical", []string{"-out", "x", "-version", "v0.2"}, 2, "want a canonical semantic version"},
		{"no v", []string{"-out", "x", "-version", "0.2.0"}, 2, "want a canonical semantic version"},
		{"build metadata", []string{"-out", "x", "-version", "v0.2.0+meta"}, 2, "want a canonical semantic version"},
		{"unknown flag", []string{"-x"}, 2, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want || !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tt.args, got, stderr.String(), tt.want, tt.wantErr)
			}
		})
	}
}
