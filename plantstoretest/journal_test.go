package plantstoretest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go"
	h2cpkg "github.com/plantstore/plantstore-go/internal/h2c"
)

// serve sends one request to h in-process and returns the recorder.
func serve(h *Handler, header http.Header, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
	r.Header = header
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// outcome is the part of a journal entry that says what became of it.
type outcome struct {
	Outcome Outcome
	Status  int
	Fault   string
}

func outcomeOf(r Request) outcome { return outcome{r.Outcome, r.Status, r.Fault} }

func TestJournalOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fault  *Fault
		header http.Header
		want   outcome
	}{
		{"created", nil, nil, outcome{OutcomeSent, http.StatusOK, ""}},
		{"rejected", nil, http.Header{}, outcome{OutcomeSent, http.StatusUnauthorized, ""}},
		{"fault status", &Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}},
			nil, outcome{OutcomeSent, http.StatusServiceUnavailable, "inject#1 1:503 retry-after=0"}},
		{"fault drop", &Fault{Drop: true}, nil, outcome{OutcomeDropped, 0, "inject#1 1:drop"}},
		{"fault store then drop", &Fault{Store: true, Drop: true}, nil, outcome{OutcomeDropped, 0, "inject#1 1:store-drop"}},
		{"fault header only", &Fault{Header: http.Header{"X-A": {"1"}}}, nil, outcome{OutcomeSent, http.StatusOK, "inject#1 1:reply"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			if tt.fault != nil {
				s.Inject(*tt.fault)
			}
			header := tt.header
			if header == nil {
				header = validHeader(string(s.cfg.token))
			}
			req, err := http.NewRequest(http.MethodPost, s.URL+"/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = header
			if resp, err := s.ts.Client().Do(req); err == nil {
				resp.Body.Close()
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("len(Requests()) = %d, want 1", len(reqs))
			}
			if diff := cmp.Diff(tt.want, outcomeOf(reqs[0])); diff != "" {
				t.Errorf("Requests()[0] outcome mismatch (-want +got):\n%s", diff)
			}
			if reqs[0].Seq != 1 || reqs[0].Duration <= 0 || reqs[0].Time.IsZero() {
				t.Errorf("Requests()[0] Seq, Duration, Time = %d, %v, %v; want 1, > 0, set", reqs[0].Seq, reqs[0].Duration, reqs[0].Time)
			}
		})
	}
}

// TestJournalHeldRequest checks that a request a Fault holds is in the
// journal while it is held, and gets its outcome when it ends.
func TestJournalHeldRequest(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	match, arrived := arrival()
	s.Inject(Fault{Hang: true, Match: match})
	errc := createAsync(context.Background(), s.Client(plantstore.WithMaxRetries(0)), plantstore.NewPlant{ID: 1, Name: "Fern"})
	waitFor(t, "the request to arrive", arrived)

	held := s.Requests()
	if len(held) != 1 {
		t.Fatalf("len(Requests()) while held = %d, want 1", len(held))
	}
	if diff := cmp.Diff(outcome{OutcomeHeld, 0, "inject#1 1:hang"}, outcomeOf(held[0])); diff != "" {
		t.Errorf("Requests()[0] while held mismatch (-want +got):\n%s", diff)
	}
	if held[0].Duration != 0 || held[0].Plant.Name != "Fern" {
		t.Errorf("Requests()[0] while held: Duration %v, Plant %+v; want 0 and the Fern", held[0].Duration, held[0].Plant)
	}

	s.Close() // releases the hang: the connection is dropped
	if err := waitFor(t, "CreatePlant to fail", errc); err == nil {
		t.Errorf("CreatePlant of a hung request returned no error")
	}
	done := s.Requests()
	if diff := cmp.Diff(outcome{OutcomeDropped, 0, "inject#1 1:hang"}, outcomeOf(done[0])); diff != "" {
		t.Errorf("Requests()[0] after Close mismatch (-want +got):\n%s", diff)
	}
}

