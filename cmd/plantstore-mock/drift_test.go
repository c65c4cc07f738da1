package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/internal/latency"
	"github.com/plantstore/plantstore-go/traffic"
)

// writeRecording writes a profile document with the traffic of n attempts
// of which failed answered 503, each failure a run of its own, all in one
// latency bucket; it returns the file's path.
func writeRecording(t *testing.T, n, failed int64) string {
	t.Helper()
	from, to := latency.Bounds(latency.Of(20_000_000)) // 20 ms
	rec := traffic.Recording{
		Attempts: n,
		Outcomes: []traffic.Outcome{
			{Kind: traffic.KindOK, Status: 201, Count: n - failed, Latency: []traffic.Bucket{{FromUS: from, ToUS: to, Count: n - failed}}},
			{Kind: traffic.Kind5xx, Status: 503, Count: failed, Latency: []traffic.Bucket{{FromUS: from, ToUS: to, Count: failed}},
				RetryAfter: []traffic.RetryAfter{{Count: failed}}},
		},
		FailureRuns: traffic.Runs{Runs: failed, Failures: failed, Lengths: []traffic.RunLength{{Length: 1, Count: failed}}},
	}
	data, err := json.Marshal(map[string]any{"source": "test", "traffic": rec})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "recording.json")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestDrift(t *testing.T) {
	t.Parallel()
	steady := writeRecording(t, 10000, 100)
	again := writeRecording(t, 12000, 118)
	worse := writeRecording(t, 10000, 500)
	// Two recordings of one mock setting and seed, minutes apart, on a
	// loaded machine (issue 41): the same answers, the latency's p95
	// 3.96 ms and then 2.3 ms.
	sameA, sameB := filepath.Join("testdata", "drift-same-a.json"), filepath.Join("testdata", "drift-same-b.json")
	// The mock with the failures' runs twice as long, another seed.
	bursts := filepath.Join("testdata", "drift-bursts.json")
	dir := t.TempDir()
	noTraffic := filepath.Join(dir, "profile.json")
	os.WriteFile(noTraffic, []byte(`{"source": "a profile"}`), 0o600)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"traffic": {"attempts": 1, "outcomes": [], "failure_runs": {"runs": 0, "failures": 0, "lengths": []}}}`), 0o600)
	for _, tc := range []struct {
		name   string
		args   []string
		status int
		stdout string // a line stdout must hold; "" for none at all
		stderr string
	}{
		{"nothing moved", []string{steady, again}, 0, "", ""},
		{"the machine's noise", []string{sameA, sameB}, 0, "", ""},
		{"bursts", []string{sameA, bursts}, 1, "failure run length: mean 4.55 (258 runs; 916 of 1174 failures followed by one) -> mean 10.25 (60 runs; 555 of 615 failures followed by one) (chi-square", ""},
		{"503 rate ×5", []string{steady, worse}, 1, "rate of 5xx 503: 1% (100 of 10000) -> 5% (500 of 10000) (chi-square", ""},
		{"one file: its summary", []string{steady}, 0, "10000 attempts; 1.00 % failed", ""},
		{"three files", []string{steady, steady, steady}, 2, "", "want two files, BEFORE and AFTER, or one"},
		{"one file without traffic", []string{noTraffic}, 2, "", "profile.json: traffic: the document has no traffic"},
		{"missing file", []string{steady, filepath.Join(dir, "none.json")}, 2, "", "none.json: open"},
		{"no traffic", []string{noTraffic, steady}, 2, "", "profile.json: traffic: the document has no traffic"},
		{"inconsistent", []string{steady, bad}, 2, "", "bad.json: traffic: the outcomes count 0 attempts, attempts says 1"},
		{"unknown flag", []string{"-x", steady, steady}, 2, "", "flag provided but not defined"},
		{"help", []string{"-h"}, 0, "", "usage: plantstore-mock drift BEFORE AFTER"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run(context.Background(), append([]string{"drift"}, tc.args...), func(string) string { return "" }, &stdout, &stderr)
			if status != tc.status {
				t.Errorf("status %d, want %d; stderr:\n%s", status, tc.status, stderr.String())
			}
			if tc.stdout == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout:\n%s\nwant it to hold %q", stdout.String(), tc.stdout)
			}
			if len(tc.args) != 1 && strings.Count(stdout.String(), "\n") > 1 {
				t.Errorf("stdout has more than the one line that moved:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr:\n%s\nwant it to hold %q", stderr.String(), tc.stderr)
			}
		})
	}
}
