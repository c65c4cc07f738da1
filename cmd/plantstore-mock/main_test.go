package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// buildMock builds the command with the go build flags given into a
// temporary directory and returns the binary's path: with -race under the
// race detector (testenv.Race), which also checks the process the test runs.
func buildMock(t *testing.T, flags ...string) string {
	t.Helper()
	if testenv.Race {
		flags = append(flags, "-race")
	}
	return buildMockWith(t, flags...)
}

// buildPlainMock builds the command as a user does, without the race
// detector, for the tests that measure its memory.
func buildPlainMock(t *testing.T) string {
	t.Helper()
	return buildMockWith(t)
}

// buildMockWith builds the command with the go build flags given, once
// for each set of flags in the test binary's life: a build under -race
// costs seconds of CPU, and the tests that share flags share the binary.
func buildMockWith(t *testing.T, flags ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping: builds and runs the plantstore-mock binary (drop -short to run)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("skipping: the test stops the command with SIGTERM")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipping: no go command to build plantstore-mock with: %v", err)
	}
	b, _ := builds.LoadOrStore(strings.Join(flags, " "), new(build))
	bb := b.(*build)
	bb.once.Do(func() {
		dir, err := os.MkdirTemp("", "plantstore-mock-test")
		if err != nil {
			bb.err = err
			return
		}
		bb.exe = filepath.Join(dir, "plantstore-mock")
		args := append(append([]string{"build"}, flags...), "-o", bb.exe, ".")
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			bb.err = fmt.Errorf("go build failed: %v\n%s", err, out)
		}
	})
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.exe
}

// A build is a binary buildMockWith built, or why it could not; builds
// holds one for each set of flags, in directories TestMain removes.
type build struct {
	once sync.Once
	exe  string
	err  error
}

var builds sync.Map

func TestMain(m *testing.M) {
	code := m.Run()
	builds.Range(func(_, b any) bool {
		if exe := b.(*build).exe; exe != "" {
			os.RemoveAll(filepath.Dir(exe))
		}
		return true
	})
	os.Exit(code)
}

func TestMock(t *testing.T) {
	exe := buildMock(t)
	tests := []struct {
		name      string
		args      []string
		env       string // PLANTSTORE_TOKEN; "" leaves it unset
		wantToken string
	}{
		{"token flag", []string{"-token", "flag-token"}, "env-token", "flag-token"},
		{"token from environment", nil, "env-token", "env-token"},
		{"default token", nil, "", plantstoretest.DefaultToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			var env []string
			if tt.env != "" {
				env = []string{"PLANTSTORE_TOKEN=" + tt.env}
			}
			m := startMockEnv(t, exe, env, append([]string{"-log-level", "debug"}, tt.args...)...)
			url, stderr := m.url, m.stderr
			if !strings.HasPrefix(url, "http://127.0.0.1:") {
				t.Fatalf("URL = %q, want %q; stderr:\n%s", url, "http://127.0.0.1:PORT", stderr.String())
			}

			c, err := plantstore.NewClient(url, plantstore.WithToken(tt.wantToken))
			if err != nil {
				t.Fatalf("NewClient(%q) error = %v", url, err)
			}
			in := plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}
			got, err := c.CreatePlant(ctx, in)
			if err != nil {
				t.Fatalf("CreatePlant(%+v) error = %v, want nil; stderr:\n%s", in, err, stderr.String())
			}
			if diff := cmp.Diff(&plantstore.Plant{Name: "Monstera", Tag: "indoor"}, got); diff != "" {
				t.Errorf("CreatePlant(%+v) mismatch (-want +got):\n%s", in, diff)
			}
			c2, err := plantstore.NewClient(url, plantstore.WithToken("wrong-token"))
			if err != nil {
				t.Fatalf("NewClient(%q) error = %v", url, err)
			}
			var apiErr *plantstore.APIError
			if _, err := c2.CreatePlant(ctx, in); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusUnauthorized {
				t.Errorf("CreatePlant(%+v) with a wrong token error = %v, want a 401", in, err)
			}

			if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatalf("sending SIGTERM: %v", err)
			}
			select {
			case <-m.exited:
				if m.waitErr != nil {
					t.Errorf("plantstore-mock after SIGTERM exited with %v, want status 0; stderr:\n%s", m.waitErr, stderr.String())
				}
			case <-ctx.Done():
				t.Fatalf("plantstore-mock did not exit after SIGTERM before %v", ctx.Err())
			}

			logs := stderr.String()
			for _, want := range []string{
				`level=DEBUG msg="plantstoretest request" method=POST path=/plants status=200`,
				`level=DEBUG msg="plantstoretest request" method=POST path=/plants status=401`,
				`msg="shutting down"`,
			} {
				if !strings.Contains(logs, want) {
					t.Errorf("stderr = %q, want it to contain %q", logs, want)
				}
			}
			if strings.Contains(logs, tt.wantToken) || strings.Contains(logs, "wrong-token") {
				t.Errorf("stderr = %q, contains a token", logs)
			}
		})
	}
}

