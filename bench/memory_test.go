package bench

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/bench/internal/baseline"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The plants BenchmarkPlantMemory stores have a 16-byte name and an 8-byte
// tag, sizes the allocator serves exactly, so that the bytes beyond them are
// what the server adds per plant.
const (
	memoryTag       = "outdoors"
	memoryNameBytes = len("Monstera 0000000")
)

// newFakeStore is the fake of package plantstoretest with its journal off.
func newFakeStore(tb testing.TB) http.Handler {
	h := plantstoretest.NewHandler(plantstoretest.WithToken(baseline.Token), plantstoretest.WithJournalLimit(0))
	tb.Cleanup(h.Close)
	return h
}

// BenchmarkPlantMemory stores b.N distinct plants in each server of
// serversUnderTest that stores any, through its handler, and reports the live heap it grew by per plant, less the bytes
// of the plant's name and tag, as "B/plant" (issue 9's bar: at most 100).
// The heap is read with runtime.ReadMemStats after a collection, before and
// after. Run it with -benchtime 100000x: with fewer plants the figure says
// more about the store's growth steps than about a plant.
func BenchmarkPlantMemory(b *testing.B) {
	for _, s := range serversUnderTest {
		if s.store == nil {
			continue
		}
		b.Run("server="+s.name, func(b *testing.B) {
			h := s.store(b)
			var w discardResponse
			before := liveHeap()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				name := fmt.Sprintf("Monstera %07d", i%10_000_000) // memoryNameBytes long
				body := `{"id":` + fmt.Sprint(i) + `,"name":"` + name + `","tag":"` + memoryTag + `"}`
				r, err := http.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
				if err != nil {
					b.Fatalf("NewRequest: %v", err)
				}
				r.Header.Set("Authorization", "Bearer "+baseline.Token)
				r.Header.Set("Content-Type", "application/json")
				w.status = 0
				h.ServeHTTP(&w, r)
				if w.status != http.StatusOK {
					b.Fatalf("create %d: status %d, want 200", i, w.status)
				}
			}
			b.StopTimer()
			grown := liveHeap() - before
			runtime.KeepAlive(h)
			b.ReportMetric(float64(grown)/float64(b.N)-float64(memoryNameBytes+len(memoryTag)), "B/plant")
		})
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// discardResponse is an http.ResponseWriter that keeps the status only, so
// that the responses leave nothing on the heap.
type discardResponse struct {
	header http.Header
	status int
}

func (w *discardResponse) Header() http.Header {
	if w.header == nil {
		w.header = http.Header{}
	}
	return w.header // the handler sets the same few keys every time
}

func (w *discardResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *discardResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return io.Discard.Write(p)
}
