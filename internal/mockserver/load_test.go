package mockserver

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestConcurrentControlDuringLoad runs control calls of every kind while
// clients create plants, for the race detector, and checks that each call
// gets one of its documented statuses.
func TestConcurrentControlDuringLoad(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	client := srv.Client()
	do := func(method, path, body, token string) (int, error) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, nil
	}

	const creators, creates = 6, 150
	var creatorsDone, controlsDone sync.WaitGroup
	var problems sync.Map
	report := func(format string, args ...any) { problems.Store(fmt.Sprintf(format, args...), true) }
	for g := 0; g < creators; g++ {
		creatorsDone.Add(1)
		go func(g int) {
			defer creatorsDone.Done()
			for i := 0; i < creates; i++ {
				id := g*creates + i
				status, err := do("POST", "/plants", fmt.Sprintf(`{"id": %d, "name": "p%d"}`, id%200, id), apiToken)
				switch {
				case err != nil: // a drop fault
				case status == 200, status == 400, status == 503:
				default:
					report("create = %d", status)
				}
			}
		}(g)
	}
	controls := []struct {
		method, path, body string
		ok                 []int
	}{
		{"POST", "/__plantstore/faults", `{"status": 503, "match": {"id": 7}, "times": 2}`, []int{201}},
		{"POST", "/__plantstore/faults", `{"drop": true, "match": {"name": "p9"}}`, []int{201}},
		{"GET", "/__plantstore/faults", "", []int{200}},
		{"GET", "/__plantstore/requests?since=50", "", []int{200}},
		{"GET", "/__plantstore/plants", "", []int{200}},
		{"POST", "/__plantstore/plants", `[{"id": 100000, "name": "seeded"}]`, []int{201, 400}}, // 400: seeded before
		{"DELETE", "/__plantstore/requests", "", []int{204}},
		{"DELETE", "/__plantstore/faults", "", []int{204}},
		{"POST", "/__plantstore/reset", "", []int{204}},
		{"POST", "/__plantstore/faults", `{"hang": true, "drop": true}`, []int{400}},
	}
	var stop atomic.Bool
	var controlCalls atomic.Int64
	for g := 0; g < 3; g++ {
		controlsDone.Add(1)
		go func(g int) {
			defer controlsDone.Done()
			for i := g; !stop.Load(); i++ {
				c := controls[i%len(controls)]
				status, err := do(c.method, c.path, c.body, "")
				controlCalls.Add(1)
				ok := false
				for _, s := range c.ok {
					ok = ok || s == status
				}
				if err != nil || !ok {
					report("%s %s = %d, %v; want one of %v", c.method, c.path, status, err, c.ok)
				}
			}
		}(g)
	}
	creatorsDone.Wait()
	stop.Store(true)
	controlsDone.Wait()
	problems.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	if status, err := do("POST", "/__plantstore/reset", "", ""); status != 204 || err != nil {
		t.Fatalf("final reset = %d, %v", status, err)
	}
	if len(h.Plants()) != 0 || len(h.Faults()) != 0 || len(h.Requests()) != 0 {
		t.Errorf("after the final reset: %d plants, %d faults, %d requests; want none", len(h.Plants()), len(h.Faults()), len(h.Requests()))
	}
	if n := controlCalls.Load(); n < int64(len(controls)) {
		t.Errorf("only %d control calls ran during the load, want at least %d", n, len(controls))
	}
}

// heapAfterGC is the live heap, in bytes.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestJournalMemoryIsBounded measures the heap a full journal takes with
// the mock's settings: bodies cut at JournalBodyLimit, so 32 KiB bodies cost
// 4 KiB each. The plant in each body is small: an entry also keeps the
// decoded plant (Request.Plant), name and tag uncut. Not parallel: it
// measures the heap.
func TestJournalMemoryIsBounded(t *testing.T) {
	testenv.Long(t)
	const journal, bodySize = 1000, 32 << 10
	h := plantstoretest.NewHandler(plantstoretest.WithToken(apiToken),
		plantstoretest.WithJournalLimit(journal), plantstoretest.WithJournalBodyLimit(JournalBodyLimit))
	defer h.Close()
	s, err := New(h, Config{Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id": 1, "name": "Fern"}` + strings.Repeat(" ", bodySize))
	send := func() {
		r := httptest.NewRequest("POST", "/plants", bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+apiToken)
		r.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(httptest.NewRecorder(), r)
	}
	send() // warm up
	before := heapAfterGC()
	for i := 0; i < 2*journal; i++ {
		send()
	}
	grown := int64(heapAfterGC()) - int64(before)
	perEntry := grown / journal
	t.Logf("journal of %d entries with %d-byte bodies: heap +%d KiB, %d bytes per entry", journal, len(body), grown>>10, perEntry)
	// Each entry keeps at most 4 KiB of body plus its headers and fields
	// (about 700 bytes here), and the journal is a ring of exactly N entries
	// once full: N entries' worth, where a journal that kept 2N would take
	// twice that.
	if limit := int64(journal * (JournalBodyLimit + 2048)); grown > limit {
		t.Errorf("heap grew by %d bytes for a %d-entry journal, want at most %d", grown, journal, limit)
	}
	if got := len(h.Requests()); got != journal {
		t.Errorf("journal holds %d entries, want %d", got, journal)
	}
}

// TestStalledConnectionsCostWhatTheySend opens connections that announce a
// 1 MiB body, send 7 bytes and stall: memory must follow the bytes
// received, not the Content-Length. Not parallel: it measures the heap.
func TestStalledConnectionsCostWhatTheySend(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: measures the heap")
	}
	const conns = 100
	h := plantstoretest.NewHandler(plantstoretest.WithToken(apiToken))
	s, err := New(h, Config{Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	var entered atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		s.ServeHTTP(w, r)
	})}
	go srv.Serve(LimitListener(ln, DefaultMaxConns))
	defer func() {
		h.Close()
		srv.Close()
	}()

	before := heapAfterGC()
	var clients []net.Conn
	for i := 0; i < conns; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatalf("Dial %d: %v", i, err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{\"id\":1", apiToken)
		clients = append(clients, c)
	}
	deadline := time.Now().Add(30 * time.Second)
	for entered.Load() < conns {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d stalled requests reached the handler in 30s", entered.Load(), conns)
		}
		runtime.Gosched()
	}
	// Every handler has started; a handler that allocated by the declared
	// length would have done so before blocking on the body. (One that has
	// not got there yet can only make the figure smaller, never fail the
	// test falsely.)
	grown := int64(heapAfterGC()) - int64(before)
	t.Logf("%d stalled connections announcing 1 MiB each: heap +%d KiB (%d bytes per connection)", conns, grown>>10, grown/conns)
	if limit := int64(conns * 64 << 10); grown > limit {
		t.Errorf("heap grew by %d bytes for %d stalled connections, want at most %d (64 KiB each)", grown, conns, limit)
	}
	for _, c := range clients {
		c.Close()
	}
}
