package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// A proxy writes modules of one repository, at one version, into a
// directory in the layout of a Go module proxy (go.dev/ref/mod#goproxy-protocol).
type proxy struct {
	repo    string    // the repository's root directory
	version string    // the version of every module, like v0.2.0
	rev     string    // a git revision to take the files from, or "" for the directory
	dir     string    // where to write the proxy
	time    time.Time // the .info files' Time
}

// A built module, as written to the proxy.
type built struct {
	path     string   // the module path
	files    int      // how many files its zip holds
	size     int      // the zip's size in bytes
	zip      string   // the zip's file in the proxy
	excluded []string // the nested modules checked to be absent, as directories of the repository
}

// build writes the modules in dirs (relative to p.repo, "." for the root)
// to p.dir and checks them.
func (p *proxy) build(dirs []string) ([]built, error) {
	if entries, err := os.ReadDir(p.dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: the proxy must hold only what this run writes", p.dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	rootMod, err := p.goMod(".")
	if err != nil {
		return nil, err
	}
	nested, err := nestedModules(p.repo)
	if err != nil {
		return nil, err
	}
	var mods []built
	for _, d := range dirs {
		d = path.Clean(filepath.ToSlash(d))
		mf, err := p.goMod(d)
		if err != nil {
			return nil, err
		}
		if d != "." {
			if err := requiresRootAt(mf, rootMod.Module.Mod.Path, p.version); err != nil {
				return nil, fmt.Errorf("%s/go.mod: %v", d, err)
			}
		}
		m := module.Version{Path: mf.Module.Mod.Path, Version: p.version}
		data, err := p.zip(m, d)
		if err != nil {
			return nil, fmt.Errorf("zipping %s: %v", d, err)
		}
		b, err := p.write(m, data)
		if err != nil {
			return nil, err
		}
		b.excluded = nestedIn(nested, d)
		if err := check(m, b.zip, b.excluded); err != nil {
			return nil, err
		}
		mods = append(mods, b)
	}
	return mods, nil
}

// goMod reads and parses the go.mod of the module in dir.
func (p *proxy) goMod(dir string) (*modfile.File, error) {
	name := path.Join(dir, "go.mod")
	data, err := p.readFile(name)
	if err != nil {
		return nil, err
	}
	mf, err := modfile.Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	if mf.Module == nil {
		return nil, fmt.Errorf("%s: no module line", name)
	}
	return mf, nil
}

// readFile reads the file name (slash-separated, relative to the
// repository) from p.rev or from the directory.
func (p *proxy) readFile(name string) ([]byte, error) {
	if p.rev == "" {
		return os.ReadFile(filepath.Join(p.repo, filepath.FromSlash(name)))
	}
	out, err := p.git("cat-file", "blob", p.rev+":"+name)
	if err != nil {
		return nil, fmt.Errorf("reading %s at %s: %v", name, p.rev, err)
	}
	return out, nil
}

// requiresRootAt reports whether mf requires the root module at version,
// when it requires the root module at all.
func requiresRootAt(mf *modfile.File, root, version string) error {
	for _, r := range mf.Require {
		if r.Mod.Path == root && r.Mod.Version != version {
			return fmt.Errorf("requires %s %s; a module released at %s must require the root module at %s, the version released with it (RELEASING.md)",
				root, r.Mod.Version, version, version)
		}
	}
	return nil
}

// zip returns the module zip of m, whose files are in the repository's
// directory dir, made as the go command makes it: the files of the git
// revision or of the directory, passed through x/mod's zip rules (no file
// of a nested module or vendor directory, nothing irregular), and, for a
// module in a subdirectory without a LICENSE, the repository's LICENSE.
func (p *proxy) zip(m module.Version, dir string) ([]byte, error) {
	var files []modzip.File
	var err error
	if p.rev != "" {
		files, err = p.gitFiles(dir)
	} else {
		files, err = dirFiles(m, filepath.Join(p.repo, filepath.FromSlash(dir)))
	}
	if err != nil {
		return nil, err
	}
	if dir != "." && !slices.ContainsFunc(files, func(f modzip.File) bool { return f.Path() == "LICENSE" }) {
		// As cmd/go's coderepo.go does for a module in a subdirectory.
		if licence, err := p.readFile("LICENSE"); err == nil {
			files = append(files, dataFile{name: "LICENSE", data: licence})
		}
	}
	var buf bytes.Buffer
	if err := modzip.Create(&buf, m, files); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dirFiles lists the files of the module m in dir, by x/mod's
// CreateFromDir, which also leaves out version control directories.
func dirFiles(m module.Version, dir string) ([]modzip.File, error) {
	var buf bytes.Buffer
	if err := modzip.CreateFromDir(&buf, m, dir); err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		return nil, err
	}
	prefix := m.String() + "/"
	files := make([]modzip.File, 0, len(zr.File))
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, prefix)
		if name == ".git" {
			continue // a git worktree's pointer file: never in a module from git
		}
		files = append(files, zipFile{name: name, f: f})
	}
	return files, nil
}

