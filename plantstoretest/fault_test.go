package plantstoretest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// waitTimeout bounds every wait for something that should happen promptly.
// It only turns a hang into a failure; no test passes by waiting.
const waitTimeout = 10 * time.Second

// arrival returns a Fault.Match that accepts every request and a channel
// that is closed when the first request arrives.
func arrival() (match func(Request) bool, arrived <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(Request) bool {
		once.Do(func() { close(ch) })
		return true
	}, ch
}

// waitFor waits for ch to be closed or to deliver a value.
func waitFor[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out after %v waiting for %s", waitTimeout, what)
		panic("unreachable")
	}
}

// createAsync calls CreatePlant in a goroutine and returns a channel that
// delivers its error.
func createAsync(ctx context.Context, c *plantstore.Client, p plantstore.NewPlant) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.CreatePlant(ctx, p)
		errc <- err
	}()
	return errc
}

// recordChan is a slog.Handler that sends each record to a channel, so a
// test can wait for the handler to finish a request.
type recordChan chan slog.Record

func (c recordChan) Enabled(context.Context, slog.Level) bool      { return true }
func (c recordChan) Handle(_ context.Context, r slog.Record) error { c <- r; return nil }
func (c recordChan) WithAttrs([]slog.Attr) slog.Handler            { return c }
func (c recordChan) WithGroup(string) slog.Handler                 { return c }

func attrs(r slog.Record) map[string]string {
	m := make(map[string]string)
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

var fern = plantstore.NewPlant{ID: 1, Name: "Fern"}

func TestFaultStatusAsSeenByClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		fault       Fault
		wantStatus  int
		wantCode    int32
		wantMessage string
		wantRetry   time.Duration
	}{
		{
			name:        "503 with Retry-After",
			fault:       Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"1"}}},
			wantStatus:  http.StatusServiceUnavailable,
			wantCode:    CodeFault,
			wantMessage: "inject#1: 503 Service Unavailable",
			wantRetry:   time.Second,
		},
		{
			name:        "400 with an Error body of the test's choosing",
			fault:       Fault{Status: http.StatusBadRequest, Body: []byte(`{"error":42,"message":"out of stock"}`)},
			wantStatus:  http.StatusBadRequest,
			wantCode:    42,
			wantMessage: "out of stock",
		},
		{
			name: "500 with an HTML body from a proxy",
			fault: Fault{Status: http.StatusInternalServerError, Header: http.Header{"Content-Type": {"text/html"}},
				Body: []byte("<html>oops</html>")},
			wantStatus:  http.StatusInternalServerError,
			wantMessage: "<html>oops</html>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			s.Inject(tt.fault)
			_, err := s.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), fern)
			var apiErr *plantstore.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", fern, err)
			}
			got := plantstore.APIError{StatusCode: apiErr.StatusCode, Code: apiErr.Code, Message: apiErr.Message, RetryAfter: apiErr.RetryAfter}
			want := plantstore.APIError{StatusCode: tt.wantStatus, Code: tt.wantCode, Message: tt.wantMessage, RetryAfter: tt.wantRetry}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(plantstore.APIError{})); diff != "" {
				t.Errorf("CreatePlant(%+v) error mismatch (-want +got):\n%s", fern, diff)
			}
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("Plants() = %+v, want none", got)
			}
		})
	}
}

func TestFaultReplyOnTheWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		fault           Fault
		wantStatus      int
		wantContentType string
		wantHeader      http.Header
		wantBody        string
	}{
		{
			name:            "default body",
			fault:           Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"120"}}},
			wantStatus:      http.StatusServiceUnavailable,
			wantContentType: "application/json",
			wantHeader:      http.Header{"Retry-After": {"120"}},
			wantBody:        `{"error":9,"message":"inject#1: 503 Service Unavailable"}`,
		},
		{
			name:            "malformed JSON body",
			fault:           Fault{Status: http.StatusOK, Body: []byte(`{"name":`)},
			wantStatus:      http.StatusOK,
			wantContentType: "application/json",
			wantBody:        `{"name":`,
		},
		{
			name:            "empty body",
			fault:           Fault{Status: http.StatusBadGateway, Body: []byte{}},
			wantStatus:      http.StatusBadGateway,
			wantContentType: "application/json",
			wantBody:        "",
		},
		{
			name: "own content type",
			fault: Fault{Status: http.StatusTooManyRequests, Body: []byte("slow down"),
				Header: http.Header{"Content-Type": {"text/plain"}, "Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}}},
			wantStatus:      http.StatusTooManyRequests,
			wantContentType: "text/plain",
			wantHeader:      http.Header{"Retry-After": {"Wed, 21 Oct 2015 07:28:00 GMT"}},
			wantBody:        "slow down",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			s.Inject(tt.fault)
			resp := post(t, s, `{"id":1,"name":"Fern"}`)
			if resp.status != tt.wantStatus {
				t.Errorf("POST /plants status = %d, want %d", resp.status, tt.wantStatus)
			}
			if got := resp.header.Get("Content-Type"); got != tt.wantContentType {
				t.Errorf("POST /plants Content-Type = %q, want %q", got, tt.wantContentType)
			}
			for k := range tt.wantHeader {
				if diff := cmp.Diff(tt.wantHeader[k], resp.header.Values(k)); diff != "" {
					t.Errorf("POST /plants header %s mismatch (-want +got):\n%s", k, diff)
				}
			}
			if got := string(resp.body); got != tt.wantBody {
				t.Errorf("POST /plants body = %q, want %q", got, tt.wantBody)
			}
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("Plants() = %+v, want none: a scripted reply without Store stores nothing", got)
			}
		})
	}
}

func TestFaultMalformedSuccessBody(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	s.Inject(Fault{Status: http.StatusOK, Body: []byte(`{"name":`)})
	_, err := s.Client().CreatePlant(context.Background(), fern)
	var apiErr *plantstore.APIError
	if err == nil || errors.As(err, &apiErr) {
		t.Fatalf("CreatePlant(%+v) error = %v, want a decoding error that is not an *APIError", fern, err)
	}
	if !errors.Is(err, plantstore.ErrMaybeCreated) {
		t.Errorf("errors.Is(%v, ErrMaybeCreated) = false, want true", err)
	}
}

func TestFaultHeaderOnUsualReply(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	s.Inject(Fault{Header: http.Header{"X-Request-Id": {"abc"}}, Times: 2})
	resp := post(t, s, `{"id":1,"name":"Fern"}`)
	if resp.status != http.StatusOK || resp.header.Get("X-Request-Id") != "abc" {
		t.Errorf("POST /plants = %d with X-Request-Id %q, want 200 with %q", resp.status, resp.header.Get("X-Request-Id"), "abc")
	}
	resp = post(t, s, `{"id":2}`)
	checkError(t, "POST /plants without name", resp, http.StatusBadRequest, CodeInvalidPlant, "name is required")
	if got := resp.header.Get("X-Request-Id"); got != "abc" {
		t.Errorf("POST /plants without name X-Request-Id = %q, want %q", got, "abc")
	}
	if diff := cmp.Diff([]plantstore.NewPlant{fern}, s.Plants()); diff != "" {
		t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
	}
}

func TestFaultedRequestsAreStillChecked(t *testing.T) {
	t.Parallel()
	for _, store := range []bool{false, true} {
		s := NewServer(t)
		s.Inject(Fault{Status: http.StatusServiceUnavailable, Store: store})
		resp := post(t, s, `{"id":"1","name":"Fern"}`)
		if resp.status != http.StatusServiceUnavailable {
			t.Errorf("POST /plants with a string id and Fault{Store: %v} status = %d, want 503", store, resp.status)
		}
		reqs := s.Requests()
		if len(reqs) != 1 || reqs[0].Invalid == nil || reqs[0].Invalid.Code != CodeInvalidPlant {
			t.Errorf("Fault{Store: %v}: Requests() = %+v, want one with Invalid code %d", store, reqs, CodeInvalidPlant)
		}
		if got := s.Plants(); len(got) != 0 {
			t.Errorf("Fault{Store: %v}: Plants() = %+v, want none", store, got)
		}
	}
}

func TestFaultDelayEndsWhenServerCloses(t *testing.T) {
	t.Parallel()
	for _, store := range []bool{false, true} {
		s := NewServer(t)
		match, arrived := arrival()
		s.Inject(Fault{Match: match, Delay: time.Hour, Store: store})
		errc := createAsync(context.Background(), s.Client(plantstore.WithMaxRetries(0)), fern)
		waitFor(t, "the request to arrive", arrived)
		// Store processes the request on arrival, before the delay.
		if got := len(s.Plants()); got != map[bool]int{false: 0, true: 1}[store] {
			t.Errorf("Fault{Delay: 1h, Store: %v}: during the delay len(Plants()) = %d", store, got)
		}

		closed := make(chan struct{})
		go func() { s.Close(); close(closed) }()
		waitFor(t, "Close to return", closed)
		if err := waitFor(t, "CreatePlant to return", errc); err == nil {
			t.Errorf("CreatePlant(%+v) during a delay cut short by Close error = nil, want a dropped connection", fern)
		}
	}
}

func TestFaultHangEndsWhenClientGivesUp(t *testing.T) {
	t.Parallel()
	records := make(recordChan, 10)
	s := NewServer(t, WithLogger(slog.New(records)))
	match, arrived := arrival()
	s.Inject(Fault{Match: match, Hang: true})

	ctx, cancel := context.WithCancel(context.Background())
	errc := createAsync(ctx, s.Client(), fern)
	waitFor(t, "the request to arrive", arrived)
	cancel()
	if err := waitFor(t, "CreatePlant to return", errc); !errors.Is(err, context.Canceled) {
		t.Errorf("CreatePlant(%+v) with a canceled context error = %v, want context.Canceled", fern, err)
	}
	// The handler returns while the server is still open.
	rec := waitFor(t, "the handler to finish", (<-chan slog.Record)(records))
	want := map[string]string{"method": "POST", "path": "/plants", "status": "0", "fault": "inject#1 1:hang"}
	got := attrs(rec)
	delete(got, "duration")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log record of the hung request mismatch (-want +got):\n%s", diff)
	}
}

func TestFaultHangEndsWhenServerCloses(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	match, arrived := arrival()
	s.Inject(Fault{Match: match, Hang: true, Store: true})
	errc := createAsync(context.Background(), s.Client(), fern)
	waitFor(t, "the request to arrive", arrived)

	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	waitFor(t, "Close to return", closed)
	err := waitFor(t, "CreatePlant to return", errc)
	if err == nil {
		t.Fatalf("CreatePlant(%+v) to a hanging server that closed error = nil, want an error", fern)
	}
	if !errors.Is(err, plantstore.ErrMaybeCreated) {
		t.Errorf("errors.Is(%v, ErrMaybeCreated) = false, want true", err)
	}
	if diff := cmp.Diff([]plantstore.NewPlant{fern}, s.Plants()); diff != "" {
		t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
	}
}

func TestFaultHangDoesNotBlockCleanup(t *testing.T) {
	t.Parallel()
	errc := make(chan error, 1)
	subtestDone := make(chan bool, 1)
	go func() {
		// Run in a goroutine of its own, so that a blocked cleanup fails
		// this test instead of hanging it.
		subtestDone <- t.Run("hang left behind", func(t *testing.T) {
			s := NewServer(t)
			match, arrived := arrival()
			s.Inject(Fault{Match: match, Hang: true})
			go func() {
				_, err := s.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), fern)
				errc <- err
			}()
			waitFor(t, "the request to arrive", arrived)
			// Return with the request still hanging; the cleanup must end it.
		})
	}()
	if ok := waitFor(t, "the subtest and its cleanup to finish", subtestDone); !ok {
		t.Errorf("subtest failed")
	}
	if err := waitFor(t, "CreatePlant to return", errc); err == nil {
		t.Errorf("CreatePlant(%+v) to a hanging server that was cleaned up error = nil, want an error", fern)
	}
}

func TestFaultDrop(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		opts       []Option
		fault      Fault
		retries    int
		wantErr    bool
		wantCode   int32 // of an *APIError; 0 for another error
		wantPlants []plantstore.NewPlant
		wantReqs   int
	}{
		{
			name:     "drop without retry",
			fault:    Fault{Drop: true},
			wantErr:  true,
			wantReqs: 1,
		},
		{
			name:       "drop, then the retry succeeds",
			fault:      Fault{Drop: true},
			retries:    2,
			wantPlants: []plantstore.NewPlant{fern},
			wantReqs:   2,
		},
		{
			name:       "stored then dropped, without retry",
			fault:      Fault{Store: true, Drop: true},
			wantErr:    true,
			wantPlants: []plantstore.NewPlant{fern},
			wantReqs:   1,
		},
		{
			name:       "stored then dropped, the retry is a duplicate",
			fault:      Fault{Store: true, Drop: true},
			retries:    2,
			wantErr:    true,
			wantCode:   CodeDuplicateID,
			wantPlants: []plantstore.NewPlant{fern},
			wantReqs:   2,
		},
		{
			name:       "stored then dropped, the retry stores a second copy",
			opts:       []Option{WithAllowDuplicateIDs()},
			fault:      Fault{Store: true, Drop: true},
			retries:    2,
			wantPlants: []plantstore.NewPlant{fern, fern},
			wantReqs:   2,
		},
		{
			name:       "stored then 503",
			fault:      Fault{Store: true, Status: http.StatusServiceUnavailable},
			wantErr:    true,
			wantCode:   CodeFault,
			wantPlants: []plantstore.NewPlant{fern},
			wantReqs:   1,
		},
		{
			name:       "drop after a delay",
			fault:      Fault{Drop: true, Delay: time.Millisecond},
			retries:    1,
			wantPlants: []plantstore.NewPlant{fern},
			wantReqs:   2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t, tt.opts...)
			s.Inject(tt.fault)
			_, err := s.Client(plantstore.WithMaxRetries(tt.retries)).CreatePlant(context.Background(), fern)
			if (err != nil) != tt.wantErr {
				t.Fatalf("CreatePlant(%+v) error = %v, want error: %v", fern, err, tt.wantErr)
			}
			if err != nil {
				var apiErr *plantstore.APIError
				var gotCode int32
				if errors.As(err, &apiErr) {
					gotCode = apiErr.Code
				}
				if gotCode != tt.wantCode {
					t.Errorf("CreatePlant(%+v) error = %v, want an *APIError with code %d (0: not an *APIError)", fern, err, tt.wantCode)
				}
				if !errors.Is(err, plantstore.ErrMaybeCreated) {
					t.Errorf("errors.Is(%v, ErrMaybeCreated) = false, want true", err)
				}
			}
			if diff := cmp.Diff(tt.wantPlants, s.Plants(), cmpEmpty); diff != "" {
				t.Errorf("Plants() mismatch (-want +got):\n%s", diff)
			}
			reqs := s.Requests()
			if len(reqs) != tt.wantReqs {
				t.Fatalf("len(Requests()) = %d, want %d", len(reqs), tt.wantReqs)
			}
			for i, r := range reqs {
				if r.Invalid != nil || r.Plant != fern {
					t.Errorf("Requests()[%d] = Plant %+v, Invalid %+v, want Plant %+v, Invalid nil", i, r.Plant, r.Invalid, fern)
				}
			}
		})
	}
}

// cmpEmpty makes cmp treat nil and empty slices alike.
var cmpEmpty = cmp.Comparer(func(a, b []plantstore.NewPlant) bool {
	return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b)
})

func TestFaultMatch(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	s.Inject(Fault{
		Match:  func(r Request) bool { return r.Plant.ID == 2 },
		Status: http.StatusInternalServerError,
	})
	c := s.Client(plantstore.WithMaxRetries(0))
	var got []int
	for id := int64(1); id <= 3; id++ {
		in := plantstore.NewPlant{ID: id, Name: "Fern"}
		_, err := c.CreatePlant(context.Background(), in)
		var apiErr *plantstore.APIError
		switch {
		case err == nil:
			got = append(got, http.StatusOK)
		case errors.As(err, &apiErr):
			got = append(got, apiErr.StatusCode)
		default:
			t.Fatalf("CreatePlant(%+v) error = %v, want nil or an *APIError", in, err)
		}
	}
	if diff := cmp.Diff([]int{200, 500, 200}, got); diff != "" {
		t.Errorf("statuses of creates 1, 2, 3 mismatch (-want +got):\n%s", diff)
	}
	if got := repliesLeft(s.Faults()); got != 0 {
		t.Errorf("replies left = %d, want 0", got)
	}
}

