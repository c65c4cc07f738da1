package plantstoreotel_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	plantstoreotel "github.com/plantstore/plantstore-go/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

const token = "s3cr3t-t0ken-never-in-telemetry"

var monstera = plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}

// scripted serves the statuses in order, then the last one forever; a 200
// carries a Plant.
func scripted(t *testing.T, statuses ...int) *httptest.Server {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := min(int(n.Add(1))-1, len(statuses)-1)
		if statuses[i] == 503 {
			w.Header().Set("Retry-After", "0")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(statuses[i])
		if statuses[i] == 200 {
			w.Write([]byte(`{"id":7,"name":"Monstera","tag":"indoor"}`))
		} else {
			w.Write([]byte(`{"error":1,"message":"no"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

type fixture struct {
	client *plantstore.Client
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

func newFixture(t *testing.T, url string, opts ...plantstore.Option) fixture {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	hooks, err := plantstoreotel.NewHooks(plantstoreotel.WithTracerProvider(tp), plantstoreotel.WithMeterProvider(mp))
	if err != nil {
		t.Fatalf("NewHooks error: %v", err)
	}
	c, err := plantstore.NewClient(url, append([]plantstore.Option{plantstore.WithToken(token), plantstore.WithHooks(hooks),
		plantstore.WithRetryBackoff(0, 0)}, opts...)...)
	if err != nil {
		t.Fatalf("NewClient(%q) error: %v", url, err)
	}
	return fixture{client: c, spans: spans, reader: reader}
}

// attrs turns attributes into a map for comparison.
func attrs(kvs []attribute.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// checkNoToken fails if the token appears anywhere in the spans.
func checkNoToken(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	for _, s := range spans {
		all := append([]attribute.KeyValue(nil), s.Attributes()...)
		for _, e := range s.Events() {
			all = append(all, e.Attributes...)
		}
		for _, kv := range all {
			if strings.Contains(kv.Value.Emit(), token) {
				t.Errorf("span %q attribute %s contains the token", s.Name(), kv.Key)
			}
		}
		if strings.Contains(s.Status().Description, token) {
			t.Errorf("span %q status contains the token", s.Name())
		}
	}
}

func TestSpansForARetriedCall(t *testing.T) {
	t.Parallel()
	srv := scripted(t, 503, 200)
	f := newFixture(t, srv.URL)
	var info plantstore.CallInfo
	if _, err := f.client.CreatePlant(context.Background(), monstera, plantstore.WithCallInfo(&info)); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	spans := f.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans ended, want 3 (two attempts, then the call)", len(spans))
	}
	first, second, call := spans[0], spans[1], spans[2]
	port := srv.Listener.Addr().(interface{ String() string }).String()
	port = port[strings.LastIndexByte(port, ':')+1:]
	portN, _ := strconv.Atoi(port)
	base := map[string]any{
		"http.request.method":              "POST",
		"url.full":                         srv.URL + "/plants",
		"server.address":                   "127.0.0.1",
		"server.port":                      int64(portN),
		"http.request.header.x-request-id": []string{info.RequestID},
	}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		span       sdktrace.ReadOnlySpan
		name       string
		parent     trace.SpanID
		wantAttrs  map[string]any
		wantStatus codes.Code
	}{
		{first, "POST", call.SpanContext().SpanID(),
			with(map[string]any{"http.response.status_code": int64(503), "error.type": "503"}), codes.Error},
		{second, "POST", call.SpanContext().SpanID(),
			with(map[string]any{"http.response.status_code": int64(200), "http.request.resend_count": int64(1)}), codes.Unset},
		{call, "plantstore.CreatePlant", trace.SpanID{},
			with(map[string]any{"plantstore.operation": "CreatePlant", "http.response.status_code": int64(200), "http.request.resend_count": int64(1)}), codes.Unset},
	}
	for _, tt := range tests {
		if tt.span.Name() != tt.name || tt.span.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %q kind %v, want %q kind client", tt.span.Name(), tt.span.SpanKind(), tt.name)
		}
		if got := tt.span.Parent().SpanID(); got != tt.parent {
			t.Errorf("span %q parent = %v, want %v", tt.name, got, tt.parent)
		}
		if diff := cmp.Diff(tt.wantAttrs, attrs(tt.span.Attributes())); diff != "" {
			t.Errorf("span %q attributes mismatch (-want +got):\n%s", tt.name, diff)
		}
		if got := tt.span.Status().Code; got != tt.wantStatus {
			t.Errorf("span %q status = %v, want %v", tt.name, got, tt.wantStatus)
		}
	}
	events := call.Events()
	if len(events) != 1 || events[0].Name != "plantstore.retry" {
		t.Fatalf("call span events = %+v, want one plantstore.retry", events)
	}
	wantEvent := map[string]any{
		"plantstore.retry.attempt":  int64(1),
		"plantstore.retry.wait":     0.0,
		"http.response.status_code": int64(503),
	}
	if diff := cmp.Diff(wantEvent, attrs(events[0].Attributes)); diff != "" {
		t.Errorf("retry event attributes mismatch (-want +got):\n%s", diff)
	}
	checkNoToken(t, spans)
}

func TestSpanForAFailedCall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		url           func(t *testing.T) string
		wantErrorType string
		wantSpans     int
	}{
		{"API error", func(t *testing.T) string { return scripted(t, 400).URL }, "400", 2},
		{"connection refused", func(t *testing.T) string {
			srv := httptest.NewServer(http.NotFoundHandler())
			srv.Close()
			return srv.URL
		}, "_OTHER", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tt.url(t))
			_, err := f.client.CreatePlant(context.Background(), monstera)
			if err == nil {
				t.Fatalf("CreatePlant(%+v) error = nil, want a failure", monstera)
			}
			spans := f.spans.Ended()
			if len(spans) != tt.wantSpans {
				t.Fatalf("%d spans ended, want %d", len(spans), tt.wantSpans)
			}
			call := spans[len(spans)-1]
			if call.Status().Code != codes.Error || call.Status().Description != err.Error() {
				t.Errorf("call span status = %+v, want Error with %q", call.Status(), err)
			}
			if got := attrs(call.Attributes())["error.type"]; got != tt.wantErrorType {
				t.Errorf("call span error.type = %v, want %q", got, tt.wantErrorType)
			}
			checkNoToken(t, spans)
		})
	}
}

func TestNoSpanForAnInvalidPlant(t *testing.T) {
	t.Parallel()
	f := newFixture(t, scripted(t, 200).URL)
	var invalid *plantstore.ValidationError
	if _, err := f.client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1}); !errors.As(err, &invalid) {
		t.Fatalf("CreatePlant(no name) error = %v, want a *ValidationError", err)
	}
	if n := len(f.spans.Started()); n != 0 {
		t.Errorf("%d spans started for a call that sent nothing, want 0", n)
	}
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	srv := scripted(t, 503, 200)
	f := newFixture(t, srv.URL)
	for i := 0; i < 2; i++ {
		if _, err := f.client.CreatePlant(context.Background(), monstera); err != nil {
			t.Fatalf("CreatePlant %d error: %v", i, err)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect error: %v", err)
	}
	got := map[string]string{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != "github.com/plantstore/plantstore-go/otel" {
			t.Errorf("scope = %q, want the module path", sm.Scope.Name)
		}
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					if dp.Sum <= 0 || dp.Sum > float64(time.Minute/time.Second) {
						t.Errorf("%s sum = %v, want a plausible duration", m.Name, dp.Sum)
					}
					got[m.Name] = m.Unit + " count=" + strconv.FormatUint(dp.Count, 10)
				}
			case metricdata.Histogram[int64]:
				for _, dp := range data.DataPoints {
					got[m.Name] = m.Unit + " count=" + strconv.FormatUint(dp.Count, 10) + " sum=" + strconv.FormatInt(dp.Sum, 10)
					if v, _ := dp.Attributes.Value("http.response.status_code"); v.AsInt64() != 200 {
						t.Errorf("%s status attribute = %v, want 200", m.Name, v.Emit())
					}
					// The semantic conventions keep url.full off metrics: a
					// URL with ids in it would make a series per call.
					if v, ok := dp.Attributes.Value("url.full"); ok {
						t.Errorf("%s has attribute url.full = %q, want none (cardinality)", m.Name, v.Emit())
					}
				}
			default:
				t.Errorf("metric %s is a %T, want a histogram", m.Name, m.Data)
			}
		}
	}
	want := map[string]string{
		"plantstore.client.call.duration": "s count=2",
		"plantstore.client.call.attempts": "{attempt} count=2 sum=3", // 2 attempts, then 1: the server answers 200 from then on
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics mismatch (-want +got):\n%s", diff)
	}
}

// TestEchoedTokenStaysOutOfTelemetry has the server echo the token where
// net/http quotes it in an error (a Location it cannot parse), which the
// spans' status and exception event would then carry.
func TestEchoedTokenStaysOutOfTelemetry(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/login/"+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+"%zz")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	f := newFixture(t, srv.URL)
	if _, err := f.client.CreatePlant(context.Background(), monstera); err == nil {
		t.Fatalf("CreatePlant(%+v) error = nil, want the unparsable redirect", monstera)
	}
	spans := f.spans.Ended()
	if len(spans) == 0 {
		t.Fatal("no span ended")
	}
	checkNoToken(t, spans)
}

// TestRetryDenied checks that a retry the budget refused shows on the
// attempt span and in the counter, and nowhere else.
func TestRetryDenied(t *testing.T) {
	t.Parallel()
	srv := scripted(t, 503)
	// 10 retries per 10 s: five calls of three attempts spend them.
	f := newFixture(t, srv.URL, plantstore.WithRetryBudget(0, 1))
	for i := range 6 {
		_, err := f.client.CreatePlant(context.Background(), monstera)
		if got, want := errors.Is(err, plantstore.ErrRetryBudgetExhausted), i == 5; got != want {
			t.Fatalf("call %d: errors.Is(%v, ErrRetryBudgetExhausted) = %v, want %v", i, err, got, want)
		}
	}
	var marked []int // the attempt spans that say so, in the order they ended
	n := 0
	for _, s := range f.spans.Ended() {
		if s.Name() != http.MethodPost {
			continue // a call span
		}
		if v, ok := attrs(s.Attributes())["plantstore.retry.budget_exhausted"]; ok {
			if v != true {
				t.Errorf("attempt span %d: plantstore.retry.budget_exhausted = %v, want true or absent", n, v)
			}
			marked = append(marked, n)
		}
		n++
	}
	if diff := cmp.Diff([]int{15}, marked); diff != "" || n != 16 {
		t.Errorf("of %d attempt spans, these say the budget refused a retry (-want +got):\n%s", n, diff)
	}

	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect error: %v", err)
	}
	var got []string
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "plantstore.client.retry.denied" {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || !sum.IsMonotonic {
				t.Fatalf("%s is a %T, want a counter", m.Name, m.Data)
			}
			for _, dp := range sum.DataPoints {
				got = append(got, m.Unit+" "+dp.Attributes.Encoded(attribute.DefaultEncoder())+" "+strconv.FormatInt(dp.Value, 10))
			}
		}
	}
	u, _ := url.Parse(srv.URL)
	want := []string{"{retry} http.request.method=POST,http.response.status_code=503,plantstore.operation=CreatePlant,server.address=" +
		u.Hostname() + ",server.port=" + u.Port() + " 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plantstore.client.retry.denied (-want +got):\n%s", diff)
	}
}

// idServer answers 503 with X-Request-Id: first, then 200 with none.
func idServer(t *testing.T, first string) *httptest.Server {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("X-Request-Id", first)
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"id":7,"name":"Monstera","tag":"indoor"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAttemptSpansRecordTheSentRequestID checks that each attempt span
// records, as the request header, the id that attempt sent, and the
// server's id, where it differs, as the response header: after a 503 with
// the server's own id, the retry still sent the client's.
func TestAttemptSpansRecordTheSentRequestID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idServer(t, "srv-assigned-1").URL)
	if _, err := f.client.CreatePlant(context.Background(), monstera, plantstore.WithRequestID("client-7")); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	spans := f.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans ended, want 3 (two attempts, then the call)", len(spans))
	}
	ids := func(s sdktrace.ReadOnlySpan) map[string]any {
		m := map[string]any{}
		for k, v := range attrs(s.Attributes()) {
			if strings.HasSuffix(k, ".header.x-request-id") {
				m[k] = v
			}
		}
		return m
	}
	got := map[string]map[string]any{"first": ids(spans[0]), "retry": ids(spans[1]), "call": ids(spans[2])}
	want := map[string]map[string]any{
		"first": {
			"http.request.header.x-request-id":  []string{"client-7"},
			"http.response.header.x-request-id": []string{"srv-assigned-1"},
		},
		"retry": {"http.request.header.x-request-id": []string{"client-7"}},
		"call":  {"http.request.header.x-request-id": []string{"client-7"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request id attributes of the spans (-want +got):\n%s", diff)
	}
}

// TestTokenEchoedAsRequestIDStaysOutOfTelemetry has the server answer with
// the bearer token as its X-Request-Id: no span and no metric may carry it.
func TestTokenEchoedAsRequestIDStaysOutOfTelemetry(t *testing.T) {
	t.Parallel()
	f := newFixture(t, idServer(t, token).URL)
	if _, err := f.client.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	spans := f.spans.Ended()
	if len(spans) != 3 {
		t.Fatalf("%d spans ended, want 3", len(spans))
	}
	checkNoToken(t, spans)
	if got := attrs(spans[0].Attributes())["http.response.header.x-request-id"]; !cmp.Equal(got, []string{"REDACTED"}) {
		t.Errorf("first attempt's http.response.header.x-request-id = %v, want [REDACTED]", got)
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect error: %v", err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			var sets []attribute.Set
			switch data := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					sets = append(sets, dp.Attributes)
				}
			case metricdata.Histogram[int64]:
				for _, dp := range data.DataPoints {
					sets = append(sets, dp.Attributes)
				}
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					sets = append(sets, dp.Attributes)
				}
			}
			for _, set := range sets {
				for _, kv := range set.ToSlice() {
					if strings.Contains(kv.Value.Emit(), token) {
						t.Errorf("metric %s attribute %s holds the token", m.Name, kv.Key)
					}
				}
			}
		}
	}
}

// TestAttemptSpanOfAnUnreadAnswer checks the span of an attempt whose 200
// came back but whose body ran out of the attempt's time: the call fails
// on it, so the attempt's span is an error too, with the status it got.
func TestAttemptSpanOfAnUnreadAnswer(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	f := newFixture(t, srv.URL)
	// The timeout must end the attempt after its 200 arrived: 30 ms, on a
	// loaded machine, sometimes ended it before, and the retry made a third
	// span.
	if _, err := f.client.CreatePlant(context.Background(), monstera, plantstore.WithAttemptTimeout(500*time.Millisecond)); err == nil {
		t.Fatalf("CreatePlant(%+v) error = nil, want the attempt timeout", monstera)
	}
	spans := f.spans.Ended()
	if len(spans) != 2 {
		t.Fatalf("%d spans ended, want 2 (the attempt, then the call)", len(spans))
	}
	attempt := spans[0]
	got := attrs(attempt.Attributes())
	if attempt.Status().Code != codes.Error || got["error.type"] != "timeout" || got["http.response.status_code"] != int64(200) {
		t.Errorf("attempt span: status %+v, error.type %v, http.response.status_code %v; want Error, timeout, 200",
			attempt.Status(), got["error.type"], got["http.response.status_code"])
	}
}