// gitFiles lists the files under dir at p.rev, from git archive, as the go
// command reads a tagged module (cmd/go's codehost/git.go; the same flags).
func (p *proxy) gitFiles(dir string) ([]modzip.File, error) {
	args := []string{"-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", p.rev}
	prefix := ""
	if dir != "." {
		args, prefix = append(args, dir), dir+"/"
	}
	out, err := p.git(args...)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if err != nil {
		return nil, err
	}
	var files []modzip.File
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, prefix) || strings.HasSuffix(f.Name, "/") {
			continue
		}
		files = append(files, zipFile{name: strings.TrimPrefix(f.Name, prefix), f: f})
	}
	return files, nil
}

// git runs git in the repository and returns its standard output.
func (p *proxy) git(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = p.repo
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// write writes m's list, .info, .mod and .zip files; the .mod is the
// zip's go.mod, as the go command checks.
func (p *proxy) write(m module.Version, data []byte) (built, error) {
	escPath, err := module.EscapePath(m.Path)
	if err != nil {
		return built{}, err
	}
	escVersion, err := module.EscapeVersion(m.Version)
	if err != nil {
		return built{}, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return built{}, err
	}
	goMod, err := fs.ReadFile(zr, m.String()+"/go.mod")
	if err != nil {
		return built{}, fmt.Errorf("%s: the zip holds no go.mod: %v", m, err)
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, p.time})
	if err != nil {
		return built{}, err
	}
	dir := filepath.Join(p.dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return built{}, err
	}
	for name, content := range map[string][]byte{
		"list":               []byte(m.Version + "\n"),
		escVersion + ".info": info,
		escVersion + ".mod":  goMod,
		escVersion + ".zip":  data,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return built{}, err
		}
	}
	return built{path: m.Path, files: len(zr.File), size: len(data), zip: filepath.Join(dir, escVersion+".zip")}, nil
}

// check checks the module zip in the file zipFile: the go command's own
// checks (x/mod's CheckZip), a LICENSE at its root, and no file under any
// of the directories excluded (nested modules, relative to the module).
func check(m module.Version, zipFile string, excluded []string) error {
	cf, err := modzip.CheckZip(m, zipFile)
	if err != nil {
		return fmt.Errorf("%s: %v", m, err)
	}
	if err := cf.Err(); err != nil {
		return fmt.Errorf("%s: %v", m, err)
	}
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		return err
	}
	defer zr.Close()
	prefix := m.String() + "/"
	licence := false
	for _, f := range zr.File {
		name := strings.TrimPrefix(f.Name, prefix)
		licence = licence || name == "LICENSE"
		for _, ex := range excluded {
			if strings.HasPrefix(name, ex+"/") {
				return fmt.Errorf("%s: the zip holds %s, a file of the nested module in %s/", m, name, ex)
			}
		}
	}
	if !licence {
		return fmt.Errorf("%s: the zip holds no LICENSE", m)
	}
	return nil
}

// nestedModules returns the directories below repo that hold a go.mod,
// slash-separated and relative to repo, skipping version control
// directories.
func nestedModules(repo string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".hg" || d.Name() == ".svn" || d.Name() == ".bzr") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		rel, err := filepath.Rel(repo, filepath.Dir(p))
		if err != nil {
			return err
		}
		if rel != "." {
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	return dirs, err
}

// nestedIn returns the nested modules below dir, relative to dir.
func nestedIn(nested []string, dir string) []string {
	var in []string
	for _, n := range nested {
		switch {
		case dir == ".":
			in = append(in, n)
		case strings.HasPrefix(n, dir+"/"):
			in = append(in, strings.TrimPrefix(n, dir+"/"))
		}
	}
	return in
}

// zipFile is a file of a zip, as a modzip.File.
type zipFile struct {
	name string
	f    *zip.File
}

func (f zipFile) Path() string                 { return f.name }
func (f zipFile) Lstat() (os.FileInfo, error)  { return f.f.FileInfo(), nil }
func (f zipFile) Open() (io.ReadCloser, error) { return f.f.Open() }

// dataFile is a file held in memory, as a modzip.File.
type dataFile struct {
	name string
	data []byte
}

func (f dataFile) Path() string { return f.name }
func (f dataFile) Lstat() (os.FileInfo, error) {
	return fstest.MapFS{f.name: {Data: f.data, Mode: 0o644}}.Stat(f.name)
}
func (f dataFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }
