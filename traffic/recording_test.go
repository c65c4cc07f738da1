package traffic

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/internal/latency"
)

// okDoc is a small valid document; the cases of TestReadRefuses change it.
const okDoc = `{"source": "s", "duplicate_id": {"status": 409, "body": "x"}, "traffic": {"attempts": 3,
 "outcomes": [{"kind": "2xx", "status": 201, "count": 2, "latency": [{"from_us": 1024, "to_us": 1116.68, "count": 2}]},
  {"kind": "5xx", "status": 503, "count": 1, "latency": [{"from_us": 1024, "to_us": 1116.7, "count": 1}], "retry_after": [{"seconds": null, "count": 1}]}],
 "failure_runs": {"runs": 1, "failures": 1, "lengths": [{"length": 1, "count": 1}]}}}`

func TestRead(t *testing.T) {
	t.Parallel()
	rec, err := Read(strings.NewReader(okDoc))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Attempts != 3 || len(rec.Outcomes) != 2 || rec.Outcomes[1].Latency[0].ToUS != 1116.7 {
		t.Errorf("Read = %+v", rec)
	}
}

// TestCheckOrdersCodes checks that outcomes are ordered by code across the
// whole int32 range, on every platform (GOARCH=386 included).
func TestCheckOrdersCodes(t *testing.T) {
	t.Parallel()
	outcome := func(code int32) Outcome {
		return Outcome{Kind: Kind4xx, Status: 400, Code: &code, Count: 1, Latency: []Bucket{{FromUS: 1, ToUS: 1.090508, Count: 1}}}
	}
	lo, hi := outcome(math.MinInt32), outcome(math.MaxInt32)
	for _, tc := range []struct {
		name     string
		outcomes []Outcome
		wantErr  bool
	}{
		{"in order", []Outcome{lo, hi}, false},
		{"out of order", []Outcome{hi, lo}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := Recording{Attempts: 2, Outcomes: tc.outcomes,
				FailureRuns: Runs{Runs: 1, Failures: 2, Lengths: []RunLength{{Length: 2, Count: 1}}}}
			if err := rec.Check(); (err != nil) != tc.wantErr {
				t.Errorf("Check: %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"no traffic", `"traffic"`, `"other"`, "has no traffic"},
		{"null traffic", `"traffic": {`, `"traffic": null, "x": {`, "has no traffic"},
		{"repeated field", `"attempts": 3,`, `"attempts": 3, "attempts": 3,`, "appears more than once"},
		{"unpaired surrogate", `"traffic"`, `"x": "\ud800", "traffic"`, "unpaired surrogate escape"},
		{"unknown field", `"attempts": 3,`, `"attempts": 3, "extra": 1,`, `unknown field`},
		{"attempts not a sum", `"attempts": 3`, `"attempts": 4`, "count 3 attempts, attempts says 4"},
		{"negative count", `"count": 2, "latency"`, `"count": -2, "latency"`, "count -2 is not in"},
		{"huge count", `"attempts": 3`, `"attempts": 1e300`, `traffic: traffic: field "attempts": want an integer, got JSON number 1e300`},
		{"unknown kind", `"kind": "5xx"`, `"kind": "6xx"`, `unknown kind "6xx"`},
		{"status of another kind", `"status": 503`, `"status": 429`, "status 429 is not one of kind 5xx"},
		{"code on a 5xx", `"status": 503,`, `"status": 503, "code": 1,`, "a code on an outcome without one"},
		{"out of order", `"kind": "2xx"`, `"kind": "attempt_timeout"`, "status 201 is not one of kind attempt_timeout"},
		{"bucket off the scheme", `"from_us": 1024, "to_us": 1116.68`, `"from_us": 1000, "to_us": 1116.68`, "not one of the scheme"},
		{"bucket count not a sum", `"to_us": 1116.68, "count": 2`, `"to_us": 1116.68, "count": 1`, "latency buckets count 1 attempts, count says 2"},
		{"retry_after out of range", `"seconds": null`, `"seconds": 86401`, "retry_after 86401 s is not in"},
		{"retry_after on a 2xx", `"count": 2, "latency"`, `"count": 2, "retry_after": [], "latency"`, "retry_after on an outcome without one"},
		{"runs exceed failures", `"lengths": [{"length": 1, "count": 1}]`, `"lengths": [{"length": 2, "count": 1}]`, "at least 2 failures"},
		{"runs not a sum", `"runs": 1,`, `"runs": 2,`, "count 1 runs, failure_runs.runs says 2"},
		{"repeated run length", `"lengths": [{"length": 1, "count": 1}]`, `"lengths": [{"length": 1, "count": 1}, {"length": 1, "count": 1}]`, "run length 1 is out of order or repeated"},
		{"repeated bucket", `"latency": [{"from_us": 1024, "to_us": 1116.7, "count": 1}]`, `"latency": [{"from_us": 1024, "to_us": 1116.7, "count": 1}, {"from_us": 1024, "to_us": 1116.7, "count": 1}]`, "out of order or repeated"},
		{"run length too long", `"length": 1,`, `"length": 1001,`, "not in [1, 1000]"},
		{"not an object", okDoc, `[1]`, "traffic: document: want an object, got JSON array"},
		{"null", okDoc, ` null`, "traffic: document: want an object, got JSON null"},
		{"traffic not an object", `"traffic": {`, `"traffic": [], "x": {`, "traffic: traffic: want an object, got JSON array"},
		{"not UTF-8", `"source": "s"`, "\"source\": \"\xff\"", "traffic: document: not valid UTF-8 (at byte 12)"},
		{"not JSON", okDoc, `{`, "document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(okDoc, tc.old, tc.new, 1)
			if doc == okDoc {
				t.Fatalf("%q is not in the document", tc.old)
			}
			_, err := Read(strings.NewReader(doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "traffic: ") {
				t.Errorf("Read: %v; want an error starting traffic: and holding %q", err, tc.want)
			}
		})
	}
	big := `{"traffic": ` + strings.Repeat(" ", MaxDocumentSize) + `}`
	if _, err := Read(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "more than the 2097152 bytes") {
		t.Errorf("Read of %d bytes: %v, want a size error", len(big), err)
	}
}

// TestReadHostileSize checks that Read refuses a document of too many JSON
// values before it decodes it: 2 MiB of empty outcomes would decode into
// hundreds of MiB. Not parallel, so that TotalAlloc counts this test's
// allocations alone.
func TestReadHostileSize(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"traffic": {"outcomes": [{}`)
	for b.Len() < MaxDocumentSize-10 {
		b.WriteString(`,{}`)
	}
	b.WriteString(`]}}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(strings.NewReader(b.String()))
	runtime.ReadMemStats(&after)
	if want := "more than 65536 JSON values"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read of %d bytes of {}: %v, want an error holding %q", b.Len(), err, want)
	}
	// io.ReadAll's buffer grows by doubling (2.3× the document), and -race
	// doubles that.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(8*MaxDocumentSize); got > limit {
		t.Errorf("Read of %d bytes allocated %d MiB refusing it, want at most %d MiB", b.Len(), got>>20, limit>>20)
	}
}

