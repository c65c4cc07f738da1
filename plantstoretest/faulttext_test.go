package plantstoretest

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go/traffic"
)

// TestParseFault checks that ParseFault reads each kind and modifier into
// the Fault it names, that String spells that Fault back in one way, and
// that a text that names no Fault is refused with what is wrong.
func TestParseFault(t *testing.T) {
	t.Parallel()
	ra := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	tests := []struct {
		text  string
		want  Fault
		spelt string // String's; "" for text itself
	}{
		{"503", Fault{Status: 503, Header: ra("1")}, ""},
		{"429 retry-after=none", Fault{Status: 429}, ""},
		{"500 retry-after=2 after=1s", Fault{Status: 500, Header: ra("2"), Delay: time.Second}, "500 after=1s retry-after=2"},
		{"502", Fault{Status: 502}, ""},
		{"503 goaway", Fault{Status: 503, Header: ra("1"), GoAway: true}, ""},
		{"store-503 retry-after=1", Fault{Store: true, Status: 503, Header: ra("1")}, "store-503"},
		{"drop", Fault{Drop: true}, ""},
		{"store-drop after=5ms", Fault{Store: true, Drop: true, Delay: 5 * time.Millisecond}, ""},
		{"hang", Fault{Hang: true}, ""},
		{"store-hang", Fault{Store: true, Hang: true}, ""},
		{"delay", Fault{Delay: time.Minute}, ""},
		{"  delay   after=1m0s ", Fault{Delay: time.Minute}, "delay"},
		{"store-delay after=250ms", Fault{Store: true, Delay: 250 * time.Millisecond}, ""},
		{"delay goaway", Fault{Delay: time.Minute, GoAway: true}, ""},
		{"goaway", Fault{GoAway: true}, ""},
		{"reply", Fault{}, ""},
		{"crash", Fault{Store: true, Drop: true, Crash: true}, ""},
		{"crash after=1s", Fault{Store: true, Drop: true, Crash: true, Delay: time.Second}, ""},
		{"drop crash", Fault{Drop: true, Crash: true}, ""},
		{"drop crash after=2s", Fault{Drop: true, Crash: true, Delay: 2 * time.Second}, ""},
	}
	for _, tt := range tests {
		got, err := ParseFault(tt.text)
		if err != nil {
			t.Errorf("ParseFault(%q): %v", tt.text, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Fault{}, "Match")); diff != "" {
			t.Errorf("ParseFault(%q) (-want +got):\n%s", tt.text, diff)
		}
		want := tt.spelt
		if want == "" {
			want = tt.text
		}
		if got.String() != want {
			t.Errorf("ParseFault(%q).String() = %q, want %q", tt.text, got.String(), want)
		}
	}
	for _, tt := range []struct{ text, err string }{
		{"", "want a kind"},
		{"600", `"600" is no kind`},
		{"fetch", `"fetch" is no kind`},
		{"store-", `"" is no kind`},
		{"0503", `"0503" is no kind`},
		{"drop goaway", "GoAway goes with a reply"},
		{"hang after=1s", "Hang never replies"},
		{"503 after=0s", "want a positive Go duration"},
		{"503 after=soon", "want a positive Go duration"},
		{"503 retry-after=-1", "want seconds or none"},
		{"drop retry-after=1", "at most once"},
		{"503 goaway goaway", "at most once"},
		{"503 after=1s after=2s", "at most once"},
		{"store-reply", "Store alone changes nothing"},
		{"store-crash", "a crash stores the plant already"},
		{"crash goaway", "GoAway goes with a reply"},
		{"store-drop crash", "a crash that stores is written crash"},
		{"crash crash", "at most once"},
		{"503 crash", "at most once"},
		{"hang crash", "at most once"},
	} {
		if _, err := ParseFault(tt.text); err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "plantstoretest: fault ") {
			t.Errorf("ParseFault(%q) = %v, want an error containing %q", tt.text, err, tt.err)
		}
	}
	// A long text is quoted by its first 40 characters, and so is its part
	// at fault: the error stays short.
	for _, text := range []string{strings.Repeat("x", 1000), "503 after=" + strings.Repeat("1", 1000), "503 " + strings.Repeat("y", 1000)} {
		if _, err := ParseFault(text); err == nil || len(err.Error()) > 300 {
			t.Errorf("ParseFault of %d characters: an error of %d characters, want one of at most 300", len(text), len(fmt.Sprint(err)))
		}
	}
}

