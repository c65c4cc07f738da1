package plantstoretest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/latency"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/traffic"
)

// mix is a deployment's fault mix, the known one the tests script and then
// look for in what the fake replays.
type mix struct {
	p503, p429, pBroken float64       // fractions of attempts
	p4xx                float64       // fraction of calls that send a plant the service refuses
	brokenUnstored      float64       // share of the breaks that store nothing; 0: every break stores
	meanRun             float64       // mean length of a run of failures
	median              time.Duration // of the lognormal latency of every outcome
	p99OverP50          float64
}

// knownMix is issue 29's example: 1 % 503, 0.5 % 429 with Retry-After 1 to
// 5 s, 0.2 % broken after sending, lognormal latency with p99 = 20 × p50,
// failures in runs of mean length 4.
var knownMix = mix{p503: 0.01, p429: 0.005, pBroken: 0.002, meanRun: 4, median: 20 * time.Millisecond, p99OverP50: 20}

// mix4xx is knownMix with 1.9 % of calls refused with 400: 4xx are about
// half the failures, as in issue 33's recording.
var mix4xx = mix{p503: 0.01, p429: 0.005, pBroken: 0.002, p4xx: 0.019, meanRun: 4, median: 20 * time.Millisecond, p99OverP50: 20}

// mixBreaks has 2 % of attempts break after sending, half of them after
// storing the plant, as issue 33's recording.
var mixBreaks = mix{p503: 0.01, p429: 0.005, pBroken: 0.02, brokenUnstored: 0.5, meanRun: 4, median: 20 * time.Millisecond, p99OverP50: 20}

// refused reports whether call i sends a plant the service refuses: a
// fixed draw by i, the same in every run.
func (m mix) refused(i int) bool {
	return m.p4xx > 0 && uniform(mix64(uint64(i)+0x4_0_0)) < m.p4xx
}

// faults returns n Faults that script m, one per attempt in the order they
// arrive, from a generator seeded with seed, and the delay of each.
func (m mix) faults(n int, seed uint64) []Fault {
	rng := rand.New(rand.NewPCG(seed, 1))
	fail := m.p503 + m.p429 + m.pBroken
	p11 := 1 - 1/m.meanRun
	p01 := fail * (1 - p11) / (1 - fail)
	sigma := math.Log(m.p99OverP50) / 2.3263478740408408 // the 99th percentile of N(0, 1)
	out := make([]Fault, n)
	failing := false
	for i := range out {
		if failing {
			failing = rng.Float64() < p11
		} else {
			failing = rng.Float64() < p01
		}
		f := Fault{Delay: time.Duration(float64(m.median) * math.Exp(sigma*rng.NormFloat64()))}
		if failing {
			switch x := rng.Float64() * fail; {
			case x < m.p503:
				f.Status = http.StatusServiceUnavailable
			case x < m.p503+m.p429:
				f.Status = http.StatusTooManyRequests
				f.Header = http.Header{"Retry-After": {fmt.Sprint(1 + rng.IntN(5))}}
			default:
				// Drawn only for a share above 0, so that a mix without
				// one scripts what it always did.
				f.Store, f.Drop = m.brokenUnstored == 0 || rng.Float64() >= m.brokenUnstored, true
			}
		}
		out[i] = f
	}
	return out
}