// TestLargestRecordingFits checks that the largest Recording a Recorder
// holds, every outcome with every bucket and every Retry-After, every run
// length, with counts as long as its 2^32-1 attempts leave them, is written
// within MaxDocumentSize and reads back, Check and all. (The largest one
// Check accepts, with longer counts, loads as a profile too: plantstoretest's
// TestProfileLargestLoads.)
func TestLargestRecordingFits(t *testing.T) {
	t.Parallel()
	r := NewRecorder()
	const per = (1<<32 - 1) / maxOutcomes // each outcome's count
	for i := range r.slots {
		s := &r.slots[i]
		s.kind, s.status = k5xx, uint16(500+i)
		if i == len(r.slots)-1 {
			s.status = 0
		}
		for b := range s.latency {
			s.latency[b] = per / latency.Buckets
		}
		s.latency[0] += per % latency.Buckets
		for j := range s.ra {
			s.ra[j] = raCount{seconds: int32(maxRetryAfterSeconds - j), count: per / maxRetryAfters}
		}
		s.ra[0].count += per % maxRetryAfters
		s.count = per
		s.nra = maxRetryAfters
	}
	r.nslots = maxOutcomes
	r.attempts = per * maxOutcomes
	for i := range r.runs.byLength {
		r.runs.byLength[i] = r.attempts / (maxRunLength * (maxRunLength + 1) / 2)
	}
	r.origin.Store(new(string))
	var doc bytes.Buffer
	if _, err := r.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	t.Logf("the largest document: %d bytes (every bucket of 32 outcomes)", doc.Len())
	if doc.Len() > MaxDocumentSize {
		t.Errorf("the largest document takes %d bytes, more than MaxDocumentSize", doc.Len())
	}
	rec, err := Read(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Attempts != per*maxOutcomes || len(rec.Outcomes) != maxOutcomes {
		t.Errorf("read back %d attempts in %d outcomes, want %d in %d", rec.Attempts, len(rec.Outcomes), int64(per*maxOutcomes), maxOutcomes)
	}
}

// TestOutcomeName checks how Compare's subjects and Check's messages name
// an outcome.
func TestOutcomeName(t *testing.T) {
	t.Parallel()
	code := int32(3)
	for _, tc := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Kind: Kind5xx, Status: 503}, "5xx 503"},
		{Outcome{Kind: Kind4xx, Status: 400, Code: &code}, "4xx 400 code 3"},
		{Outcome{Kind: Kind429, Status: 429}, "429"},
		{Outcome{Kind: KindAttemptTimeout}, "attempt_timeout"},
		{Outcome{Kind: KindOK}, "2xx other"},
		{Outcome{Kind: Kind4xx}, "4xx other"},
		{Outcome{Kind: Kind5xx}, "5xx other"},
	} {
		if got := tc.o.name(); got != tc.want {
			t.Errorf("name of %+v = %q, want %q", tc.o, got, tc.want)
		}
	}
}

