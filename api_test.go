package plantstore

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/internal/testenv"
)

var updateAPI = flag.Bool("update", false, "rewrite the files in api/ from the exported API of the packages")

// apiPackages are the packages whose exported API is recorded in api/, by
// directory (relative to the module root) and file.
var apiPackages = []struct{ dir, file string }{
	{".", "api/plantstore.txt"},
	{"plantstoretest", "api/plantstoretest.txt"},
	{"plantstoretest/conformance", "api/conformance.txt"},
	{"traffic", "api/traffic.txt"},
}

// TestAPI checks that the exported API of each package is what api/ records,
// one line per exported name in the style of Go's own api/go1.*.txt. An
// unintended change fails here with a diff; an intended one is recorded by
// running the test with -update and committing the file with the change
// (and a line in CHANGELOG.md).
func TestAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages' dependencies to read their export data")
	}
	t.Parallel()
	fset := token.NewFileSet()
	imp, err := exportDataImporter(fset)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range apiPackages {
		t.Run(p.dir, func(t *testing.T) {
			got, err := exportedAPI(fset, imp, p.dir)
			if err != nil {
				t.Fatalf("reading the API of %s: %v", p.dir, err)
			}
			if *updateAPI {
				if err := os.WriteFile(p.file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(p.file)
			if err != nil {
				t.Fatalf("%v (to create it: go test -run '^TestAPI$' -update .)", err)
			}
			if diff := apiDiff(string(want), got); diff != "" {
				t.Errorf("the exported API of %s differs from %s (-recorded +now):\n%s"+
					"If the change is intended, record it with\n\tgo test -run '^TestAPI$' -update .\n"+
					"and commit %s with it, with a line in CHANGELOG.md.", p.dir, p.file, diff, p.file)
			}
		})
	}
}

// exportDataImporter returns an importer that reads the compiler's export
// data of the packages of apiPackages and their dependencies, from the
// build cache: type-checking net/http and the rest from source would take
// far longer, more so under -race.
func exportDataImporter(fset *token.FileSet) (types.Importer, error) {
	args := []string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}
	if testenv.Race {
		// The export data of the build the test itself was compiled in: a
		// build without -race would compile the standard library again.
		args = append(args, "-race")
	}
	for _, p := range apiPackages {
		args = append(args, "./"+p.dir)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			err = fmt.Errorf("%w: %s", err, exitErr.Stderr)
		}
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := make(map[string]string)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}), nil
}

// exportedAPI type-checks the package in dir (without its tests) and
// returns its exported API, one sorted line per name.
func exportedAPI(fset *token.FileSet, imp types.Importer, dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return "", err
	}
	// The files this build compiles: a name declared in files for other
	// Go versions (explore_go125.go, explore_pre125.go) is declared once.
	ctxt := build.Default
	if testenv.Race {
		ctxt.BuildTags = append(ctxt.BuildTags, "race")
	}
	var syntax []*ast.File
	for _, name := range files {
		if ok, err := ctxt.MatchFile(dir, filepath.Base(name)); strings.HasSuffix(name, "_test.go") || err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		syntax = append(syntax, f)
	}
	if len(syntax) == 0 {
		return "", fmt.Errorf("no Go files in %s", dir)
	}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(syntax[0].Name.Name, fset, syntax, nil)
	if err != nil {
		return "", err
	}
	return apiLines(pkg), nil
}

