package plantstore_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
)

// TestCreatePlantHugeResponseMemory sends CreatePlant a 200 MiB response
// body, generated as it is written, and checks that the client refuses it
// after its 1 MiB cap without the heap growing and that it hung up instead
// of reading on.
func TestCreatePlantHugeResponseMemory(t *testing.T) {
	const bodySize = 200 << 20
	written := make(chan int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the test is about the response
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(bodySize))
		// A plant with an endless name: a client that decodes as it reads
		// would keep going.
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		n, err := io.WriteString(w, `{"name":"`)
		for err == nil && n < bodySize {
			var m int
			m, err = w.Write(chunk[:min(len(chunk), bodySize-n)])
			n += m
		}
		written <- int64(n)
	}))
	defer srv.Close()
	c, err := plantstore.NewClient(srv.URL, plantstore.WithToken("test-token"))
	if err != nil {
		t.Fatalf("NewClient(%q) error: %v", srv.URL, err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Monstera"})
	var sent int64
	select {
	case sent = <-written:
	case <-time.After(time.Minute):
		t.Fatal("the server was still writing a minute after CreatePlant returned: the client neither read nor hung up")
	}
	runtime.GC()
	runtime.ReadMemStats(&after)

	if err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("CreatePlant with a 200 MiB response error = %v, want one about the size cap", err)
	}
	const (
		mib           = 1 << 20
		maxAllocated  = 8 * mib
		maxHeapGrowth = 2 * mib
		// What the server could write before the client hung up: the 1 MiB
		// cap plus the kernel's socket buffers on both ends (Linux lets
		// them grow to 32 MiB and 4 MiB by default; a few MiB is typical).
		maxSent = 40 * mib
	)
	allocated := after.TotalAlloc - before.TotalAlloc
	growth := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("200 MiB response: server wrote %.1f MiB before the client hung up; the process allocated %.1f MiB; live heap %+.2f MiB",
		float64(sent)/mib, float64(allocated)/mib, float64(growth)/mib)
	if allocated > maxAllocated {
		t.Errorf("CreatePlant with a 200 MiB response allocated %d bytes, want at most %d", allocated, maxAllocated)
	}
	if growth > maxHeapGrowth {
		t.Errorf("CreatePlant with a 200 MiB response left the live heap %d bytes larger, want at most %d", growth, maxHeapGrowth)
	}
	if sent > maxSent {
		t.Errorf("the server wrote %d bytes of a 200 MiB response before the client hung up, want at most %d", sent, maxSent)
	}
}
