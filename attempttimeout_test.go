package plantstore

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestAttemptTimeoutRetriesOnlyBeforeTheStatus holds WithAttemptTimeout to
// its doc: an attempt that runs out of time before the response's status
// arrives is retried, but one that runs out while reading the body of a 200
// is not, since the plant was stored; the error says so.
func TestAttemptTimeoutRetriesOnlyBeforeTheStatus(t *testing.T) {
	t.Parallel()
	var creates atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		creates.Add(1)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"name":`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	defer close(release)
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
