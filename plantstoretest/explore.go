package plantstoretest

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/plural"
	"github.com/plantstore/plantstore-go/traffic"
)

// ExploreOption configures [Explore].
type ExploreOption func(*exploreConfig)

type exploreConfig struct {
	runs    int
	seed    uint64
	kinds   []string
	weights []int    // of kinds, for the random schedules; nil for even
	lengths []uint64 // of the runs of faults drawn
	lweight []int    // of lengths; nil for even
	server  []Option
	misuse  string  // an option's misuse, which Explore reports
	noMaybe bool    // ExploreNeverMaybeCreated
	only    *string // ExploreOnly's schedule
}

// ExploreRuns sets how many schedules Explore runs at most, the fault-free
// run included; the default is 1,000, and less than 1 is misuse.
func ExploreRuns(n int) ExploreOption {
	return func(c *exploreConfig) {
		c.runs = n
		if n < 1 {
			c.misuse = fmt.Sprintf("ExploreRuns(%d): want 1 or more", n)
		}
	}
}

// ExploreSeed seeds the random schedules Explore draws once it has tried
// each single fault: the same code and seed explore the same schedules.
// The default is 1.
func ExploreSeed(seed uint64) ExploreOption { return func(c *exploreConfig) { c.seed = seed } }

// ExploreKinds sets the faults Explore places, each as [ParseFault] reads
// it; the default is "503", "429", "drop", "store-drop", "delay",
// "store-delay", "goaway", "crash" and "drop crash".
func ExploreKinds(kinds ...string) ExploreOption {
	return func(c *exploreConfig) {
		c.kinds, c.weights = nil, nil
		for _, k := range kinds {
			if !slices.Contains(c.kinds, k) { // a kind named twice is drawn as often as the others
				c.kinds = append(c.kinds, k)
			}
		}
	}
}

// ExploreTraffic draws the faults of the random schedules in the mix of a
// deployment's recorded traffic (package traffic): 429 as "429", other
// 5xx as "503", a break before sending as "drop", after sending as
// "store-drop", an attempt timeout as "delay", each as often as recorded.
// The single faults Explore tries first are those the recording holds. A
// nil rec is misuse.
func ExploreTraffic(rec *traffic.Recording) ExploreOption {
	return func(c *exploreConfig) {
		if rec == nil {
			c.misuse = "ExploreTraffic(nil): want a recording"
			return
		}
		counts := map[string]int64{}
		for _, o := range rec.Outcomes {
			counts[trafficKinds[o.Kind]] += o.Count
		}
		c.kinds, c.weights = nil, nil
		for _, k := range exploreKinds {
			if n := counts[k]; n > 0 {
				c.kinds, c.weights = append(c.kinds, k), append(c.weights, int(min(n, 1<<30)))
			}
		}
		c.lengths, c.lweight = nil, nil
		for _, l := range rec.FailureRuns.Lengths {
			if l.Length > 1 {
				c.lengths, c.lweight = append(c.lengths, uint64(l.Length)), append(c.lweight, int(min(l.Count, 1<<30)))
			}
		}
	}
}

// runLengths are the lengths of the runs of faults Explore draws unless a
// recording gives its own: up to 213 requests, past the retries of
// EnsurePlant's create and settles (12 attempts) and the client's retry
// budget (100 retries in 10 seconds).
var runLengths = []uint64{2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 95, 142, 213}

// exploreKinds are the faults Explore places by default, in the order it
// tries them.
var exploreKinds = []string{"503", "429", "drop", "store-drop", "delay", "store-delay", "goaway", "crash", "drop crash"}

// trafficKinds are the schedule's kinds of a recording's failures.
var trafficKinds = map[traffic.Kind]string{
	traffic.Kind429:              "429",
	traffic.Kind5xx:              "503",
	traffic.KindBrokenBeforeSend: "drop",
	traffic.KindBrokenAfterSend:  "store-drop",
	traffic.KindAttemptTimeout:   "delay",
}