// TestFaultStringParses: String spells every valid Fault, those with
// what the text leaves out too (headers, a body, a date), in words
// ParseFault reads, so that a journal line of any fault pastes into a
// schedule.
func TestFaultStringParses(t *testing.T) {
	t.Parallel()
	trace := http.Header{"X-Trace": {"a"}}
	for _, tt := range []struct {
		f    Fault
		want string
	}{
		{Fault{Store: true, Header: trace}, "reply"}, // the usual reply stores a valid plant anyway
		{Fault{Header: trace}, "reply"},
		{Fault{Store: true, Header: trace, GoAway: true}, "store-goaway"},
		{Fault{Status: 503, Header: http.Header{"Retry-After": {"Wed, 21 Oct 2026 07:28:00 GMT"}}}, "503"},
		{Fault{Status: 418, Body: []byte("{}")}, "418"},
	} {
		if why := tt.f.check(); why != "" {
			t.Fatalf("%+v is not a valid Fault: %s", tt.f, why)
		}
		got := tt.f.String()
		if _, err := ParseFault(got); err != nil || got != tt.want {
			t.Errorf("%#v spells %q (ParseFault: %v), want %q, which parses", tt.f, got, err, tt.want)
		}
	}
}

// TestJournalFaultsAreScheduleItems holds every fault source to the
// journal's one grammar, "source N:kind" with N the request's Seq and kind
// as String spells it, and checks that the journal's lines, pasted into a
// schedule, place the same faults on the same requests.
func TestJournalFaultsAreScheduleItems(t *testing.T) {
	t.Parallel()
	lat := []traffic.Bucket{{FromUS: 1024, ToUS: 1116.68, Count: 10}}
	rec := &traffic.Recording{Attempts: 20,
		Outcomes: []traffic.Outcome{{Kind: traffic.KindOK, Status: 200, Count: 10, Latency: lat},
			{Kind: traffic.Kind5xx, Status: 503, Count: 10, Latency: lat, RetryAfter: []traffic.RetryAfter{{Seconds: new(int64), Count: 10}}}},
		FailureRuns: traffic.Runs{Runs: 5, Failures: 10, Lengths: []traffic.RunLength{{Length: 2, Count: 5}}}}
	h := NewHandler(WithRateLimit(50, time.Hour), WithSchedule("2:503,3:store-drop,4:delay after=1ms"),
		WithChaos(0.3, 3), WithProfile(Profile{Traffic: rec}))
	h.Inject(Fault{Status: 502, Header: http.Header{"Retry-After": {"7"}}})
	h.Close() // holds end at once, by dropping the connection
	for i := range 60 {
		func() {
			defer func() { _ = recover() }() // http.ErrAbortHandler, which drops it
			serve(h, validHeader(DefaultToken), fmt.Sprintf(`{"id":%d,"name":"Fern"}`, i))
		}()
	}
	line := regexp.MustCompile(`^(rate-limit|inject#[1-9][0-9]*|schedule|chaos|traffic) ([1-9][0-9]*):(.+)$`)
	sources := map[string]int{}
	var lines, items []string
	for _, r := range h.Requests() {
		if r.Fault == "" {
			continue
		}
		m := line.FindStringSubmatch(r.Fault)
		if m == nil || m[2] != strconv.FormatUint(r.Seq, 10) {
			t.Errorf("request %d: Fault %q, want source Seq:kind", r.Seq, r.Fault)
			continue
		}
		if f, err := ParseFault(m[3]); err != nil || f.String() != m[3] {
			t.Errorf("request %d: Fault %q: its kind reads as %v, %v", r.Seq, r.Fault, f, err)
		}
		sources[strings.TrimRight(m[1], "#0123456789")]++
		lines, items = append(lines, r.Fault), append(items, m[2]+":"+m[3])
	}
	for _, src := range []string{"rate-limit", "inject", "schedule", "chaos", "traffic"} {
		if sources[src] == 0 {
			t.Errorf("no fault of %s in the journal (%v): the test checked it for nothing", src, sources)
		}
	}
	s, err := parseSchedule(strings.Join(lines, ", "))
	if err != nil {
		t.Fatalf("the journal's faults as a schedule: %v", err)
	}
	if diff := cmp.Diff(strings.Join(items, ","), s.String()); diff != "" {
		t.Errorf("the journal's faults as a schedule (-journal +schedule):\n%s", diff)
	}
}