// apiLines lists pkg's exported names as Go's cmd/api does: constants with
// their type and value, variables and functions with their types, each type
// with its kind, the exported fields of a struct and methods of an
// interface, and the exported methods of every exported type.
func apiLines(pkg *types.Package) string {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	var typ func(types.Type) string
	typ = func(t types.Type) string { return typeString(t, qual, typ) }
	prefix := "pkg " + pkg.Name() + ", "
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }

	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			if b, ok := obj.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				add("const %s = %s", name, obj.Val().ExactString())
			} else {
				add("const %s %s = %s", name, typ(obj.Type()), obj.Val().ExactString())
			}
		case *types.Var:
			add("var %s %s", name, typ(obj.Type()))
		case *types.Func:
			add("func %s%s", name, signature(obj.Type().(*types.Signature), typ))
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok || obj.IsAlias() {
				add("type %s = %s", name, typ(types.Unalias(obj.Type())))
				continue
			}
			switch u := named.Underlying().(type) {
			case *types.Struct:
				add("type %s struct", name)
				for i := range u.NumFields() {
					f := u.Field(i)
					switch {
					case f.Embedded():
						add("type %s struct, embedded %s", name, typ(f.Type()))
					case f.Exported():
						add("type %s struct, %s %s", name, f.Name(), typ(f.Type()))
					}
				}
			case *types.Interface:
				add("type %s interface { %s }", name, strings.Join(interfaceMethods(u), ", "))
				for i := range u.NumExplicitMethods() {
					if m := u.ExplicitMethod(i); m.Exported() {
						add("type %s interface, %s%s", name, m.Name(), signature(m.Type().(*types.Signature), typ))
					}
				}
			default:
				add("type %s %s", name, typ(u))
			}
			for i := range named.NumMethods() {
				m := named.Method(i)
				if !m.Exported() {
					continue
				}
				recv := name
				if _, ptr := m.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
					recv = "*" + name
				}
				add("method (%s) %s%s", recv, m.Name(), signature(m.Type().(*types.Signature), typ))
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// typeString writes t as types.TypeString does, but without the names of
// parameters and results in function types, which are not part of the API:
// renaming one must not show up as a change.
func typeString(t types.Type, qual types.Qualifier, typ func(types.Type) string) string {
	switch t := t.(type) {
	case *types.Signature:
		return "func" + signature(t, typ)
	case *types.Pointer:
		return "*" + typ(t.Elem())
	case *types.Slice:
		return "[]" + typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typ(t.Elem()))
	case *types.Map:
		return "map[" + typ(t.Key()) + "]" + typ(t.Elem())
	}
	return types.TypeString(t, qual)
}

// signature writes sig as cmd/api does: parameter types without names.
func signature(sig *types.Signature, typ func(types.Type) string) string {
	list := func(t *types.Tuple, variadic bool) []string {
		var out []string
		for i := range t.Len() {
			s := typ(t.At(i).Type())
			if variadic && i == t.Len()-1 {
				s = "..." + typ(t.At(i).Type().(*types.Slice).Elem())
			}
			out = append(out, s)
		}
		return out
	}
	s := "(" + strings.Join(list(sig.Params(), sig.Variadic()), ", ") + ")"
	switch res := list(sig.Results(), false); len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

// interfaceMethods names the exported methods of an interface, sorted.
func interfaceMethods(u *types.Interface) []string {
	var names []string
	for i := range u.NumMethods() {
		if m := u.Method(i); m.Exported() {
			names = append(names, m.Name())
		}
	}
	slices.Sort(names)
	return names
}

// apiDiff lists the lines only in want, with "-", and only in got, with "+",
// in order; "" if there are none. Both are sorted sets of lines, so this is
// the whole difference, and each line is a name that changed.
func apiDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for _, l := range w {
		if l != "" && !slices.Contains(g, l) {
			fmt.Fprintf(&b, "-%s\n", l)
		}
	}
	for _, l := range g {
		if l != "" && !slices.Contains(w, l) {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}

// TestAPILines checks the format of the api/ files on a package that has
// one of each kind of name.
func TestAPILines(t *testing.T) {
	t.Parallel()
	const src = `package p

const Untyped = "u"
const Typed int32 = 7
const hidden = 1

var ErrX error

type Option func(*config) error
type config struct{}

type S struct {
	*Embedded
	A      int
	b      string
	F      func(name string, n ...int) (ok bool, err error)
	M      map[string][]*S
	Arr    [2]byte
}

type Embedded struct{}

func (s *S) Do(x int, ys ...string) (int, error) { return 0, nil }
func (S) Name() string                            { return "" }
func (s *S) hidden()                              {}

type I interface {
	B()
	A(int) bool
}

type Alias = S

func New(opts ...Option) *S { return nil }
func unexported()           {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `pkg p, const Typed int32 = 7
pkg p, const Untyped = "u"
pkg p, func New(...Option) *S
pkg p, method (*S) Do(int, ...string) (int, error)
pkg p, method (S) Name() string
pkg p, type Alias = S
pkg p, type Embedded struct
pkg p, type I interface { A, B }
pkg p, type I interface, A(int) bool
pkg p, type I interface, B()
pkg p, type Option func(*config) error
pkg p, type S struct
pkg p, type S struct, A int
pkg p, type S struct, Arr [2]byte
pkg p, type S struct, F func(string, ...int) (bool, error)
pkg p, type S struct, M map[string][]*S
pkg p, type S struct, embedded *Embedded
pkg p, var ErrX error
`
	if got := apiLines(pkg); got != want {
		t.Errorf("apiLines mismatch:\n%s", apiDiff(want, got))
	}
}