// ExploreNeverMaybeCreated states that the scenario's calls cannot return
// plantstore.ErrMaybeCreated, so that a pass in which none did is a pass.
func ExploreNeverMaybeCreated() ExploreOption { return func(c *exploreConfig) { c.noMaybe = true } }

// ExploreOnly runs the scenario under schedule alone, as Explore ran it:
// fake time, the in-memory network and the other options given. It is the
// line Explore's failure hands over; the outcome coverage is not asked.
func ExploreOnly(schedule string) ExploreOption { return func(c *exploreConfig) { c.only = &schedule } }

// ExploreServer gives each run's fake opts besides [WithInMemoryNetwork]
// and its [WithSchedule], such as [WithHTTP2] or [WithProfile].
func ExploreServer(opts ...Option) ExploreOption {
	return func(c *exploreConfig) { c.server = opts }
}

// Explore runs scenario many times, each against a fresh fake on the
// in-memory network in a testing/synctest bubble (fake time: a minute's
// wait costs nothing) under another schedule of faults ([WithSchedule]):
// first none, then each single fault on each request the fault-free run
// sent and two more, then random schedules of two and three faults, or of
// a run of one kind on consecutive requests ("4-11:store-drop"), up to 213
// long: an outage that outlasts the client's retries (never a run of
// crashes: a loop of restarts), alone or with one fault beside it, such as
// a crash before an outage ("1:crash,2-5:429"). The scenario
// states what must hold with t.Error and t.Fatal, as any test does: say,
// that what the code under test reports created equals srv.Plants(), once.
//
// The scenario is one life of the code under test's process. A "crash"
// kills it at a request, after the plant is stored ([Fault].Crash): the
// scenario's calls fail from then on, and it should return unchecked when
// srv.Crashed(); then Explore runs it again on the same fake, as the
// restarted process given the same work, with what it kept on srv.Disk().
//
// Each run is a subtest of t, named by its schedule. Explore shrinks the
// first schedule that fails, removing an item or shortening or splitting a
// run while the scenario still fails, until no such step does, and fails t
// with the line that reproduces it in fake time ([ExploreOnly]), and in
// real time, with what its waits cost there ([WithSchedule]). When none
// fails, it logs how many ran and the outcomes reached (see
// [ExploreNeverMaybeCreated]), and stops early once it has run every
// schedule of up to three faults, or of one run and at most one fault
// beside it, on the requests it draws from. The same code and options explore the same schedules. A run fails
// past 1,000 requests after its last fault, as under WithSchedule. A panic
// of the scenario's goroutine fails its run, with the stack (one of a
// goroutine it started ends the test binary, as in any test: recover
// there), and so does a hang (every goroutine of the bubble blocked for
// good on channels, timers, a WaitGroup or a Cond: one blocked on a
// sync.Mutex never counts, and waits for go test's timeout), with where
// they wait; a scenario that skips (t.Skip) every run fails t: nothing was
// explored. Explore needs Go 1.25 (testing/synctest); before, it fails t,
// as it does when called inside a bubble (in synctest.Test, or in its own
// scenario) or given an option's misuse. Its runs are not parallel.
func Explore(t *testing.T, scenario func(t *testing.T, srv *Server), opts ...ExploreOption) {
	t.Helper()
	c := exploreConfig{runs: 1000, seed: 1, kinds: exploreKinds, lengths: runLengths}
	for _, opt := range opts {
		opt(&c)
	}
	if c.misuse != "" {
		t.Fatal("plantstoretest: Explore: " + c.misuse)
	}
	if bubble.Inside() {
		t.Fatal("plantstoretest: Explore called inside a synctest bubble (synctest.Test, or an Explore scenario): " +
			"it runs each scenario in a bubble of its own; call it from the test's own goroutine")
	}
	if len(c.kinds) == 0 {
		t.Fatal("plantstoretest: Explore: no kind of fault to place (ExploreKinds, or a recording without failures)")
	}
	faults := make([]*Fault, len(c.kinds))
	for i, k := range c.kinds {
		f, err := ParseFault(k)
		if err != nil {
			t.Fatalf("plantstoretest: Explore: ExploreKinds: %s", strings.TrimPrefix(err.Error(), "plantstoretest: "))
		}
		faults[i] = &f
	}
	requireSynctest(t)
	e := explorer{t: t, scenario: scenario, c: c, faults: faults, tried: map[string]bool{}}
	if c.only != nil {
		s, err := parseSchedule(*c.only)
		if err != nil {
			t.Fatalf("plantstoretest: Explore: ExploreOnly: %s", strings.TrimPrefix(err.Error(), "plantstoretest: "))
		}
		if !e.pass(s) {
			t.Errorf("plantstoretest: Explore: the scenario fails under the schedule %q", s)
		}
		return
	}
	first, ok := e.find()
	switch {
	case !ok:
		t.Error(e.failed(first, e.shrink(first)))
	case e.skipped == e.ran:
		t.Fatalf("plantstoretest: Explore: the scenario skipped (t.Skip) every one of its %s: nothing was explored", plural.Count(e.ran, "run"))
	case e.reached[reachedMaybe] == 0 && !c.noMaybe:
		t.Fatalf("plantstoretest: Explore: %s, yet no call through the Server's Client or ProductionClient returned "+
			"ErrMaybeCreated, so the code that handles an unknown outcome never ran (%s): run more schedules (ExploreRuns), "+
			"keep the kinds that lose a reply (drop, store-drop, delay, store-delay), or, if the scenario's calls cannot "+
			"return it, say so with ExploreNeverMaybeCreated()", plural.Count(e.ran, "schedule"), coverage(e.reached))
	default:
		t.Log(e.passed())
	}
}