func TestRunRejectsBadUsage(t *testing.T) {
	t.Parallel()
	const envToken = "env-secret-token"
	getenv := func(key string) string {
		if key == "PLANTSTORE_TOKEN" {
			return envToken
		}
		return ""
	}
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		wantStderr string
	}{
		{"help", []string{"-h"}, 0, "Usage: plantstore-mock"},
		{"empty token", []string{"-token", ""}, 2, "token must not be empty"},
		{"token with space", []string{"-token", "a b"}, 2, "-token has an invalid character at byte 1"},
		// Told in the flag's terms, not slog's ("slog: level string ...").
		{"log level unknown", []string{"-log-level", "loud"}, 2, "invalid value \"loud\" for flag -log-level: want debug, info, warn or error\n"},
		{"unknown flag", []string{"-port", "80"}, 2, "flag provided but not defined"},
		{"extra argument", []string{"serve"}, 2, "unexpected arguments"},
		{"bad address", []string{"-addr", "127.0.0.1:99999"}, 1, "invalid port"},
		{"empty admin token", []string{"-admin-token", ""}, 2, "-admin-token must not be empty"},
		// The port is invalid, so that only a check before listening gives 2.
		{"admin token with space", []string{"-addr", "127.0.0.1:99999", "-admin-token", "a b"}, 2, "-admin-token has an invalid character at byte 1"},
		{"admin token is the API token", []string{"-token", "same-token", "-admin-token", "same-token"}, 2, "must differ"},
		{"admin token is the API token from the environment", []string{"-admin-token", envToken}, 2, "must differ"},
		{"negative journal", []string{"-journal", "-1"}, 2, "-journal -1: want 0 or more"},
		{"negative max plants", []string{"-max-plants", "-1"}, 2, "-max-plants -1: want 0 or more"},
		{"negative max stored", []string{"-max-stored-mib", "-1"}, 2, "-max-stored-mib -1: want 0 to 1073741824"},
		{"max stored past int64's bytes", []string{"-max-stored-mib", "1073741825"}, 2, "-max-stored-mib 1073741825: want 0 to 1073741824"},
		{"zero max conns", []string{"-max-conns", "0"}, 2, "-max-conns 0: want 1 or more"},
		{"rate without a slash", []string{"-rate-limit", "50"}, 2, "want N/s, N/m, N/h or N/duration"},
		{"rate of zero", []string{"-rate-limit", "0/s"}, 2, "whole number of requests from 1"},
		{"rate per fortnight", []string{"-rate-limit", "5/fortnight"}, 2, "want s, m, h or a positive Go duration"},
		{"chaos over 1", []string{"-chaos", "1.5"}, 2, "-chaos 1.5: want a fraction from 0 to 1"},
		{"chaos NaN", []string{"-chaos", "NaN"}, 2, "-chaos NaN: want a fraction from 0 to 1"},
		{"chaos seed not a number", []string{"-chaos-seed", "x"}, 2, "invalid value"},
		{"write timeout of 0", []string{"-write-timeout", "0"}, 2, "-write-timeout 0s: want a duration over 0"},
		{"schedule over the budget", []string{"-max-stored-mib", "0", "-schedule", "1:503"}, 2, "-schedule: the store is full"},
		{"schedule longer than the control API's", []string{"-schedule", "1:503" + strings.Repeat(" ", 65_532)}, 2, "-schedule: the schedule is 65537 characters long; it may have at most 65536"},
		{"missing seed file", []string{"-seed", "/nonexistent/seed.json"}, 2, "-seed: open /nonexistent/seed.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			status := run(context.Background(), tt.args, getenv, &stdout, &stderr)
			if status != tt.wantStatus {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, status, tt.wantStatus, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("run(%q) stderr = %q, want it to contain %q", tt.args, stderr.String(), tt.wantStderr)
			}
			if strings.Contains(stderr.String(), envToken) {
				t.Errorf("run(%q) stderr = %q, contains the token from the environment", tt.args, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("run(%q) stdout = %q, want nothing", tt.args, stdout.String())
			}
		})
	}
}