// TestCheckRunsLeaveOut4xx checks that a recording whose only failures are
// 4xx, which are in no run, is consistent, and that one with another
// failure in no run is not.
func TestCheckRunsLeaveOut4xx(t *testing.T) {
	t.Parallel()
	bucket := []Bucket{{FromUS: 1024, ToUS: 1116.68, Count: 1}}
	for _, tc := range []struct {
		name    string
		failure Outcome
		wantErr string
	}{
		{"only a 4xx", Outcome{Kind: Kind4xx, Status: 400, Count: 1, Latency: bucket}, ""},
		{"a 5xx in no run", Outcome{Kind: Kind5xx, Status: 500, Count: 1, Latency: bucket, RetryAfter: []RetryAfter{{Count: 1}}}, "1 failures but 4xx in no run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &Recording{Attempts: 2, Outcomes: []Outcome{{Kind: KindOK, Status: 200, Count: 1, Latency: bucket}, tc.failure},
				FailureRuns: Runs{Failures: 1, Lengths: []RunLength{}}}
			err := rec.Check()
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Check() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestDocStatesTheBounds checks that the docs state the bounds and
// thresholds the code keeps, which are unexported: the docs are where a
// caller, in any language, reads them.
func TestDocStatesTheBounds(t *testing.T) {
	t.Parallel()
	for file, says := range map[string][]string{
		"recording.go": {
			fmt.Sprintf("at most %d outcomes", maxOutcomes),
			fmt.Sprintf("at most %d distinct Retry-After values", maxRetryAfters),
			fmt.Sprintf("at most %d,%03d s", maxRetryAfterSeconds/1000, maxRetryAfterSeconds%1000),
			fmt.Sprintf("run lengths\n// up to %d,%03d", maxRunLength/1000, maxRunLength%1000),
			fmt.Sprintf("2^%d", bits.Len64(maxCount)-1),
		},
		"drift.go": {
			fmt.Sprintf("below %g divided", driftAlpha),
			fmt.Sprintf("moved by %g", minRateChange),
			fmt.Sprintf("distance of %g\n// for latency", minLatencyShift),
			fmt.Sprintf("max(%d ms, %g %% of t)", minLatencyMoveUS/1000, 100*minLatencyMoveShare),
			fmt.Sprintf("%g for Retry-After", minRetryAfterShift),
			fmt.Sprintf("ratio of %g", minRunLengthRatio),
			fmt.Sprintf("when both have %d attempts", minSamples),
			fmt.Sprintf("when both have %d runs", minSamples),
		},
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range says {
			if !strings.Contains(string(data), s) {
				t.Errorf("%s does not say %q", file, s)
			}
		}
	}
}