func TestFaultTimes(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Times: 3})
	c := s.Client(plantstore.WithMaxRetries(0))
	for i, wantPending := range []int{2, 1, 0} {
		in := plantstore.NewPlant{ID: int64(i), Name: "Fern"}
		var apiErr *plantstore.APIError
		if _, err := c.CreatePlant(context.Background(), in); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("CreatePlant(%+v) error = %v, want a 503", in, err)
		}
		if got := repliesLeft(s.Faults()); got != wantPending {
			t.Errorf("after create %d, replies left = %d, want %d", i, got, wantPending)
		}
	}
	in := plantstore.NewPlant{ID: 3, Name: "Fern"}
	if _, err := c.CreatePlant(context.Background(), in); err != nil {
		t.Errorf("CreatePlant(%+v) after the fault was used up error = %v, want nil", in, err)
	}
}

func TestFaultOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		faults []Fault
		ids    []int64
		want   []int
	}{
		{
			name:   "first in, first out",
			faults: []Fault{{Status: 500}, {Status: 502, Times: 2}, {Status: 504}},
			ids:    []int64{1, 2, 3, 4, 5},
			want:   []int{500, 502, 502, 504, 200},
		},
		{
			name:   "first match wins",
			faults: []Fault{{Status: 500, Match: func(r Request) bool { return r.Plant.ID == 2 }}, {Status: 502}},
			ids:    []int64{1, 2, 3},
			want:   []int{502, 500, 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := NewServer(t)
			for _, f := range tt.faults {
				s.Inject(f)
			}
			var got []int
			for _, id := range tt.ids {
				resp := post(t, s, `{"id":`+strconv.FormatInt(id, 10)+`,"name":"Fern"}`)
				got = append(got, resp.status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses of creates %v mismatch (-want +got):\n%s", tt.ids, diff)
			}
		})
	}
}

func TestInjectRejectsImpossibleFaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fault   Fault
		wantMsg string
	}{
		{"negative Times", Fault{Times: -1}, "Times is -1"},
		{"negative Delay", Fault{Delay: -time.Second}, "Delay is -1s"},
		{"status too low", Fault{Status: 99}, "Status is 99"},
		{"informational status", Fault{Status: 101}, "Status is 101"},
		{"status too high", Fault{Status: 600}, "Status is 600"},
		{"hang and drop", Fault{Hang: true, Drop: true}, "Hang and Drop"},
		{"drop with status", Fault{Drop: true, Status: 503}, "Status must be 0"},
		{"hang with body", Fault{Hang: true, Body: []byte("x")}, "Header and Body must be nil"},
		{"drop with header", Fault{Drop: true, Header: http.Header{"Retry-After": {"1"}}}, "Header and Body must be nil"},
		{"hang with delay", Fault{Hang: true, Delay: time.Second}, "Delay must be 0"},
		{"goaway with hang", Fault{GoAway: true, Hang: true}, "GoAway goes with a reply"},
		{"goaway with drop", Fault{GoAway: true, Drop: true, Store: true}, "GoAway goes with a reply"},
		{"body without status", Fault{Body: []byte("{}")}, "Body needs a Status"},
		{"store alone", Fault{Store: true}, "Store alone changes nothing"},
		{"store with only match and times", Fault{Store: true, Times: 2, Match: func(Request) bool { return true }}, "Store alone changes nothing"},
		{"store with empty header", Fault{Store: true, Header: http.Header{}}, "Store alone changes nothing"},
		{"store with a header of no values", Fault{Store: true, Header: http.Header{"X-A": {}, "X-B": nil}}, "Store alone changes nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tb := &fakeTB{}
			s := NewServer(tb)
			defer tb.cleanup()
			if runFatal(func() { s.Inject(tt.fault) }) {
				t.Errorf("Server.Inject(%+v) returned, want tb.Fatalf", tt.fault)
			}
			if len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], tt.wantMsg) {
				t.Errorf("Server.Inject(%+v) Fatalf calls = %q, want one containing %q", tt.fault, tb.fatals, tt.wantMsg)
			}
			if got := repliesLeft(s.Faults()); got != 0 {
				t.Errorf("replies left after a rejected Inject = %d, want 0", got)
			}

			h := NewHandler()
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(r.(string), tt.wantMsg) {
						t.Errorf("Handler.Inject(%+v) panic = %v, want one containing %q", tt.fault, r, tt.wantMsg)
					}
				}()
				h.Inject(tt.fault)
			}()

			// AddFault refuses it with the very message Inject reports.
			id, err := h.AddFault(tt.fault)
			if err == nil || len(tb.fatals) != 1 || err.Error() != tb.fatals[0] {
				t.Errorf("Handler.AddFault(%+v) = %d, %v; want the error Inject reports, %q", tt.fault, id, err, tb.fatals)
			}
			if got := h.Faults(); len(got) != 0 {
				t.Errorf("Faults() after a refused AddFault = %+v, want none", got)
			}
		})
	}
}