// passed is Explore's report when no schedule failed.
func (e *explorer) passed() string {
	text := "plantstoretest: Explore: " + plural.Count(e.ran, "schedule") + ", no failure"
	if e.skipped > 0 {
		text += fmt.Sprintf(" (%d skipped by the scenario)", e.skipped)
	}
	if e.every > 0 {
		text += fmt.Sprintf("; that is every schedule of up to 3 faults, or of one run and at most one fault beside it, on requests 1 to %d", e.every)
	}
	return text + "; runs that reached each outcome: " + coverage(e.reached)
}

// failed is Explore's report of the first schedule that failed, shrunk
// to minimal.
func (e *explorer) failed(first, minimal schedule) string {
	restart := ""
	if minimal.crashes() {
		restart = " (your code run again while srv.Restart())"
	}
	return fmt.Sprintf("plantstoretest: Explore: the scenario fails under the schedule %q (%s, shrunk from %d, after %s); "+
		"reproduce it in fake time with plantstoretest.ExploreOnly(%q) among this Explore's options, or with "+
		"NewServer(t, plantstoretest.WithSchedule(%q))%s, whose waits take %v of real time",
		minimal.String(), plural.Count(len(minimal), "fault"), len(first), plural.Count(e.ran, "schedule"),
		minimal.String(), minimal.String(), restart, e.took)
}

// explorer is one Explore call's search.
type explorer struct {
	t        *testing.T
	scenario func(*testing.T, *Server)
	c        exploreConfig
	faults   []*Fault        // c.kinds, parsed
	tried    map[string]bool // the schedules run, by text
	took     time.Duration   // the fake time of the last run that failed: the shrunk schedule's
	ran      int
	reached  [outcomeClasses]int // runs whose calls returned each class
	skipped  int                 // runs the scenario skipped (t.Skip)
	sent     int                 // requests the fault-free run sent
	every    uint64              // the span, once every schedule on it ran
}

