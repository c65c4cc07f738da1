package main

import "runtime/debug"

// moduleVersion is the main module's version as the go command recorded it
// in the binary: "v0.5.0" for `go install ...@v0.5.0`, "(devel)" for a
// build from a checkout (or a pseudo-version, when the go command stamps one
// from the checkout's VCS state).
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