// testRecording is a recording of a million attempts of knownMix's kind,
// built directly, with a catch-all 5xx and every failure kind but 4xx
// (which TestReplayEdges checks).
func testRecording(t *testing.T) *traffic.Recording {
	t.Helper()
	hist := func(d ...time.Duration) []traffic.Bucket {
		var out []traffic.Bucket
		for _, d := range d {
			from, to := latency.Bounds(latency.Of(d))
			out = append(out, traffic.Bucket{FromUS: from, ToUS: to, Count: 1000})
		}
		return out
	}
	secs := func(s int64) *int64 { return &s }
	const ok = 1_000_000 - 19_000
	rec := &traffic.Recording{
		Attempts: 1_000_000,
		Outcomes: []traffic.Outcome{
			{Kind: traffic.KindOK, Status: 200, Count: ok, Latency: []traffic.Bucket{{FromUS: 1024, ToUS: 1116.68, Count: ok / 2}, {FromUS: 16384, ToUS: 17866.94, Count: ok / 2}}},
			{Kind: traffic.Kind429, Status: 429, Count: 4000, Latency: hist(time.Millisecond, 2*time.Millisecond, 3*time.Millisecond, 4*time.Millisecond),
				RetryAfter: []traffic.RetryAfter{{Seconds: nil, Count: 1000}, {Seconds: secs(3), Count: 3000}}},
			{Kind: traffic.Kind5xx, Count: 1000, Latency: hist(time.Millisecond), RetryAfter: []traffic.RetryAfter{{Count: 1000}}},
			{Kind: traffic.Kind5xx, Status: 503, Count: 10000, Latency: hist(10*time.Millisecond, 20*time.Millisecond, 30*time.Millisecond, 40*time.Millisecond,
				50*time.Millisecond, 60*time.Millisecond, 70*time.Millisecond, 80*time.Millisecond, 90*time.Millisecond, 100*time.Millisecond),
				RetryAfter: []traffic.RetryAfter{{Seconds: secs(1), Count: 10000}}},
			{Kind: traffic.KindBrokenBeforeSend, Count: 1000, Latency: hist(100 * time.Microsecond)},
			{Kind: traffic.KindBrokenAfterSend, Count: 2000, Latency: hist(time.Second, 2*time.Second)},
			{Kind: traffic.KindAttemptTimeout, Count: 1000, Latency: hist(5 * time.Second)},
		},
		FailureRuns: traffic.Runs{Runs: 4750, Failures: 19000, Lengths: []traffic.RunLength{{Length: 4, Count: 4750}}},
	}
	if err := rec.Check(); err != nil {
		t.Fatalf("the test's recording: %v", err)
	}
	return rec
}

// decision is one replay decision, in a form cmp can compare.
type decision struct {
	Desc   string
	Delay  time.Duration
	Status int
	Retry  string
	Store  bool
	Drop   bool
}

func replayDecisions(rec *traffic.Recording, seed int64, n int) []decision {
	return drawReplay(newReplay(rec, seed), n)
}

// drawReplay returns r's next n decisions.
func drawReplay(r *replay, n int) []decision {
	out := make([]decision, n)
	for i := range out {
		f, by := r.place(nil, Request{})
		if f == nil {
			f = &Fault{}
		}
		if by != "" {
			by += " " + f.String()
		}
		out[i] = decision{by, f.Delay, f.Status, f.Header.Get("Retry-After"), f.Store, f.Drop}
	}
	return out
}

// TestReplaySameSeedSameSequence checks that a replay's decisions depend
// on its seed only: the same seed gives the same sequence, another seed
// another.
func TestReplaySameSeedSameSequence(t *testing.T) {
	t.Parallel()
	rec := testRecording(t)
	const n = 5_000
	first := replayDecisions(rec, 7, n)
	if second := replayDecisions(rec, 7, n); !slices.Equal(first, second) {
		t.Errorf("seed 7 twice: different decisions (-first +second):\n%s", cmp.Diff(first, second))
	}
	if slices.Equal(first, replayDecisions(rec, 8, n)) {
		t.Errorf("seeds 7 and 8 made the same %d decisions", n)
	}
}

