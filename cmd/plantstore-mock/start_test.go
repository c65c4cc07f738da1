package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

// started is a plantstore-mock binary running for a test.
type started struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	// exited is closed when the process has exited; waitErr is then what
	// cmd.Wait returned.
	exited  <-chan struct{}
	waitErr error
}

// startMock runs exe with args on 127.0.0.1:0 (unless args give -addr)
// and waits for its URL. The process is killed when the test ends.
func startMock(t *testing.T, exe string, args ...string) *started {
	t.Helper()
	return startMockEnv(t, exe, nil, args...)
}

// startMockEnv is [startMock] with env ("KEY=value" entries) added to an
// environment that has no PLANTSTORE_TOKEN.
func startMockEnv(t *testing.T, exe string, env []string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(exe, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(withoutToken(os.Environ()), env...)
	stderr := new(syncbuf.Buffer)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("StdoutPipe: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Kill() // a no-op once it has exited
		<-exited
	})
	m := &started{cmd: cmd, stderr: stderr, exited: exited}
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- line
		m.waitErr = cmd.Wait() // after the read, as StdoutPipe requires
		close(exited)
	}()
	var line string
	select {
	case line = <-lines:
	case <-ctx.Done():
		t.Fatalf("no URL on stdout before %v; stderr:\n%s", ctx.Err(), stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first stdout line = %q, want \"listening on URL\"; stderr:\n%s", line, stderr.String())
	}
	m.url = url
	return m
}
