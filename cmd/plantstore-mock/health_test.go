package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestHealthcheck runs -healthcheck against a healthy mock, nothing, and
// servers that answer wrongly or not at all: 0 only for the first, and 1
// within the one-second bound otherwise.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	exe := buildMock(t)
	m := startMock(t, exe)
	healthy := strings.TrimPrefix(m.url, "http://")

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nothing := closed.Addr().String()
	closed.Close()

	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"degraded"}`))
	}))
	defer wrong.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"status":"ok"}`, http.StatusServiceUnavailable)
	}))
	defer failing.Close()
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(release)

	_, port, _ := net.SplitHostPort(healthy)
	tests := []struct {
		name       string
		addr       string
		wantStatus int
		wantStderr string
	}{
		{"healthy", healthy, 0, ""},
		{"healthy, unspecified host", ":" + port, 0, ""},
		// Asked where the mock's "listening on" line would point: localhost,
		// which finds the IPv4 listener too (not ::1 alone).
		{"healthy, unspecified IPv6 host", "[::]:" + port, 0, ""},
		{"no server", nothing, 1, "connection refused"},
		{"wrong body", strings.TrimPrefix(wrong.URL, "http://"), 1, `body status "degraded"`},
		{"503", strings.TrimPrefix(failing.URL, "http://"), 1, "status 503"},
		{"no answer", strings.TrimPrefix(hanging.URL, "http://"), 1, "deadline exceeded"},
	}
	// The wait is bounded by a deadline in the code, not measured here: a
	// wall-clock bound in a test flakes on a loaded machine. "no answer"
	// shows that the deadline is what ends the wait, and this that it is
	// the documented one.
	if healthTimeout > time.Second {
		t.Errorf("healthTimeout = %v, want at most 1s (the README's bound)", healthTimeout)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			status := run(context.Background(), []string{"-healthcheck", "-addr", tt.addr}, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
			if status != tt.wantStatus || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("-healthcheck -addr %s = %d, stderr %q; want %d and %q", tt.addr, status, stderr.String(), tt.wantStatus, tt.wantStderr)
			}
		})
	}

	// The binary itself, as a container runs it.
	if out, err := exec.Command(exe, "-healthcheck", "-addr", healthy).CombinedOutput(); err != nil {
		t.Errorf("%s -healthcheck -addr %s: %v\n%s", exe, healthy, err, out)
	}
	if err := exec.Command(exe, "-healthcheck", "-addr", nothing).Run(); err == nil || err.(*exec.ExitError).ExitCode() != 1 {
		t.Errorf("%s -healthcheck -addr %s (nothing listening) = %v, want exit status 1", exe, nothing, err)
	}
}