// TestHelpShowsDefaultsAsTyped checks that -h shows each default as the
// flag takes it and the README writes it: "-log-level" "(default info)",
// not slog's "INFO".
func TestHelpShowsDefaultsAsTyped(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if status := run(context.Background(), []string{"-h"}, func(string) string { return "" }, &stdout, &stderr); status != 0 {
		t.Fatalf("-h: status %d, want 0", status)
	}
	help := stderr.String()
	for _, form := range []string{"plantstore-mock conformance -url URL", "plantstore-mock drift BEFORE AFTER"} {
		if !strings.Contains(help, form) {
			t.Errorf("-h does not show the form %q:\n%s", form, help)
		}
	}
	_, logLevel, _ := strings.Cut(help, "\n  -log-level ")
	logLevel, _, _ = strings.Cut(logLevel, "\n  -")
	if !strings.HasSuffix(logLevel, "(default info)") {
		t.Errorf("-h shows -log-level as\n%s\nwant its default as \"(default info)\"", logLevel)
	}
	for _, level := range []string{"debug", "info", "warn", "error", "INFO"} {
		if _, status := parseFlags([]string{"-log-level", level}, func(string) string { return "" }, &stderr); status != -1 {
			t.Errorf("-log-level %s: status %d, want it taken", level, status)
		}
	}
}

// withoutToken returns env without PLANTSTORE_TOKEN.
func withoutToken(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PLANTSTORE_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}

// runToEnd runs the command in-process with args, calls use with the URL
// it listens on, stops it as SIGINT and SIGTERM would, checks that it
// exits 0, and returns what it wrote to stderr.
func runToEnd(t *testing.T, use func(t *testing.T, ctx context.Context, url string), args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdoutR, stdoutW := io.Pipe()
	var stderr syncbuf.Buffer
	status := make(chan int, 1)
	go func() {
		status <- run(ctx, args, func(string) string { return "" }, stdoutW, &stderr)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		t.Fatalf("run(%q): no URL line: %v; stderr:\n%s", args, err, stderr.String())
	}
	go io.Copy(io.Discard, stdoutR) // nothing more is expected; don't block run
	use(t, ctx, strings.TrimSpace(strings.TrimPrefix(line, "listening on ")))
	cancel()
	select {
	case got := <-status:
		if got != 0 {
			t.Errorf("run(%q) after cancel = %d, want 0; stderr:\n%s", args, got, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("run(%q) did not return 30s after its context was cancelled", args)
	}
	return stderr.String()
}

// TestRunServesUntilCancelled runs the command in-process, so that the
// serve and shutdown paths count in coverage: it serves a create, then a
// cancelled context (what SIGINT and SIGTERM do) shuts it down with status 0.
func TestRunServesUntilCancelled(t *testing.T) {
	t.Parallel()
	logs := runToEnd(t, func(t *testing.T, ctx context.Context, url string) {
		c, err := plantstore.NewClient(url, plantstore.WithToken("in-process-token"))
		if err != nil {
			t.Fatalf("NewClient(%q) error: %v", url, err)
		}
		defer c.CloseIdleConnections()
		if _, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
			t.Fatalf("CreatePlant against %s error: %v", url, err)
		}
		// Each journal entry keeps its request's headers, so their size is
		// bounded at the door.
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/plants", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Padding", strings.Repeat("x", maxHeaderBytes+8<<10))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("POST with a %d-byte header: %v", maxHeaderBytes+8<<10, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("POST with a %d-byte header: status %d, want 431", maxHeaderBytes+8<<10, resp.StatusCode)
		}
	}, "-addr", "127.0.0.1:0", "-token", "in-process-token")
	if !strings.Contains(logs, "shutting down") || strings.Contains(logs, "in-process-token") {
		t.Errorf("stderr = %q, want a shutdown line and no token", logs)
	}
	// At the default level, info, requests are not logged: under load the
	// log costs throughput. Start-up and shutdown lines stay.
	if strings.Contains(logs, "plantstoretest request") || !strings.Contains(logs, "control API at /__plantstore/ is open") {
		t.Errorf("stderr at the default log level = %q, want the start-up line and no request lines", logs)
	}
}
