// Command releasecheck builds a Go module proxy, in the layout the go command
// reads through GOPROXY=file://DIR, holding this repository's released
// modules at one version, zipped as the go command zips them. It is the
// first half of scripts/release-check.sh, which then installs from the proxy
// as a user would.
//
// Usage:
//
//	releasecheck -version v0.2.0 -out DIR [-repo .] [-rev HEAD] [module dir ...]
//
// The module directories, relative to -repo, default to "." and "otel". For
// each module it writes DIR/<module>/@v/list, <version>.info, <version>.mod
// and <version>.zip (paths and versions escaped as the go command escapes
// them). With -rev, the files are those of the git revision (git archive,
// as the go command fetches a tag, so a file not committed is not in the
// zip); without it, those of the directory. As the go command does, a
// module in a subdirectory without a LICENSE of its own gets the
// repository's.
//
// It fails, naming what is wrong, unless every zip passes the go command's
// own checks, holds a LICENSE, and holds no file of a nested module (a
// directory with a go.mod of its own), and unless every module in a
// subdirectory requires the root module at the version being released.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("releasecheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	repo := fs.String("repo", ".", "the repository's root `directory`")
	version := fs.String("version", "", "the `version` to release, like v0.2.0")
	out := fs.String("out", "", "the proxy `directory` to write; it must not exist or be empty")
	rev := fs.String("rev", "", "zip the files of this git `revision` (like HEAD), not the directory's")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = []string{".", "otel"}
	}
	switch {
	case *out == "":
		fmt.Fprintln(stderr, "releasecheck: -out is required")
		return 2
	case !semver.IsValid(*version) || semver.Canonical(*version) != *version || semver.Build(*version) != "":
		fmt.Fprintf(stderr, "releasecheck: -version %q: want a canonical semantic version like v0.2.0\n", *version)
		return 2
	}
	p := &proxy{repo: *repo, version: *version, rev: *rev, dir: *out, time: time.Now().UTC().Truncate(time.Second)}
	mods, err := p.build(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "releasecheck: %v\n", err)
		return 1
	}
	from := "the directory " + *repo
	if *rev != "" {
		from = "git revision " + *rev
	}
	fmt.Fprintf(stdout, "releasecheck: a module proxy in %s, from %s:\n", *out, from)
	for _, m := range mods {
		fmt.Fprintf(stdout, "  %s@%s: %d files, %.1f KiB zipped, with LICENSE", m.path, *version, m.files, float64(m.size)/1024)
		if len(m.excluded) > 0 {
			fmt.Fprintf(stdout, ", none of the nested modules %s", strings.Join(m.excluded, " "))
		}
		fmt.Fprintln(stdout)
	}
	return 0
}
