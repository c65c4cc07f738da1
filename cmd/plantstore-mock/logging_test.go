package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// createOne sends one create to the mock at url; -chaos may drop it.
func createOne(t *testing.T, _ context.Context, url string) {
	req, err := http.NewRequest("POST", url+"/plants", strings.NewReader(`{"id": 1, "name": "Fern"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// logLine is a line of slog's text handler.
var logLine = regexp.MustCompile(`^time=\S+ level=(DEBUG|INFO|WARN|ERROR) msg=`)

// TestLogIsStructured checks that everything a running mock writes to
// stderr is one kind of line, slog's text, at every level; and that the
// start-up lines, the profile in force among them, print at every level.
func TestLogIsStructured(t *testing.T) {
	t.Parallel()
	profile := filepath.Join(t.TempDir(), "deploy.json")
	if err := os.WriteFile(profile, []byte(`{"source": "https://ops:hunter2@plants.example.com/v1?key=hunter3#x",
		"duplicate_id": {"status": 409, "body": "taken"}, "auth_invalid": {"status": 403, "body": "no"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, level := range []string{"debug", "info", "error"} {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			logs := runToEnd(t, createOne, "-addr", "127.0.0.1:0", "-log-level", level, "-chaos", "0.5", "-profile", profile, "-schedule", "9:429, 7:503")
			for _, line := range strings.Split(strings.TrimSuffix(logs, "\n"), "\n") {
				if !logLine.MatchString(line) {
					t.Errorf("a line of stderr is not slog's text: %q", line)
				}
			}
			for _, want := range []string{
				`msg="control API at /__plantstore/ is open`,
				`msg="-chaos with a random seed; pass -chaos-seed to repeat this run" chaos=0.5 chaos_seed=`,
				`msg="-profile in force" profile=` + profile + ` source=https://ops:xxxxx@plants.example.com/v1 replies="duplicate_id auth_invalid"`,
				`msg="-schedule in force" schedule=7:503,9:429`,
			} {
				if !strings.Contains(logs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, logs)
				}
			}
			if strings.Contains(logs, "hunter") {
				t.Errorf("stderr shows a secret of the profile's source:\n%s", logs)
			}
			if got, want := strings.Contains(logs, `msg="shutting down"`), level != "error"; got != want {
				t.Errorf("-log-level %s: a shutdown line: %v, want %v:\n%s", level, got, want, logs)
			}
			if got, want := strings.Contains(logs, `msg="plantstoretest request"`), level == "debug"; got != want {
				t.Errorf("-log-level %s: a request line: %v, want %v:\n%s", level, got, want, logs)
			}
		})
	}
}