// find runs schedules until one fails, which it returns with ok false, or
// until the runs are spent.
func (e *explorer) find() (schedule, bool) {
	if !e.pass(nil) {
		return nil, false
	}
	last := uint64(e.sent + 2)
	for at := uint64(1); at <= last; at++ {
		for _, f := range e.faults {
			s := schedule{{at: at, to: at, fault: f}}
			if e.ran >= e.c.runs {
				return nil, true
			}
			if !e.pass(s) {
				return s, false
			}
		}
	}
	r := rand.New(rand.NewPCG(e.c.seed, 0x5eed))
	span := uint64(2*e.sent + 3)
	// How many schedules of two and three faults, and of one run alone or
	// with one fault beside it, there are on the span: once each has run,
	// drawing more finds none new. Weighted kinds may leave rare schedules
	// all but undrawable: misses bound the search then.
	k, n := float64(len(e.c.kinds)), float64(span)
	runKinds := k // but crashes, drawn alone
	for _, f := range e.faults {
		if f.Crash {
			runKinds--
		}
	}
	distinct := n*(n-1)/2*k*k + n*(n-1)*(n-2)/6*k*k*k + (n-float64(last))*(k-runKinds) // a crash drawn as a run is a single
	for at := uint64(1); at <= span; at++ {
		for _, length := range e.c.lengths {
			outside := span - (min(at+length-1, span) - at + 1)
			distinct += runKinds * (1 + float64(outside)*k)
		}
	}
	drawn := 0
	for misses := 0; e.ran < e.c.runs && float64(drawn) < distinct && misses < 100*e.c.runs; {
		var s schedule
		if len(e.c.lengths) > 0 && r.IntN(2) == 0 {
			at := 1 + r.Uint64N(span)
			f, n := pick(r, e.faults, e.c.weights), pick(r, e.c.lengths, e.c.lweight)
			if f.Crash {
				n = 1 // a run of crashes is a crash loop: a life each, and no new outcome
			}
			s = schedule{{at: at, to: at + n - 1, fault: f}}
			if r.IntN(2) == 0 {
				s = e.beside(r, s, span)
			}
		} else {
			s = e.draw(r, 2+r.IntN(2), span)
		}
		if e.tried[s.String()] {
			misses++
			continue
		}
		drawn++
		if !e.pass(s) {
			return s, false
		}
	}
	if float64(drawn) >= distinct {
		e.every = span
	}
	return nil, true
}

// draw returns a schedule of n faults on distinct requests from 1 to span.
func (e *explorer) draw(r *rand.Rand, n int, span uint64) schedule {
	var s schedule
	for len(s) < n {
		at := 1 + r.Uint64N(span)
		if !slices.ContainsFunc(s, func(it scheduleItem) bool { return it.at == at }) {
			s = append(s, scheduleItem{at: at, to: at, fault: pick(r, e.faults, e.c.weights)})
		}
	}
	slices.SortFunc(s, byAt)
	return s
}

// beside adds to s, one run, a fault on a request from 1 to span outside
// the run, such as a crash before an outage, if there is such a request.
func (e *explorer) beside(r *rand.Rand, s schedule, span uint64) schedule {
	run := s[0]
	covered := min(run.to, span) - run.at + 1
	if covered == span {
		return s
	}
	at := 1 + r.Uint64N(span-covered)
	if at >= run.at {
		at += covered
	}
	s = append(s, scheduleItem{at: at, to: at, fault: pick(r, e.faults, e.c.weights)})
	slices.SortFunc(s, byAt)
	return s
}

