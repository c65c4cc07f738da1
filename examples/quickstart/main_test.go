package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunFallsBackToMock(t *testing.T) {
	t.Setenv("PLANTSTORE_BASE_URL", "")
	t.Setenv("PLANTSTORE_TOKEN", "")
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run() error: %v", err)
	}
	for _, want := range []string{"using plantstoretest's fake, in-process, at http://127.0.0.1:", `created plant: name="Monstera deliciosa" tag="indoor"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("run() printed %q, want it to contain %q", out.String(), want)
		}
	}
}

func TestRunNeedsTokenForARealServer(t *testing.T) {
	t.Setenv("PLANTSTORE_BASE_URL", "https://plants.example.com")
	t.Setenv("PLANTSTORE_TOKEN", "")
	var out bytes.Buffer
	err := run(context.Background(), &out)
	if err == nil || !strings.Contains(err.Error(), "PLANTSTORE_TOKEN is not set") {
		t.Errorf("run() error = %v, want PLANTSTORE_TOKEN is not set", err)
	}
}