func TestInjectCopiesHeaderAndBody(t *testing.T) {
	t.Parallel()
	s := NewServer(t)
	header := http.Header{"Retry-After": {"1"}}
	body := []byte(`{"error":1,"message":"a"}`)
	s.Inject(Fault{Status: http.StatusServiceUnavailable, Header: header, Body: body})
	header.Set("Retry-After", "2")
	body[len(body)-3] = 'b'
	resp := post(t, s, `{"id":1,"name":"Fern"}`)
	if got := resp.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want %q", got, "1")
	}
	if got := string(resp.body); got != `{"error":1,"message":"a"}` {
		t.Errorf("body = %s, want the body as injected", got)
	}
}

func TestFaultStatusWithoutBody(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNoContent, http.StatusNotModified} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			h := NewHandler()
			h.Inject(Fault{Status: status, Body: []byte(`{"ignored":true}`)})
			r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != status || w.Body.Len() != 0 {
				t.Errorf("Fault{Status: %d} answered %d with %q, want %d and no body", status, w.Code, w.Body.String(), status)
			}
		})
	}
}

func TestAddFaultFaultsAndClearFaults(t *testing.T) {
	t.Parallel()
	tb := &fakeTB{}
	s := NewServer(tb)
	header := http.Header{"Retry-After": {"1"}}
	body := []byte(`{"error":1,"message":"a"}`)
	id1, err := s.AddFault(Fault{Status: http.StatusServiceUnavailable, Header: header, Body: body, Times: 2})
	if err != nil || id1 != 1 {
		t.Fatalf("AddFault(503) = %d, %v; want 1, nil", id1, err)
	}
	id2, err := s.AddFault(Fault{Drop: true, Note: "the caller's"})
	if err != nil || id2 != 2 {
		t.Fatalf("AddFault(Drop) = %d, %v; want 2, nil", id2, err)
	}
	header.Set("Retry-After", "2") // AddFault copied them
	body[0] = 'x'

	resp := post(t, s, `{"id":1,"name":"Fern"}`)
	if resp.status != http.StatusServiceUnavailable {
		t.Fatalf("POST with fault #1 waiting: status %d, want 503", resp.status)
	}
	got := s.Faults()
	want := []InjectedFault{
		{ID: 1, Fault: Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"1"}},
			Body: []byte(`{"error":1,"message":"a"}`), Times: 2}, Times: 2, Left: 1},
		{ID: 2, Fault: Fault{Drop: true, Times: 1, Note: "the caller's"}, Times: 1, Left: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Faults() mismatch (-want +got):\n%s", diff)
	}
	got[0].Fault.Header.Set("Retry-After", "9") // a copy
	got[0].Fault.Body[0] = 'x'
	if f := s.Faults()[0].Fault; f.Header.Get("Retry-After") != "1" || f.Body[0] != '{' {
		t.Errorf("Faults() returned the Handler's own Header or Body: modifying them changed the fault to %+v", f)
	}
	if r := s.Requests()[0]; r.Fault != "inject#1 1:503" {
		t.Errorf("Requests()[0].Fault = %q, want %q", r.Fault, "inject#1 1:503")
	}

	s.ClearFaults()
	if got := s.Faults(); len(got) != 0 {
		t.Errorf("Faults() after ClearFaults = %+v, want none", got)
	}
	if resp := post(t, s, `{"id":2,"name":"Ivy"}`); resp.status != http.StatusOK {
		t.Errorf("POST after ClearFaults: status %d, want 200", resp.status)
	}
	id3, err := s.AddFault(Fault{Status: http.StatusBadGateway})
	if err != nil || id3 != 3 {
		t.Errorf("AddFault after ClearFaults = %d, %v; want 3 (IDs go on counting), nil", id3, err)
	}
	s.ClearFaults()
	tb.cleanup()
	if !tb.silent() {
		t.Errorf("cleanup after ClearFaults reported %v, want nothing", tb)
	}
}