// pick draws one of xs, by weights when there are some.
func pick[T any](r *rand.Rand, xs []T, weights []int) T {
	if weights == nil {
		return xs[r.IntN(len(xs))]
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.IntN(total)
	for i, w := range weights {
		if x -= w; x < 0 {
			return xs[i]
		}
	}
	return xs[len(xs)-1]
}

// shrink makes s smaller, a step at a time, while the scenario still fails
// under it, and returns the schedule no step of which fails. A step removes
// an item, or halves a run, shortens it at either end or splits it at its
// middle. A schedule run before passed: it is not run again.
func (e *explorer) shrink(s schedule) schedule {
	for smaller := true; smaller; {
		smaller = false
		for _, c := range steps(s) {
			if !e.tried[c.String()] && !e.pass(c) {
				s, smaller = c, true
				break
			}
		}
	}
	return s
}

// steps returns the schedules a step smaller than s (see shrink).
func steps(s schedule) []schedule {
	var out []schedule
	with := func(i int, items ...scheduleItem) {
		out = append(out, slices.Concat(s[:i], items, s[i+1:]))
	}
	for i, it := range s {
		if len(s) > 1 {
			with(i)
		}
		n := it.to - it.at // a run of n+1 requests
		if n > 2 {
			with(i, scheduleItem{it.at, it.at + n/2, it.fault})
		}
		if n > 0 {
			with(i, scheduleItem{it.at, it.to - 1, it.fault})
			with(i, scheduleItem{it.at + 1, it.to, it.fault})
		}
		if mid := it.at + n/2; n > 1 {
			with(i, scheduleItem{it.at, mid - 1, it.fault}, scheduleItem{mid + 1, it.to, it.fault})
		}
	}
	return out
}

// pass runs the scenario once under s, as a subtest of e.t, and reports
// whether it passed. The fault-free run also counts the requests sent.
func (e *explorer) pass(s schedule) bool {
	e.t.Helper()
	e.ran++
	text := s.String()
	e.tried[text] = true
	name := text
	if name == "" {
		name = "no fault"
	}
	ran, returned := false, false
	var r reached
	var took time.Duration
	ok := e.t.Run(name, func(t *testing.T) {
		ran = true
		defer func() {
			// synctest.Test panics so when every goroutine of the bubble
			// is blocked for good: the scenario hung, which is a finding.
			if r := recover(); r != nil {
				if msg := fmt.Sprint(r); strings.HasPrefix(msg, "deadlock: ") {
					t.Errorf("plantstoretest: Explore: the scenario never returned (%s, in fake time: a wait that nothing ends, such as one for a reply a fault lost); where its goroutines wait:\n%s", msg, bubbleStacks())
					return
				}
				panic(r)
			}
		}()
		runInBubble(t, func(t *testing.T) {
			opts := append(slices.Clip(e.c.server), WithInMemoryNetwork(), WithSchedule(text), func(c *config) { c.watch = &r })
			srv := NewServer(t, opts...)
			defer func() {
				// A panic of the scenario's own goroutine is a finding, as a
				// failure is: the schedule is shrunk and shown.
				if r := recover(); r != nil {
					t.Errorf("plantstoretest: Explore: the scenario panicked: %v\n%s", r, debug.Stack())
				}
			}()
			start := time.Now() // fake time
			defer func() { took = time.Since(start) }()
			e.scenario(t, srv)
			for srv.Restart() {
				r.bits.Or(1 << reachedRestart)
				e.scenario(t, srv)
			}
			returned = true
			if s == nil {
				e.sent = int(srv.sent())
			}
		})
	})
	if !ran {
		e.t.Fatalf("plantstoretest: Explore: its run %q did not run: -test.run or -test.skip filters Explore's subtests out", name)
	}
	if ok && !returned {
		e.skipped++ // t.Skip ends the scenario, and the run passes
	}
	if !ok {
		e.took = took
	}
	for class := range e.reached {
		if r.bits.Load()&(1<<class) != 0 {
			e.reached[class]++
		}
	}
	return ok
}

// bubbleStacks returns the stacks of the goroutines of the newest
// testing/synctest bubble, whose number the runtime puts in each
// goroutine's header ("goroutine 9 [chan receive, synctest bubble 4]:"),
// cut to 16 KiB.
func bubbleStacks() string {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	var newest int
	var stacks []string
	for _, g := range strings.Split(all, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		_, after, ok := strings.Cut(header, ", synctest bubble ")
		if !ok {
			continue
		}
		var n int
		fmt.Sscan(after, &n) // "4]:" reads 4
		if n > newest {
			newest, stacks = n, stacks[:0]
		}
		if n == newest {
			stacks = append(stacks, g)
		}
	}
	text := strings.Join(stacks, "\n\n")
	if len(text) > 16<<10 {
		text = text[:16<<10] + "\n…"
	}
	return text
}