// TestReplayDecisions checks, over many decisions of one seed, that the
// replay acts out each recorded outcome as WithProfile's Traffic says, at
// its recorded rate, with failures in runs of the recorded mean length,
// latencies within their outcome's buckets and Retry-After by its counts.
func TestReplayDecisions(t *testing.T) {
	testenv.Long(t) // a million decisions: 15 s under -race
	t.Parallel()
	rec := testRecording(t)
	const n = 1_000_000
	got := replayDecisions(rec, 1, n)
	count := map[string]int{}
	retry := map[string]int{}
	var okDelays []time.Duration
	runs, failures, run := 0, 0, 0
	for i, d := range got {
		var kind string
		// The recording's breaks are told apart by their latencies: before
		// sending 100µs, an attempt timeout 5s; after sending stores.
		switch {
		case d.Desc == "" && d.Status == 0 && !d.Drop:
			kind = "ok" // a success, or a 4xx answered by the fake
			okDelays = append(okDelays, d.Delay)
		case d.Store && d.Drop:
			kind = string(traffic.KindBrokenAfterSend)
		case d.Drop && d.Delay < time.Second:
			kind = string(traffic.KindBrokenBeforeSend)
		case d.Drop:
			kind = string(traffic.KindAttemptTimeout)
			if from, to := latency.Bounds(latency.Of(5 * time.Second)); d.Delay != micros(to) {
				t.Errorf("decision %d: attempt_timeout after %v, want the top of its bucket [%vµs, %vµs)", i, d.Delay, from, to)
			}
		case d.Status == 429 || d.Status >= 500:
			kind = fmt.Sprint(d.Status)
			retry[kind+" "+d.Retry]++
		default:
			t.Fatalf("decision %d: %+v is no replayed outcome", i, d)
		}
		count[kind]++
		if kind != "ok" {
			failures++
			if run == 0 {
				runs++
			}
			run++
		} else {
			run = 0
		}
	}
	want := map[string]float64{"ok": 981_000, "429": 4000, "500": 1000, "503": 10000,
		"broken_before_send": 1000, "broken_after_send": 2000, "attempt_timeout": 1000}
	for kind, w := range want {
		// 4.4 standard deviations: the counts are of one fixed sequence,
		// which this bound accepts with room.
		if c := float64(count[kind]); math.Abs(c-w) > 4.4*math.Sqrt(w)+1 {
			t.Errorf("%s: %v of %d decisions, want %v ± %.0f", kind, c, n, w, 4.4*math.Sqrt(w))
		}
	}
	if mean := float64(failures) / float64(runs); math.Abs(mean-4) > 0.2 {
		t.Errorf("mean failure run %.2f (%d failures in %d runs), want 4 ± 0.2", mean, failures, runs)
	}
	if f := float64(retry["429 3"]) / float64(count["429"]); math.Abs(f-0.75) > 0.03 {
		t.Errorf("429 with Retry-After 3: %.3f, want 0.75 (the rest none): %v", f, retry)
	}
	if retry["500 "] != count["500"] || retry["503 1"] != count["503"] {
		t.Errorf("Retry-After of the 5xx: %v, want none on 500, 1 on 503", retry)
	}
	sort.Slice(okDelays, func(i, j int) bool { return okDelays[i] < okDelays[j] })
	lo, hi := okDelays[0], okDelays[len(okDelays)-1]
	if lo < 1024*time.Microsecond || hi >= 17867*time.Microsecond {
		t.Errorf("success delays from %v to %v, want within the recorded buckets [1024µs, 1116.68µs) and [16384µs, 17866.94µs)", lo, hi)
	}
	if mid := okDelays[len(okDelays)/2]; mid > 1117*time.Microsecond && mid < 16384*time.Microsecond {
		t.Errorf("median success delay %v: half the successes should fall in each bucket", mid)
	}
}