func TestJournalTimeAndDuration(t *testing.T) {
	t.Parallel()
	h := NewHandler()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	calls := 0
	h.now = func() time.Time { // arrival, then the end of the reply
		calls++
		return t0.Add(time.Duration(calls-1) * 5 * time.Millisecond)
	}
	serve(h, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`)
	r := h.Requests()[0]
	if !r.Time.Equal(t0) || r.Duration != 5*time.Millisecond {
		t.Errorf("Requests()[0] Time, Duration = %v, %v; want %v, 5ms", r.Time, r.Duration, t0)
	}
}

func TestJournalCorrelationHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		header         http.Header
		wantID         string
		wantRetryCount int
	}{
		{"absent", nil, "", -1},
		{"both", http.Header{"X-Request-Id": {"abc-1"}, "X-Retry-Count": {"2"}}, "abc-1", 2},
		{"zero", http.Header{"X-Retry-Count": {"0"}}, "", 0},
		{"empty", http.Header{"X-Retry-Count": {""}}, "", -1},
		{"negative", http.Header{"X-Retry-Count": {"-1"}}, "", -1},
		{"plus sign", http.Header{"X-Retry-Count": {"+1"}}, "", -1},
		{"not a number", http.Header{"X-Retry-Count": {"two"}}, "", -1},
		{"space", http.Header{"X-Retry-Count": {" 1"}}, "", -1},
		{"too large", http.Header{"X-Retry-Count": {"99999999999999999999"}}, "", -1},
		{"twice", http.Header{"X-Retry-Count": {"1", "2"}}, "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler()
			header := validHeader(DefaultToken)
			for k, vs := range tt.header {
				header[k] = vs
			}
			serve(h, header, `{"id":1,"name":"Fern"}`)
			r := h.Requests()[0]
			if r.RequestID != tt.wantID || r.RetryCount != tt.wantRetryCount {
				t.Errorf("headers %v: RequestID, RetryCount = %q, %d; want %q, %d", tt.header, r.RequestID, r.RetryCount, tt.wantID, tt.wantRetryCount)
			}
		})
	}
}

// TestRetryCountOfJunk: a peer's long X-Retry-Count costs the fake nothing
// on its way to -1, where strconv's error copied it whole, on every request.
func TestRetryCountOfJunk(t *testing.T) {
	header := http.Header{"X-Retry-Count": {strings.Repeat("x", 64<<10)}}
	if allocs := testing.AllocsPerRun(10, func() { _ = retryCount(header) }); allocs != 0 || retryCount(header) != -1 {
		t.Errorf("retryCount of 64 KiB of junk = %d, with %v allocations; want -1 and none", retryCount(header), allocs)
	}
}

func TestJournalSeqAndRequestsSince(t *testing.T) {
	t.Parallel()
	h := NewHandler()
	seqs := func(reqs []Request) []uint64 {
		out := []uint64{}
		for _, r := range reqs {
			out = append(out, r.Seq)
		}
		return out
	}
	for range 3 {
		serve(h, nil, "")
	}
	steps := []struct {
		name string
		do   func()
		want []uint64 // Requests()
	}{
		{"three requests", func() {}, []uint64{1, 2, 3}},
		{"ClearRequests", h.ClearRequests, []uint64{}},
		{"after ClearRequests", func() { serve(h, nil, "") }, []uint64{4}},
		{"Reset", h.Reset, []uint64{}},
		{"after Reset", func() { serve(h, nil, ""); serve(h, nil, "") }, []uint64{5, 6}},
	}
	for _, st := range steps {
		st.do()
		if diff := cmp.Diff(st.want, seqs(h.Requests())); diff != "" {
			t.Errorf("%s: Seqs of Requests() mismatch (-want +got):\n%s", st.name, diff)
		}
	}
	for _, tt := range []struct {
		since uint64
		want  []uint64
	}{
		{0, []uint64{5, 6}},
		{3, []uint64{5, 6}},
		{5, []uint64{6}},
		{6, []uint64{}},
		{100, []uint64{}},
	} {
		if diff := cmp.Diff(tt.want, seqs(h.RequestsSince(tt.since))); diff != "" {
			t.Errorf("RequestsSince(%d) Seqs mismatch (-want +got):\n%s", tt.since, diff)
		}
	}
}

func TestJournalRequestsSinceUnderLimit(t *testing.T) {
	t.Parallel()
	h := NewHandler(WithJournalLimit(3))
	for range 10 {
		serve(h, nil, "")
	}
	var got []uint64
	for _, r := range h.RequestsSince(2) {
		got = append(got, r.Seq)
		if r.Outcome != OutcomeSent || r.Status != http.StatusUnauthorized {
			t.Errorf("request %d: Outcome %q, Status %d; want sent 401", r.Seq, r.Outcome, r.Status)
		}
	}
	if diff := cmp.Diff([]uint64{8, 9, 10}, got); diff != "" {
		t.Errorf("RequestsSince(2) under WithJournalLimit(3) Seqs mismatch (-want +got):\n%s", diff)
	}
	if got := h.RequestsSince(9); len(got) != 1 || got[0].Seq != 10 {
		t.Errorf("RequestsSince(9) = %d requests, want request 10", len(got))
	}
}

func TestWithJournalBodyLimit(t *testing.T) {
	t.Parallel()
	const body = `{"id":1,"name":"Fern"}`
	tooLarge := strings.Repeat(" ", maxBodyBytes+1)
	tests := []struct {
		name          string
		opts          []Option
		body          string
		wantBody      string
		wantTruncated bool
	}{
		{"default", nil, body, body, false},
		{"at the limit", []Option{WithJournalBodyLimit(len(body))}, body, body, false},
		{"over the limit", []Option{WithJournalBodyLimit(5)}, body, body[:5], true},
		{"zero", []Option{WithJournalBodyLimit(0)}, body, "", true},
		{"zero, empty body", []Option{WithJournalBodyLimit(0)}, "", "", false},
		{"over what the fake accepts", nil, tooLarge, tooLarge[:maxBodyBytes], true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(tt.opts...)
			w := serve(h, validHeader(DefaultToken), tt.body)
			r := h.Requests()[0]
			if string(r.Body) != tt.wantBody || r.BodyTruncated != tt.wantTruncated {
				t.Errorf("Requests()[0] Body, BodyTruncated = %q, %v; want %q, %v",
					abbreviate(r.Body), r.BodyTruncated, abbreviate([]byte(tt.wantBody)), tt.wantTruncated)
			}
			if tt.body == body && w.Code != http.StatusOK {
				t.Errorf("status = %d, want 200: the journal's limit must not cut what is checked", w.Code)
			}
		})
	}
}

// TestJournalFaultsAndSeedsUnderLoad calls every method that reads or
// changes the state while clients create plants, for the race detector and
// for the journal's invariants: each snapshot holds consecutive Seqs.
func TestJournalFaultsAndSeedsUnderLoad(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithJournalLimit(50), WithAllowDuplicateIDs())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		wg    sync.WaitGroup
		calls atomic.Int64
	)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(plantstore.WithMaxRetries(0))
			for i := 0; ctx.Err() == nil; i++ {
				_, _ = c.CreatePlant(ctx, plantstore.NewPlant{ID: int64(g*1_000_000 + i), Name: "Fern"})
				calls.Add(1)
			}
		}()
	}
	var last uint64
	for i := 0; i < 200 || calls.Load() < 400; i++ {
		switch i % 8 {
		case 0:
			if _, err := s.AddFault(Fault{Status: http.StatusServiceUnavailable, Times: 3}); err != nil {
				t.Errorf("AddFault: %v", err)
			}
		case 1:
			_ = s.Faults()
		case 2:
			if err := s.Seed([]plantstore.NewPlant{{ID: int64(-i), Name: "Seeded"}}); err != nil {
				t.Errorf("Seed: %v", err)
			}
		case 3:
			s.ClearRequests()
		case 4:
			s.ClearFaults()
		case 5:
			if i%40 == 5 {
				s.Reset()
			}
		}
		reqs := s.RequestsSince(last)
		for j := 1; j < len(reqs); j++ {
			if reqs[j].Seq != reqs[j-1].Seq+1 {
				t.Fatalf("RequestsSince(%d): Seq %d follows %d", last, reqs[j].Seq, reqs[j-1].Seq)
			}
		}
		if len(reqs) > 0 {
			if reqs[0].Seq <= last {
				t.Fatalf("RequestsSince(%d) starts at Seq %d", last, reqs[0].Seq)
			}
			last = reqs[len(reqs)-1].Seq
		}
		_ = s.Plants()
	}
	cancel()
	wg.Wait()
	s.ClearFaults()
	if last == 0 {
		t.Errorf("no request was recorded under load")
	}
}

// The journal entries Requests returns are copies.
func TestRequestsSinceReturnsCopies(t *testing.T) {
	t.Parallel()
	h := NewHandler()
	serve(h, nil, "")
	got := h.RequestsSince(0)
	got[0].Invalid.Message = "changed"
	got[0].Header.Set("X", "y")
	again := h.RequestsSince(0)
	if diff := cmp.Diff(got[0], again[0], cmpopts.EquateEmpty()); diff == "" {
		t.Errorf("modifying what RequestsSince returned changed the journal")
	}
}

// TestJournalRingCompletes checks that, under WithJournalLimit, outcomes
// reach the right entries wherever the ring has wrapped, and that an entry
// pushed out is not brought back.
func TestJournalRingCompletes(t *testing.T) {
	t.Parallel()
	for arrivals := 3; arrivals <= 8; arrivals++ {
		h := NewHandler(WithJournalLimit(3))
		h.mu.Lock()
		for range arrivals {
			h.journal.seq++
			h.journal.record(Request{Seq: h.journal.seq})
		}
		for seq := uint64(1); seq <= uint64(arrivals); seq++ {
			h.journal.complete(seq, 200+int(seq), time.Duration(seq), nil)
		}
		h.mu.Unlock()
		var want []Request
		for seq := uint64(arrivals - 2); seq <= uint64(arrivals); seq++ {
			want = append(want, Request{Seq: seq, Outcome: OutcomeSent, Status: 200 + int(seq), Duration: time.Duration(seq)})
		}
		if diff := cmp.Diff(want, h.Requests(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("after %d arrivals under WithJournalLimit(3), Requests() mismatch (-want +got):\n%s", arrivals, diff)
		}
		for since := uint64(0); since <= uint64(arrivals)+1; since++ {
			got := h.RequestsSince(since)
			wantN := min(3, max(0, arrivals-int(since)))
			if len(got) != wantN || (wantN > 0 && got[len(got)-1].Seq != uint64(arrivals)) {
				t.Errorf("after %d arrivals, RequestsSince(%d) = %d entries, want the last %d", arrivals, since, len(got), wantN)
			}
		}
	}
}

// TestControlCallsDuringLoad calls the control methods from several
// goroutines at once while clients create plants through the rate limit,
// chaos and faults that hold, store and drop requests, so that entries
// complete after Reset and ClearRequests have run and while the ring under
// WithJournalLimit wraps. Besides the race detector, it checks the
// journal's invariants in every snapshot, and that no request is left held
// once the server has closed.
func TestControlCallsDuringLoad(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithJournalLimit(16), WithRateLimit(1_000_000, time.Second), WithChaos(0.2, 7), WithMaxPlants(200))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		clients, controls sync.WaitGroup
		created           atomic.Int64
	)
	for g := range 4 {
		clients.Add(1)
		go func() {
			defer clients.Done()
			c := s.Client(plantstore.WithMaxRetries(0))
			for i := 0; ctx.Err() == nil; i++ {
				_, _ = c.CreatePlant(ctx, plantstore.NewPlant{ID: int64(g*1_000_000 + i), Name: "Fern"})
				created.Add(1)
			}
		}()
	}
	check := func(reqs []Request, since uint64) error {
		for j, r := range reqs {
			switch {
			case r.Seq <= since:
				return fmt.Errorf("RequestsSince(%d) returned Seq %d", since, r.Seq)
			case j > 0 && r.Seq != reqs[j-1].Seq+1:
				return fmt.Errorf("Seq %d follows %d", r.Seq, reqs[j-1].Seq)
			case r.Outcome == OutcomeSent && r.Status == 0,
				r.Outcome != OutcomeSent && r.Status != 0,
				r.Outcome == OutcomeHeld && r.Duration != 0:
				return fmt.Errorf("entry %d: Outcome %q, Status %d, Duration %v", r.Seq, r.Outcome, r.Status, r.Duration)
			}
		}
		if len(reqs) > 16 {
			return fmt.Errorf("%d entries under WithJournalLimit(16)", len(reqs))
		}
		return nil
	}
	errc := make(chan error, 8)
	control := func(do func(i int) error) {
		controls.Add(1)
		go func() {
			defer controls.Done()
			for i := 0; i < 300; i++ {
				if err := do(i); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	faults := []Fault{
		{Status: http.StatusServiceUnavailable, Times: 2},
		{Delay: time.Millisecond, Store: true, Header: http.Header{"X-Slow": {"1"}}},
		{Delay: time.Millisecond},
		{Store: true, Drop: true},
	}
	control(func(i int) error {
		_, err := s.AddFault(faults[i%len(faults)])
		return err
	})
	control(func(i int) error {
		switch i % 3 {
		case 0:
			s.ClearFaults()
		case 1:
			s.ClearRequests()
		default:
			_ = s.Faults()
		}
		return nil
	})
	control(func(i int) error {
		if i%50 == 49 {
			s.Reset()
		}
		err := s.Seed([]plantstore.NewPlant{{ID: int64(-1 - i), Name: "Seeded"}})
		var seedErr *SeedError
		if err != nil && (!errors.As(err, &seedErr) || seedErr.Body.Code != CodeStoreFull && seedErr.Body.Code != CodeDuplicateID) {
			return fmt.Errorf("Seed: %v", err)
		}
		return nil
	})
	var last uint64 // the last Seq the poller below saw
	control(func(int) error {
		reqs := s.RequestsSince(last)
		if err := check(reqs, last); err != nil {
			return err
		}
		if len(reqs) > 0 {
			last = reqs[len(reqs)-1].Seq
		}
		_ = s.Plants()
		return check(s.Requests(), 0)
	})
	controls.Wait()
	for created.Load() < 100 && ctx.Err() == nil {
		if err := check(s.Requests(), 0); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	clients.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	s.ClearFaults()
	s.Close() // returns once every handler has, the held ones dropped
	for _, r := range s.Requests() {
		if r.Outcome == OutcomeHeld {
			t.Errorf("entry %d is still held after the server closed: %+v", r.Seq, r)
		}
	}
}

// TestJournalSentBeforeBodyIsRead checks that a client holding a response
// finds it in the journal as sent, even when the body is too large for the
// server to have finished writing it: the status went out first.
func TestJournalSentBeforeBodyIsRead(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Body: bytes.Repeat([]byte("x"), 8<<20)})
	req, err := http.NewRequest(http.MethodPost, s.URL+"/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = validHeader(string(s.cfg.token))
	resp, err := s.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The handler is still writing the 8 MiB body, which nobody reads yet.
	r := s.Requests()[0]
	if r.Outcome != OutcomeSent || r.Status != http.StatusServiceUnavailable || r.Duration <= 0 {
		t.Errorf("Requests()[0] with a %d response in hand: Outcome %q, Status %d, Duration %v; want sent, 503, > 0",
			resp.StatusCode, r.Outcome, r.Status, r.Duration)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Errorf("reading the body: %v", err)
	}
}

// TestJournalCutsTheDecodedPlant checks that the journal's body limit bounds
// the decoded plant it keeps too: a name as long as the body would
// otherwise cost a journal entry its whole length, whatever the limit.
func TestJournalCutsTheDecodedPlant(t *testing.T) {
	t.Parallel()
	const limit = 16
	long := strings.Repeat("é", 40) // 80 bytes; the cut must keep whole characters
	tests := []struct {
		name, tag         string
		wantName, wantTag string
	}{
		{"Fern", "indoor", "Fern", "indoor"},
		{long, long, long[:limit], long[:limit]},
		{"x" + long, "", "x" + long[:limit-2], ""}, // "é" at bytes 15-16 would be split
	}
	for _, tt := range tests {
		h := NewHandler(WithJournalBodyLimit(limit))
		body := fmt.Sprintf(`{"id":1,"name":%q,"tag":%q}`, tt.name, tt.tag)
		if w := serve(h, validHeader(DefaultToken), body); w.Code != http.StatusOK {
			t.Fatalf("create with a %d-byte name: status %d, want 200", len(tt.name), w.Code)
		}
		got := h.Requests()[0].Plant
		if diff := cmp.Diff(plantstore.NewPlant{ID: 1, Name: tt.wantName, Tag: tt.wantTag}, got); diff != "" {
			t.Errorf("Requests()[0].Plant for a %d-byte name, limit %d (-want +got):\n%s", len(tt.name), limit, diff)
		}
		if stored := h.Plants()[0]; stored.Name != tt.name || stored.Tag != tt.tag {
			t.Errorf("Plants()[0] = %q, %q; want the plant whole: %q, %q", stored.Name, stored.Tag, tt.name, tt.tag)
		}
	}
}

// TestJournalMethodAndPath checks what the journal keeps of a request's
// method and path: the route table's own strings for a route's, which
// allocates nothing, and copies of others (TestBudgetCountsTheHeap checks
// that neither keeps the request line). Not parallel: AllocsPerRun.
func TestJournalMethodAndPath(t *testing.T) {
	h := NewHandler()
	tests := []struct {
		method, target, path string
		allocs               float64
	}{
		{http.MethodPost, "/plants?q=1", "/plants", 0},
		{http.MethodGet, "/plants", "/plants", 1},
		{http.MethodPost, "/pl%61nts/", "/plants/", 1},
		{"BREW", "/pot", "/pot", 2},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		var method, path string
		allocs := testing.AllocsPerRun(10, func() { method, path = h.methodAndPath(r) })
		if method != tt.method || path != tt.path || allocs != tt.allocs {
			t.Errorf("%s %s: kept %s %s with %v allocations, want %s %s with %v", tt.method, tt.target, method, path, allocs, tt.method, tt.path, tt.allocs)
		}
	}
}

// TestJournalNamesTheDuplicate checks that the journal entry of a create
// refused for its id names the create that stored the id and whether it
// stored the same plant, on every path a reply takes: at once, after a
// Fault's Delay, under a Fault with Store, and under a profile's answer.
func TestJournalNamesTheDuplicate(t *testing.T) {
	t.Parallel()
	fern := plantstore.NewPlant{ID: 1, Name: "Fern"}
	ivy := plantstore.NewPlant{ID: 1, Name: "Ivy"}
	seeded := plantstore.NewPlant{ID: 9, Name: "Seeded"}
	profile := Profile{DuplicateID: &ProfileReply{Status: 409, Body: `{"error":1009,"message":"taken"}`}}
	tests := []struct {
		name   string
		opts   []Option
		fault  *Fault // injected before the last create
		sends  []plantstore.NewPlant
		want   []*Duplicate // of each request's entry
		status int          // of the last reply
	}{
		{"a retry of the same create", nil, nil, []plantstore.NewPlant{fern, fern}, []*Duplicate{nil, {StoredBy: 1, Same: true}}, 400},
		{"another plant under the id", nil, nil, []plantstore.NewPlant{fern, ivy}, []*Duplicate{nil, {StoredBy: 1, Same: false}}, 400},
		{"a seeded id", []Option{WithPlants(seeded)}, nil, []plantstore.NewPlant{seeded}, []*Duplicate{{StoredBy: 0, Same: true}}, 400},
		{"after a Delay", nil, &Fault{Delay: time.Millisecond}, []plantstore.NewPlant{fern, fern}, []*Duplicate{nil, {StoredBy: 1, Same: true}}, 400},
		{"under Store and a scripted 503", nil, &Fault{Store: true, Status: 503}, []plantstore.NewPlant{fern, ivy}, []*Duplicate{nil, {StoredBy: 1, Same: false}}, 503},
		{"under a profile's answer", []Option{WithProfile(profile)}, nil, []plantstore.NewPlant{fern, fern}, []*Duplicate{nil, {StoredBy: 1, Same: true}}, 409},
		{"not under WithAllowDuplicateIDs", []Option{WithAllowDuplicateIDs()}, nil, []plantstore.NewPlant{fern, fern}, []*Duplicate{nil, nil}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(tt.opts...)
			t.Cleanup(h.Close)
			status := 0
			for i, p := range tt.sends {
				if i == len(tt.sends)-1 && tt.fault != nil {
					h.Inject(*tt.fault)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, plantRequest(t, p))
				status = w.Code
			}
			if status != tt.status {
				t.Errorf("the last create was answered %d, want %d", status, tt.status)
			}
			got := duplicates(h.Requests())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the entries' Duplicate (-want +got):\n%s", diff)
			}
			// Requests hands over copies: changing one changes no entry.
			for _, d := range got {
				if d != nil {
					d.StoredBy, d.Same = 99, !d.Same
				}
			}
			if diff := cmp.Diff(tt.want, duplicates(h.Requests())); diff != "" {
				t.Errorf("the entries' Duplicate changed with the copies Requests returned (-want +got):\n%s", diff)
			}
		})
	}
}

// duplicates returns each request's Duplicate.
func duplicates(reqs []Request) []*Duplicate {
	var out []*Duplicate
	for _, r := range reqs {
		out = append(out, r.Duplicate)
	}
	return out
}

// plantRequest is a valid POST /plants of p, with the default token.
func plantRequest(t *testing.T, p plantstore.NewPlant) *http.Request {
	t.Helper()
	body, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodPost, "/plants", bytes.NewReader(body))
	r.Header = validHeader(DefaultToken)
	return r
}

// TestJournalUndeliveredReplyIsDropped checks that a reply the server could
// not deliver, here because a Fault held it past the server's write
// timeout, reads "dropped" with no status, not "sent": the client got
// none. A reply in time is still "sent", with a Content-Length.
func TestJournalUndeliveredReplyIsDropped(t *testing.T) {
	t.Parallel()
	for _, p := range []struct {
		name       string
		tls, http2 bool
	}{{"HTTP/1.1", false, false}, {"h2", true, true}, {"h2c", false, true}} {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			if p.http2 && !p.tls && !h2cpkg.Supported {
				t.Skip("h2c needs Go 1.24 or later (http.Protocols)")
			}
			h := NewHandler()
			defer h.Close()
			entered, served := make(chan struct{}, 2), make(chan struct{}, 2)
			ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered <- struct{}{}
				defer func() { served <- struct{}{} }() // a drop panics through here
				h.ServeHTTP(w, r)
			}))
			ts.Config.WriteTimeout = 500 * time.Millisecond // past a TLS handshake under -race and load
			ts.Config.ErrorLog = log.New(io.Discard, "", 0)
			client := &http.Client{Transport: startServer(ts, p.tls, p.http2)}
			defer ts.Close()
			// create sends a create and waits for its handler to end. Under
			// load a TLS handshake can outlast the write timeout, which the
			// server sets before it: a connection that failed so reached no
			// handler, and create sends again, at most 5 times.
			create := func(c *http.Client, id int) (resp *http.Response, err error) {
				for range 5 {
					req, rerr := http.NewRequest(http.MethodPost, ts.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id)))
					if rerr != nil {
						t.Fatal(rerr)
					}
					req.Header = validHeader(DefaultToken)
					if resp, err = c.Do(req); len(entered) > 0 {
						<-entered
						<-served
						return resp, err
					}
				}
				return resp, err
			}

			h.Inject(Fault{Store: true, Delay: time.Second})
			if resp, err := create(client, 1); err == nil {
				resp.Body.Close()
				t.Errorf("create held past the write timeout = %d, want an error: no reply", resp.StatusCode)
			}
			// On a connection of its own: the write timeout may have ended
			// the first one (over h2, the whole connection), which the
			// client may not know yet.
			fresh := &http.Client{Transport: client.Transport.(*http.Transport).Clone()}
			defer fresh.CloseIdleConnections()
			resp, err := create(fresh, 2)
			if err != nil {
				t.Fatalf("create in time: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || (!p.http2 && resp.ContentLength <= 0) {
				t.Errorf("create in time = %d with Content-Length %d, want 200 with a Content-Length", resp.StatusCode, resp.ContentLength)
			}
			var got []outcome
			for _, r := range h.Requests() {
				got = append(got, outcomeOf(r))
			}
			want := []outcome{{OutcomeDropped, 0, "inject#1 1:store-delay after=1s"}, {OutcomeSent, http.StatusOK, ""}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the journal (-want +got):\n%s", diff)
			}
			if n := len(h.Plants()); n != 2 {
				t.Errorf("stored %d plants, want 2: the held one was stored before its reply failed", n)
			}
		})
	}
}
