package main

import (
	"bytes"
	"context"
	"os/exec"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModuleVersion(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "(devel)"},
		{"no version", &debug.BuildInfo{}, true, "(devel)"},
		{"from a checkout", &debug.BuildInfo{Main: debug.Module{Path: "github.com/plantstore/plantstore-go", Version: "(devel)"}}, true, "(devel)"},
		{"installed at a release", &debug.BuildInfo{Main: debug.Module{Path: "github.com/plantstore/plantstore-go", Version: "v0.2.0"}}, true, "v0.2.0"},
		{"stamped from git", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.1-0.20261124000000-0123456789ab+dirty"}}, true, "v0.2.1-0.20261124000000-0123456789ab+dirty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := moduleVersion(tt.info, tt.ok); got != tt.want {
				t.Errorf("moduleVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRunVersion runs -version in process: it prints the test binary's
// module version, (devel), on stdout and nothing else, even when the
// environment holds settings that would stop the server from starting.
func TestRunVersion(t *testing.T) {
	t.Parallel()
	getenv := func(key string) string {
		// The admin token may not equal the API token: serving would fail.
		if key == "PLANTSTORE_TOKEN" || key == "PLANTSTORE_ADMIN_TOKEN" {
			return "same-token"
		}
		return ""
	}
	for _, args := range [][]string{{"-version"}, {"--version"}, {"-version=true", "-journal", "-1"}} {
		var stdout, stderr bytes.Buffer
		status := run(context.Background(), args, getenv, &stdout, &stderr)
		got := struct {
			Status         int
			Stdout, Stderr string
		}{status, stdout.String(), stderr.String()}
		want := got
		want.Status, want.Stdout, want.Stderr = 0, "(devel)\n", ""
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("run(%q) (-want +got):\n%s", args, diff)
		}
	}
}

// TestVersionBinary builds the command from this checkout, as a user of the
// repository does (without version control stamping, which would give a
// pseudo-version), and runs -version. The release check
// (scripts/release-check.sh) proves that a binary installed with
// `go install ...@v0.2.0` prints v0.2.0.
func TestVersionBinary(t *testing.T) {
	exe := buildMock(t, "-buildvcs=false")
	var stderr bytes.Buffer
	cmd := exec.Command(exe, "-version")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -version: %v; stderr:\n%s", exe, err, stderr.String())
	}
	if string(out) != "(devel)\n" || stderr.Len() != 0 {
		t.Errorf("%s -version: stdout %q, stderr %q; want \"(devel)\\n\" and nothing", exe, out, stderr.String())
	}
}
