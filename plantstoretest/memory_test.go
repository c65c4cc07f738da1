package plantstoretest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/testenv"
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
	h := NewHandler(WithJournalLimit(0))
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
	testenv.Long(t)
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

// TestReadBodyStaysWithinTheLimit checks that reading a body over the 1 MiB
// the fake accepts allocates no more than the limit and the one byte that
// shows the body is over it, whatever length the request announced: the
// buffer must not double past the limit to read that byte.
func TestReadBodyStaysWithinTheLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		size          int   // bytes sent
		contentLength int64 // announced; -1 for none (chunked)
		wantErr       bool
	}{
		{"unknown length, at the limit", maxBodyBytes, -1, false},
		{"unknown length, over the limit", maxBodyBytes + 1, -1, true},
		{"unknown length, far over the limit", 3 * maxBodyBytes, -1, true},
		{"announced over the limit", maxBodyBytes + 1, maxBodyBytes + 1, true},
		{"announced at the limit", maxBodyBytes, maxBodyBytes, false},
		{"longer than announced", 100_000, 10, false}, // only in-process
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/plants", io.LimitReader(zeros{}, int64(tt.size)))
			r.ContentLength = tt.contentLength
			buf, err := readBody(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("readBody of %d bytes: error %v, want error: %v", tt.size, err, tt.wantErr)
			}
			if want := min(tt.size, maxBodyBytes); len(buf) != want {
				t.Errorf("readBody of %d bytes returned %d, want %d", tt.size, len(buf), want)
			}
			if c := cap(buf); c > maxBodyBytes+1 {
				t.Errorf("readBody of %d bytes (Content-Length %d) grew its buffer to %d bytes, want at most %d",
					tt.size, tt.contentLength, c, maxBodyBytes+1)
			}
		})
	}
}

// zeros reads as an endless run of spaces.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestJournalMemoryIsBounded checks the bound WithJournalLimit and
// WithJournalBodyLimit document together: the journal holds at most n
// requests, and at most the body limit of each body, whether the bodies
// announced their length or not.
func TestJournalMemoryIsBounded(t *testing.T) {
	t.Parallel()
	const (
		n         = 10
		bodyLimit = 4 << 10
	)
	tests := []struct {
		name    string
		size    int  // of each body
		chunked bool // no Content-Length
	}{
		{"small, announced", 600, false},
		{"small, chunked", 600, true},
		{"at the limit, chunked", bodyLimit, true},
		{"over the limit, chunked", 3 * bodyLimit, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(WithJournalLimit(n), WithJournalBodyLimit(bodyLimit))
			body := `{"id":1,"name":"` + strings.Repeat("a", tt.size-len(`{"id":1,"name":""}`)) + `"}`
			for i := 0; i < 3*n+3; i++ {
				r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
				if tt.chunked {
					r.ContentLength = -1
				}
				r.Header = validHeader(DefaultToken)
				h.ServeHTTP(httptest.NewRecorder(), r)
			}
			h.mu.Lock()
			entries, bytes := 0, 0
			for _, r := range h.journal.requests[:cap(h.journal.requests)] {
				if r.Seq != 0 {
					entries++
				}
				bytes += cap(r.Body)
			}
			h.mu.Unlock()
			// What is kept of each body, and the allocator's rounding up
			// to a size class (at most 1/8).
			maxBytes := n * (min(tt.size, bodyLimit) + 1) * 9 / 8
			if entries > n || bytes > maxBytes {
				t.Errorf("after %d requests of %d bytes, the journal holds %d entries and %d bytes of bodies; want at most %d and %d",
					3*n+3, tt.size, entries, bytes, n, maxBytes)
			}
			if got := len(h.Requests()); got != n {
				t.Errorf("len(Requests()) = %d, want %d", got, n)
			}
		})
	}
}

// TestBudgetCountsTheHeap checks that a [Budget] counts at least what the
// heap holds for each kind of thing a Handler keeps, in the shapes that cost
// most for their bytes: so that a full Budget bounds the heap. Measured
// (Go 1.26): 0.25 to 0.75 of what is counted.
func TestBudgetCountsTheHeap(t *testing.T) {
	testenv.Long(t) // a memory measurement: 11 s under -race
	// Not parallel: it measures the heap of the whole process.
	header := func(n int) http.Header {
		h := http.Header{"Authorization": {"Bearer " + DefaultToken}, "Content-Type": {"application/json"},
			"User-Agent": {"plantstore-go/0.3.0"}, "X-Request-Id": {"0123456789abcdef0123456789abcdef"}}
		for i := 0; i < n; i++ {
			h[fmt.Sprintf("H%d", i)] = []string{""}
		}
		return h
	}
	createAt := func(h *Handler, target string, header http.Header, id int) {
		r := httptest.NewRequest(http.MethodPost, target, strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"a"}`, id)))
		r.Header = header
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	create := func(h *Handler, header http.Header, id int) { createAt(h, "/plants", header, id) }
	tests := []struct {
		name string
		n    int
		opts []Option
		keep func(h *Handler, i int)
	}{
		{"tiny plants", 50_000, []Option{WithJournalLimit(0)}, func(h *Handler, i int) { create(h, header(0), i) }},
		{"journal entries", 10_000, []Option{WithMaxPlants(0)}, func(h *Handler, i int) { create(h, header(0), i) }},
		{"journal entries of 300 headers", 300, []Option{WithMaxPlants(0)}, func(h *Handler, i int) { create(h, header(300), i) }},
		// The query is not kept, nor the request line it came in.
		{"journal entries of a long query", 1000, []Option{WithMaxPlants(0)}, func(h *Handler, i int) {
			createAt(h, "/plants?"+strings.Repeat("q", 4<<10), header(0), i)
		}},
		{"faults", 10_000, nil, func(h *Handler, i int) { h.AddFault(Fault{Status: 503, Match: func(Request) bool { return false }}) }},
		{"faults of 1000 headers", 50, nil, func(h *Handler, i int) {
			fh := http.Header{}
			for j := 0; j < 1000; j++ {
				fh[fmt.Sprintf("H%d-%d", i, j)] = []string{""}
			}
			h.AddFault(Fault{Status: 503, Header: fh})
		}},
		// A Handler keeps one schedule: the last one set.
		{"a schedule of 100,000 faults", 1, nil, func(h *Handler, i int) { h.SetSchedule(longSchedule(100_000)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget(1 << 40)
			h := NewHandler(append(tt.opts, WithBudget(b))...)
			before := heapAlloc()
			for i := 0; i < tt.n; i++ {
				tt.keep(h, i)
			}
			grown := int64(heapAlloc()) - int64(before)
			runtime.KeepAlive(h)
			t.Logf("heap %d bytes each, counted %d (%.2f)", grown/int64(tt.n), b.Used()/int64(tt.n), float64(grown)/float64(b.Used()))
			if grown > b.Used() {
				t.Errorf("%d kept: the heap grew by %d bytes, more than the %d the budget counts", tt.n, grown, b.Used())
			}
		})
	}
}