// TestReplayEdges checks recordings that are not a mix: no failures, only
// failures, nothing at all.
func TestReplayEdges(t *testing.T) {
	t.Parallel()
	lat := []traffic.Bucket{{FromUS: 1024, ToUS: 1116.68, Count: 10}}
	tests := []struct {
		name string
		rec  traffic.Recording
		want string // every decision's description starts so
	}{
		{"empty", traffic.Recording{}, ""},
		{"no failures", traffic.Recording{Attempts: 10, Outcomes: []traffic.Outcome{{Kind: traffic.KindOK, Status: 200, Count: 10, Latency: lat}}}, ""},
		{"only failures", traffic.Recording{Attempts: 10,
			Outcomes:    []traffic.Outcome{{Kind: traffic.KindBrokenBeforeSend, Count: 10, Latency: lat}},
			FailureRuns: traffic.Runs{Runs: 1, Failures: 10, Lengths: []traffic.RunLength{{Length: 10, Count: 1}}}}, "traffic drop after="},
		{"only 4xx, which the fake answers", traffic.Recording{Attempts: 10,
			Outcomes:    []traffic.Outcome{{Kind: traffic.Kind4xx, Status: 404, Count: 10, Latency: lat}},
			FailureRuns: traffic.Runs{Runs: 1, Failures: 10, Lengths: []traffic.RunLength{{Length: 10, Count: 1}}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.rec.Check(); err != nil {
				t.Fatal(err)
			}
			for i, d := range replayDecisions(&tt.rec, 3, 100) {
				if !strings.HasPrefix(d.Desc, tt.want) || (tt.want == "") != (d.Desc == "") {
					t.Fatalf("decision %d: %q, want %q…", i, d.Desc, tt.want)
				}
			}
		})
	}
}

// TestReplayedFailureBody checks the body of a replayed 429 or 5xx, as
// WithProfile's Traffic says: an ErrorBody with CodeFault that names the
// status, 5xx's catch-all outcome as 500.
func TestReplayedFailureBody(t *testing.T) {
	t.Parallel()
	lat := []traffic.Bucket{{FromUS: 1024, ToUS: 1116.68, Count: 1}}
	for _, tt := range []struct {
		kind   traffic.Kind
		status int // recorded
		want   ErrorBody
	}{
		{traffic.Kind429, 429, ErrorBody{Code: CodeFault, Message: "traffic: 429 Too Many Requests"}},
		{traffic.Kind5xx, 503, ErrorBody{Code: CodeFault, Message: "traffic: 503 Service Unavailable"}},
		{traffic.Kind5xx, 0, ErrorBody{Code: CodeFault, Message: "traffic: 500 Internal Server Error"}},
	} {
		rec := &traffic.Recording{Attempts: 1,
			Outcomes: []traffic.Outcome{{Kind: tt.kind, Status: tt.status, Count: 1, Latency: lat,
				RetryAfter: []traffic.RetryAfter{{Count: 1}}}},
			FailureRuns: traffic.Runs{Runs: 1, Failures: 1, Lengths: []traffic.RunLength{{Length: 1, Count: 1}}}}
		if err := rec.Check(); err != nil {
			t.Fatalf("%s %d: %v", tt.kind, tt.status, err)
		}
		f, by := newReplay(rec, 1).place(nil, Request{})
		var got ErrorBody
		if f == nil || f.Body != nil || json.Unmarshal(f.reply(by).raw, &got) != nil {
			t.Fatalf("%s %d: replayed %+v, want a Fault with an ErrorBody", tt.kind, tt.status, f)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %d: body (-want +got):\n%s", tt.kind, tt.status, diff)
		}
	}
}

// TestProfileTraffic checks that a profile document with traffic loads,
// that a profile's Check refuses traffic that traffic's Check refuses,
// and that WithProfile copies the traffic.
func TestProfileTraffic(t *testing.T) {
	t.Parallel()
	doc := `{"source": "traffic.Recorder: https://plants.example.com", "traffic": {"attempts": 3,
	  "outcomes": [{"kind": "2xx", "status": 200, "count": 2, "latency": [{"from_us": 1024, "to_us": 1116.68, "count": 2}]},
	               {"kind": "5xx", "status": 503, "count": 1, "latency": [{"from_us": 1024, "to_us": 1116.68, "count": 1}],
	                "retry_after": [{"seconds": 2, "count": 1}]}],
	  "failure_runs": {"runs": 1, "failures": 1, "lengths": [{"length": 1, "count": 1}]}}}`
	p, err := ParseProfile([]byte(doc))
	if err != nil {
		t.Fatalf("ParseProfile: %v", err)
	}
	if p.Traffic == nil || p.Traffic.Attempts != 3 || len(p.Traffic.Outcomes) != 2 {
		t.Fatalf("ParseProfile: traffic %+v, want the document's", p.Traffic)
	}
	for _, tt := range []struct{ edit, want string }{
		{`"attempts": 3`, `"attempts": 4`},
		{`"kind": "5xx"`, `"kind": "6xx"`},
		{`"runs": 1, "failures": 1`, `"runs": 1, "failures": 1, "rate": 2`},
	} {
		bad := strings.Replace(doc, tt.edit, tt.want, 1)
		if _, err := ParseProfile([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "plantstoretest: profile: ") {
			t.Errorf("ParseProfile with %s: %v, want an error that starts with %q", tt.want, err, "plantstoretest: profile: ")
		}
	}

	opt := WithProfile(p)
	p.Traffic.Outcomes[1].Latency[0].Count = 7
	c := newConfig([]Option{opt})
	if got := c.profile.Traffic.Outcomes[1].Latency[0].Count; got != 1 {
		t.Errorf("WithProfile shares its traffic with the caller: a change after it shows (count %d, want 1)", got)
	}
}

// TestReplayLatencyInRealTime replays, on loopback in real time, a
// recording whose every answer took 256–279 µs (one bucket), to 200 calls
// one after another, and checks the fake's own measure of each (the
// journal's Duration, from arrival to the status line): none is shorter
// than the bucket, and the median is under 1 ms (300 µs over the top on an
// idle machine). A timer
// alone waits at least about 1 ms for any wait below 1 ms when the
// process is idle, as it is between calls; the test runs alone so that it
// is (not in parallel with the package's other tests).
func TestReplayLatencyInRealTime(t *testing.T) {
	from, to := latency.Bounds(latency.Of(260 * time.Microsecond))
	const n = 200
	rec := &traffic.Recording{
		Attempts: n,
		Outcomes: []traffic.Outcome{{Kind: traffic.KindOK, Status: 200, Count: n, Latency: []traffic.Bucket{{FromUS: from, ToUS: to, Count: n}}}},
	}
	srv := NewServer(t, WithProfile(Profile{Traffic: rec}))
	client := srv.HTTPClient()
	for range n {
		resp, err := client.Get(srv.URL + "/plants/1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	var took []time.Duration
	for _, r := range srv.Requests() {
		took = append(took, r.Duration)
	}
	slices.Sort(took)
	if len(took) != n {
		t.Fatalf("the journal holds %d requests, want %d", len(took), n)
	}
	t.Logf("the fake took: min %v, p50 %v, p95 %v, max %v", took[0], took[n/2], took[n*95/100], took[n-1])
	if low := time.Duration(from * 1e3); took[0] < low {
		t.Errorf("a request took %v, less than the recorded %v", took[0], low)
	}
	// Under 1 ms, which a timer alone never is; not the 300 µs of an idle
	// machine, so that the other packages' tests, beside this one on two
	// cores, cannot fail it.
	if high := time.Millisecond; took[n/2] >= high {
		t.Errorf("the median request took %v, %v or more: the recorded %v–%v waited on a timer", took[n/2], high, time.Duration(from*1e3), time.Duration(to*1e3))
	}
}

// TestWithProfileCopiesTraffic checks that WithProfile copies p's Traffic
// whole: a caller that changes its recording after WithProfile, the
// Retry-After seconds or the evidence of what breaks stored included,
// does not change what the fake replays.
func TestWithProfileCopiesTraffic(t *testing.T) {
	t.Parallel()
	rec := testRecording(t)
	rec.AfterBreaks = &traffic.AfterBreaks{OK: 1, Refused: 3}
	const n = 5000
	want := replayDecisions(rec, 1, n)
	opt := WithProfile(Profile{Traffic: rec})
	for i := range rec.Outcomes {
		for _, ra := range rec.Outcomes[i].RetryAfter {
			if ra.Seconds != nil {
				*ra.Seconds = 99
			}
		}
	}
	rec.AfterBreaks.OK, rec.AfterBreaks.Refused = 3, 0
	h := NewHandler(opt, WithChaosSeed(1))
	if diff := cmp.Diff(want, drawReplay(sourceOf[*replay](h), n)); diff != "" {
		t.Errorf("the replay changed with the caller's recording after WithProfile (-before +after):\n%s", diff)
	}
}
