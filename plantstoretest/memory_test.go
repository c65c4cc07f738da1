package plantstoretest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// heapAlloc returns the bytes of live heap objects, after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// signalFirstRead is a request body that sends on arrived once its first
// Read has returned data: by then the handler has allocated its buffer.
type signalFirstRead struct {
	io.ReadCloser
	arrived chan<- struct{}
	sent    bool
}

func (b *signalFirstRead) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.sent {
		b.sent = true
		b.arrived <- struct{}{}
	}
	return n, err
}

// TestStalledBodiesCostWhatArrived checks that memory follows the bytes a
// client sends, not the length it announces: many connections that each
// announce a 1 MiB body, send 7 bytes and stall cost the fake a few
// kilobytes each, not 1 MiB. It measures the heap while they stall.
func TestStalledBodiesCostWhatArrived(t *testing.T) {
	// Not parallel: it measures the heap of the whole process.
	const (
		conns   = 100
		perConn = 64 << 10 // far below the 1 MiB each announces
	)
	h := NewHandler(WithRequestLimit(0))
	arrived := make(chan struct{}, conns)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &signalFirstRead{ReadCloser: r.Body, arrived: arrived}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	defer h.Close()

	before := heapAlloc()
	head := "POST /plants HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer " + DefaultToken +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(maxBodyBytes) + "\r\n\r\n"
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, head+`{"id":1`); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	for i := 0; i < conns; i++ {
		waitFor(t, fmt.Sprintf("stalled request %d to start its body", i), arrived)
	}
	grown := int64(heapAlloc()) - int64(before)
	if grown > conns*perConn {
		t.Errorf("%d requests announcing %d bytes and sending 7 grew the heap by %d bytes (%d per request), want at most %d per request",
			conns, maxBodyBytes, grown, grown/conns, perConn)
	}
	t.Logf("%d stalled requests: heap +%d bytes, %d per request", conns, grown, grown/conns)
}

// TestMemoryPerStoredPlant measures what the store costs per plant besides
// the plant's name and tag, which Seed shares with the caller: the
// documented bound of WithMaxPlants is at most 100 bytes.
func TestMemoryPerStoredPlant(t *testing.T) {
	// Not parallel: it measures the heap of the whole process.
	const (
		n       = 200_000
		maxCost = 100
	)
	tests := []struct {
		name string
		opts []Option
	}{
		{"default", nil},
		{"WithAllowDuplicateIDs", []Option{WithAllowDuplicateIDs()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plants := make([]plantstore.NewPlant, n)
			for i := range plants {
				plants[i] = plantstore.NewPlant{ID: int64(i), Name: "plant", Tag: "tag"}
			}
			h := NewHandler(tt.opts...)
			defer h.Close()
			before := heapAlloc()
			// One at a time, as POST /plants stores them, so the slice and
			// the map grow as they do in use.
			for i := range plants {
				if err := h.Seed(plants[i : i+1]); err != nil {
					t.Fatalf("Seed(plant %d): %v", i, err)
				}
			}
			cost := (int64(heapAlloc()) - int64(before)) / n
			runtime.KeepAlive(h)
			runtime.KeepAlive(plants)
			if cost > maxCost {
				t.Errorf("storing %d plants cost %d bytes each besides name and tag, want at most %d", n, cost, maxCost)
			}
			t.Logf("%s: %d bytes per stored plant besides name and tag", tt.name, cost)
		})
	}
}
