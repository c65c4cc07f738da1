package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// printVersion writes the version of the module the binary was built from,
// and a newline, to w: the -version flag. It returns the exit status, 0.
func printVersion(w io.Writer) int {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(w, moduleVersion(info, ok))
	return 0
}

// moduleVersion is the main module's version as the go command recorded it
// in the binary: "v0.4.0" for `go install ...@v0.4.0`, "(devel)" for a
// build from a checkout (or a pseudo-version, when the go command stamps one
// from the checkout's VCS state).
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
