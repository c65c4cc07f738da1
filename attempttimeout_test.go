package plantstore

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

// TestAttemptTimeoutRetriesOnlyBeforeTheStatus holds WithAttemptTimeout to
// its doc: an attempt that runs out of time before the response's status
// arrives is retried, but one that runs out while reading the body of a 200
// is not, since the plant was stored; the error says so.
func TestAttemptTimeoutRetriesOnlyBeforeTheStatus(t *testing.T) {
	t.Parallel()
	var creates atomic.Int32
	srv := newStalledBodyServer(t, &creates)
	_, err := newTestClient(t, srv.URL, WithMaxRetries(2)).CreatePlant(context.Background(), monstera,
		WithAttemptTimeout(30*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "attempt timed out") {
		t.Errorf("CreatePlant error = %v, want the attempt timeout while reading the 200's body", err)
	}
	if !errors.Is(err, ErrMaybeCreated) {
		t.Errorf("CreatePlant error = %v, want it to match ErrMaybeCreated: the server answered 200", err)
	}
	if n := creates.Load(); n != 1 {
		t.Errorf("the server got %d creates, want 1: a 200 whose body timed out is not retried", n)
	}
}

// TestAttemptEndSeesTheBodyTimeout checks that the hooks and the log are
// told the truth about an attempt whose 200 came back but whose body ran
// out of time: it failed, as the call did, and was not retried. Reporting
// it as a plain 200 would give the attempt's span status OK and log
// status=200 for a call that failed on that very attempt.
func TestAttemptEndSeesTheBodyTimeout(t *testing.T) {
	t.Parallel()
	srv := newStalledBodyServer(t, nil)
	var (
		attempts []Attempt
		logs     syncbuf.Buffer
	)
	c := newTestClient(t, srv.URL,
		WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		WithHooks(Hooks{AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) { attempts = append(attempts, a) }}))
	_, err := c.CreatePlant(context.Background(), monstera, WithAttemptTimeout(30*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CreatePlant error = %v, want the attempt timeout while reading the body", err)
	}
	if len(attempts) != 1 {
		t.Fatalf("AttemptEnd ran %d times, want 1", len(attempts))
	}
	a := attempts[0]
	if a.StatusCode != http.StatusOK || !errors.Is(a.Err, context.DeadlineExceeded) || a.WillRetry {
		t.Errorf("AttemptEnd got %+v, want StatusCode 200, an Err matching context.DeadlineExceeded, no retry", a)
	}
	if want := "attempt timed out"; a.Err == nil || !strings.Contains(a.Err.Error(), want) {
		t.Errorf("Attempt.Err = %v, want it to say %q", a.Err, want)
	}
	if !strings.Contains(logs.String(), "error=") || strings.Contains(logs.String(), "status=200") {
		t.Errorf("log = %q, want the attempt's error, not status=200", logs.String())
	}
}

// newStalledBodyServer starts a server that answers 200, sends the first
// bytes of a Plant body and then stalls until the client goes away, for
// tests of a timeout that strikes while the body is read. It counts the
// requests it gets in creates, when not nil.
func newStalledBodyServer(t *testing.T, creates *atomic.Int32) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if creates != nil {
			creates.Add(1)
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"name":`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	// Release the handlers first, or Close would wait for them.
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}
