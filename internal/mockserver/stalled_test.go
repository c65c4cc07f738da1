package mockserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// stalledWriter is a ResponseWriter whose client reads nothing: its first
// Write says so on writing, and every Write blocks until release is closed.
type stalledWriter struct {
	header  http.Header
	once    sync.Once
	writing chan struct{}
	release chan struct{}
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return len(p), nil
}

// TestStalledReplyBlocksNoOtherControlRequest: a client that posts a fault
// and never reads the reply (which echoes the fault's body, up to several
// MiB once escaped) must not hold up the rest of the control API until the
// server's write timeout: the reply is written after the state is updated
// and unlocked, as GET /__plantstore/faults already does.
func TestStalledReplyBlocksNoOtherControlRequest(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler(plantstoretest.WithToken(apiToken))
	defer h.Close()
	s, err := New(h, Config{Loopback: true, ListenAddr: "127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	controlRequest := func(method, path, body string) *http.Request {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Host = "127.0.0.1:8080"
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
		}
		return r
	}

	for _, fault := range []string{`{"status": 503, "body": "echoed"}`, `{"status": 503}`} {
		t.Run(fault, func(t *testing.T) {
			w := &stalledWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
			stalled := make(chan struct{})
			go func() {
				defer close(stalled)
				s.ServeHTTP(w, controlRequest("POST", "/__plantstore/faults", fault))
			}()
			<-w.writing
			done := make(chan int, 1)
			go func() {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, controlRequest("POST", "/__plantstore/reset", ""))
				done <- rec.Code
			}()
			// The bound only detects the defect; a correct server answers
			// at once.
			select {
			case code := <-done:
				if code != http.StatusNoContent {
					t.Errorf("POST /__plantstore/reset = %d while another reply stalls, want 204", code)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("POST /__plantstore/reset waited 10s for a POST /__plantstore/faults whose client reads nothing")
				close(w.release)
				<-done // it ends once the stalled reply does
				<-stalled
				return
			}
			close(w.release)
			<-stalled
		})
	}
}
