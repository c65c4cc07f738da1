//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/examples/inventory"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/traffic"
)

// register is a consumer's create path: it stores a plant named name
// through c, with d the disk of its process (name is the work's own key),
// and reports nil when it is stored, an error matching
// plantstore.ErrMaybeCreated when that is not known, and any other error
// when it is not stored.
type register func(ctx context.Context, c *plantstore.Client, d *plantstoretest.Disk, name string) error

// correct is the create path the README teaches, examples/inventory's: an
// id derived from the work's own key, the same in a restarted process,
// and EnsurePlant; an error but a rejection is "not known", for a create
// may not know what a process before a restart sent.
func correct(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
	return inventory.New(c).Register(ctx, name, name, "")
}

// persisted is the README's other restart-safe create path: a NewID kept
// on disk under the work's key before the first send, and read back; a
// create that learned nothing of an earlier send says "not known".
func persisted(ctx context.Context, c *plantstore.Client, d *plantstoretest.Disk, name string) error {
	v, sent := d.LoadOrStore(name, strconv.FormatInt(plantstore.NewID(), 10)) // one id, for deliveries at once too
	id, _ := strconv.ParseInt(v, 10, 64)
	err := c.EnsurePlant(ctx, plantstore.NewPlant{ID: id, Name: name})
	if sent && err != nil && !errors.Is(err, plantstore.ErrMaybeCreated) {
		return fmt.Errorf("%w (%w)", err, plantstore.ErrMaybeCreated)
	}
	return err
}

// creates is a service's work: five creates in turn on one client of a
// tight retry budget, each with its own 30-second deadline, and what must hold after them, exactly once: every
// plant stored at most once; one reported stored is stored; one reported
// not stored (an error that is not ErrMaybeCreated) is not; and no create
// took past its deadline.
func creates(reg register) func(t *testing.T, srv *plantstoretest.Server) {
	return func(t *testing.T, srv *plantstoretest.Server) {
		c := srv.Client(plantstore.WithMaxRetries(1), plantstore.WithRetryBudget(0.2, 1)) // 10 retries in 10 s
		results := map[string]error{}
		for i := range 5 {
			name := fmt.Sprintf("plant %d", i)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			start := time.Now()
			results[name] = reg(ctx, c, srv.Disk(), name)
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("%s: the create took %v, past its 30s deadline", name, d)
			}
			cancel()
		}
		if srv.Crashed() {
			return // the process died: the next life's results count
		}
		stored := map[string]int{}
		for _, p := range srv.Plants() {
			stored[p.Name]++
		}
		for name, err := range results {
			switch {
			case stored[name] > 1:
				t.Errorf("%s is stored %d times", name, stored[name])
			case err == nil && stored[name] == 0:
				t.Errorf("%s is reported stored, and is not", name)
			case err != nil && !errors.Is(err, plantstore.ErrMaybeCreated) && stored[name] > 0:
				t.Errorf("%s is reported not stored, and is: %v", name, err)
			}
		}
	}
}

// consumerBugs are create paths with a failure-handling bug each, as a
// service's authors write them.
var consumerBugs = []struct {
	name string
	reg  register
}{
	{"a new id on retry", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		err := errors.New("not tried")
		for range 3 {
			if _, err = c.CreatePlant(ctx, plantstore.NewPlant{ID: plantstore.NewID(), Name: name}); err == nil {
				return nil
			}
		}
		return err
	}},
	{"ErrMaybeCreated read as a failure", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		if _, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}); err != nil {
			return fmt.Errorf("create failed: %v", err) // %v: the error no longer says maybe
		}
		return nil
	}},
	{"ErrMaybeCreated read as stored", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		_, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
		if errors.Is(err, plantstore.ErrMaybeCreated) {
			return nil
		}
		return err
	}},
	{"any 4xx read as already exists", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		_, err := c.CreatePlant(ctx, p)
		for n := 0; n < 3 && errors.Is(err, plantstore.ErrMaybeCreated); n++ {
			_, err = c.CreatePlant(ctx, p)
		}
		var apiErr *plantstore.APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode/100 == 4 {
			return nil
		}
		return err
	}},
	{"a settle that waits for a 200", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		_, err := c.CreatePlant(ctx, p)
		for err != nil && !errors.Is(err, context.DeadlineExceeded) {
			_, err = c.CreatePlant(context.Background(), p) // until a 200, which a stored id never gets
		}
		return err
	}},
	{"a deadline ignored", func(_ context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		return c.EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
	}},
	{"ids from the clock", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		return c.EnsurePlant(ctx, plantstore.NewPlant{ID: time.Now().UnixMilli(), Name: name})
	}},
	{"one settle, then stored assumed", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		_, err := c.CreatePlant(ctx, p)
		if errors.Is(err, plantstore.ErrMaybeCreated) {
			_, err = c.CreatePlant(ctx, p)
			if err == nil || errors.Is(err, plantstore.ErrMaybeCreated) || errors.Is(err, plantstore.ErrAlreadyExists) {
				return nil
			}
		}
		return err
	}},
	{"a repeat read as a failure", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		_, err := c.CreatePlant(ctx, p)
		for n := 0; n < 3 && errors.Is(err, plantstore.ErrMaybeCreated); n++ {
			_, err = c.CreatePlant(ctx, p)
		}
		return err // ErrAlreadyExists is the plant stored, not a failure
	}},
	{"the client's settled retry asked again", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		_, err := c.CreatePlant(ctx, p)
		if errors.Is(err, plantstore.ErrAlreadyExists) && !errors.Is(err, plantstore.ErrMaybeCreated) {
			return nil
		}
		if errors.Is(err, plantstore.ErrMaybeCreated) { // misses that the retry already settled it
			_, err = c.CreatePlant(ctx, p)
			if err != nil && !errors.Is(err, plantstore.ErrMaybeCreated) {
				return errors.New("the second try failed: " + err.Error())
			}
		}
		return err
	}},
	{"an attempt timeout retried with a new id", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		for range 3 {
			attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.EnsurePlant(attempt, plantstore.NewPlant{ID: plantstore.NewID(), Name: name})
			cancel()
			if err == nil || !errors.Is(err, plantstore.ErrMaybeCreated) {
				return err
			}
		}
		return errors.New("gave up")
	}},
	{"a fresh id after an unknown outcome", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		// Attempts of a second each: the unknown outcome takes every
		// attempt of the create and its settles failing, a run of faults.
		create := func(id int64) error {
			return c.EnsurePlant(ctx, plantstore.NewPlant{ID: id, Name: name}, plantstore.WithAttemptTimeout(time.Second))
		}
		err := create(plantstore.IDFor(name))
		if errors.Is(err, plantstore.ErrMaybeCreated) { // a second plant, if the first was stored
			err = create(plantstore.NewID())
		}
		return err
	}},
	{"a settle on a spent context read as final", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		err := c.EnsurePlant(ctx, p)
		if errors.Is(err, plantstore.ErrMaybeCreated) {
			err = c.EnsurePlant(ctx, p) // on the same context, perhaps spent
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return errors.New("gave up: " + err.Error()) // read as not stored
		}
		return err
	}},
	{"a wait that a lost reply never ends", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		done := make(chan error)
		go func() {
			err := c.EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
			if !errors.Is(err, plantstore.ErrMaybeCreated) {
				done <- err // never, after an unknown outcome: the wait below hangs
			}
		}()
		return <-done
	}},
	{"a lock not released on the unknown-outcome path", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		v, _ := clientLocks.LoadOrStore(c, make(chan struct{}, 1)) // one lock per client: per run
		lock := v.(chan struct{})
		lock <- struct{}{}
		err := c.EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
		if errors.Is(err, plantstore.ErrMaybeCreated) {
			return err // the lock stays held: the next create waits for ever
		}
		<-lock
		return err
	}},
	{"an outer loop that gives up on ErrRetryBudgetExhausted as not stored", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		p := plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}
		for {
			err := c.EnsurePlant(ctx, p)
			if errors.Is(err, plantstore.ErrRetryBudgetExhausted) {
				return errors.New("the store is overloaded: gave up") // an earlier attempt may have stored it
			}
			if !errors.Is(err, plantstore.ErrMaybeCreated) || ctx.Err() != nil {
				return err
			}
		}
	}},
	{"a pending id kept in memory", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		return c.EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.NewID(), Name: name}) // a restart draws another
	}},
	{"the id persisted after the first send", func(ctx context.Context, c *plantstore.Client, d *plantstoretest.Disk, name string) error {
		v, ok := d.Load(name)
		if !ok {
			v = strconv.FormatInt(plantstore.NewID(), 10)
		}
		id, _ := strconv.ParseInt(v, 10, 64)
		err := c.EnsurePlant(ctx, plantstore.NewPlant{ID: id, Name: name})
		d.Store(name, v) // a crash at the send loses it
		return err
	}},
	{"a plain error read as not stored after a restart", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		return c.EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name}) // a 429 now says nothing of the life before
	}},
	{"a done mark written before the send", func(ctx context.Context, c *plantstore.Client, d *plantstoretest.Disk, name string) error {
		if v, _ := d.Load(name); v == "done" {
			return nil
		}
		d.Store(name, "done") // a crash as it sends leaves it done, and nothing stored
		return c.EnsurePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
	}},
	{"every error swallowed", func(ctx context.Context, c *plantstore.Client, _ *plantstoretest.Disk, name string) error {
		_, _ = c.CreatePlant(ctx, plantstore.NewPlant{ID: plantstore.IDFor(name), Name: name})
		return nil
	}},
}

// clientLocks is the lock of "a lock not released on the unknown-outcome
// path", one for each client, so one for each run.
var clientLocks sync.Map

// exploreChild names the consumer bug TestExploreChild explores, and
// scheduleChild the schedule TestReproduceChild runs it under.
const (
	exploreChild  = "PLANTSTORETEST_EXPLORE_BUG"
	scheduleChild = "PLANTSTORETEST_SCHEDULE"
)

// bugNamed returns the create path of the consumer bug name, or correct.
func bugNamed(name string) register {
	for _, b := range consumerBugs {
		if b.name == name {
			return b.reg
		}
	}
	return correct
}

// TestExploreChild runs Explore, with its defaults, on the create path
// that exploreChild names: only as a child of TestExploreFindsConsumerBugs,
// where failing is the point.
func TestExploreChild(t *testing.T) {
	name := os.Getenv(exploreChild)
	if name == "" {
		t.Skip("runs only as the child of TestExploreFindsConsumerBugs")
	}
	if name == "shrink" {
		// Stored is assumed when not known: it takes both attempts of a
		// call dropped, two faults, to show.
		seed, _ := strconv.ParseUint(os.Getenv(scheduleChild), 10, 64)
		plantstoretest.Explore(t, creates(bugNamed("ErrMaybeCreated read as stored")),
			plantstoretest.ExploreKinds("drop"), plantstoretest.ExploreSeed(seed))
		return
	}
	if name == "correct" {
		plantstoretest.Explore(t, creates(correct), plantstoretest.ExploreRuns(10_000))
		return
	}
	if name == "inventory" {
		plantstoretest.Explore(t, inventoryBatch, plantstoretest.ExploreRuns(10_000))
		return
	}
	plantstoretest.Explore(t, creates(bugNamed(name)))
}

// TestReproduceChild runs the scenario of exploreChild's create path ten
// times under the schedule scheduleChild gives, by the line Explore hands
// over, ExploreOnly: only as a child of TestExploreFindsConsumerBugs.
func TestReproduceChild(t *testing.T) {
	name := os.Getenv(exploreChild)
	if name == "" {
		t.Skip("runs only as the child of TestExploreFindsConsumerBugs")
	}
	for i := range 10 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			plantstoretest.Explore(t, creates(bugNamed(name)), plantstoretest.ExploreOnly(os.Getenv(scheduleChild)))
		})
	}
}

// reproduced matches a run of TestReproduceChild that failed.
var reproduced = regexp.MustCompile(`(?m)^\s*--- FAIL: TestReproduceChild/\d+ `)

// explored matches Explore's report of the schedule it found.
var explored = regexp.MustCompile(`the scenario fails under the schedule "([^"]*)" \((\d+) faults?, shrunk from (\d+), after (\d+) schedules?\)`)

// child runs the test binary's test named run with exploreChild set to
// bug and scheduleChild to schedule, and returns its output and whether
// it failed, and its wall time.
func child(t *testing.T, run, bug, schedule string) (out string, failed bool, took time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), exploreChild+"="+bug, scheduleChild+"="+schedule)
	start := time.Now()
	b, err := cmd.CombinedOutput()
	took = time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("the child did not run: %v\n%s", err, b)
	}
	return string(b), err != nil, took
}

// TestExploreFindsConsumerBugs runs Explore with its defaults on each
// consumer bug, in a child process, and checks that it fails and says
// why, that the schedule it hands over has at most three faults, and that
// the line it hands over, ExploreOnly, fails the scenario 10 times
// out of 10. The correct create path passes every schedule.
func TestExploreFindsConsumerBugs(t *testing.T) {
	testenv.Long(t) // a child process a bug: about 10 s under -race
	t.Parallel()
	for _, bug := range consumerBugs {
		t.Run(bug.name, func(t *testing.T) {
			out, failed, took := child(t, "TestExploreChild", bug.name, "")
			m := explored.FindStringSubmatch(out)
			if !failed || m == nil {
				t.Fatalf("Explore passed, or did not say which schedule fails (after %v):\n%s", took, out)
			}
			schedule, faults := m[1], m[2]
			t.Logf("found in %v (the child process included), after %s schedules: WithSchedule(%q), %s faults, shrunk from %s",
				took.Round(time.Millisecond), m[4], schedule, faults, m[3])
			if n, _ := strconv.Atoi(faults); n > 3 {
				t.Errorf("the schedule %q has %d faults, want at most 3", schedule, n)
			}
			if !regexp.MustCompile(`ExploreOnly\("` + regexp.QuoteMeta(schedule) + `"\).*whose waits take [0-9][0-9.hmµns]* of real time`).MatchString(out) {
				t.Errorf("the report does not hand over ExploreOnly(%q) and the real time of its waits:\n%s", schedule, out)
			}
			out, _, _ = child(t, "TestReproduceChild", bug.name, schedule)
			if n := len(reproduced.FindAllString(out, -1)); n != 10 {
				t.Errorf("ExploreOnly(%q) failed the scenario %d times of 10, want 10:\n%s", schedule, n, out)
			}
		})
	}
	t.Run("correct", func(t *testing.T) {
		out, failed, took := child(t, "TestExploreChild", "correct", "")
		if failed || !strings.Contains(out, "10000 schedules, no failure") {
			t.Fatalf("Explore failed the correct create path, or ran fewer than 10,000 schedules:\n%s", out)
		}
		t.Logf("10,000 schedules of five creates in %v: %.0f schedules a second, the child process included",
			took.Round(time.Millisecond), 10_000/took.Seconds())
	})
}

// inventoryBatch is examples/inventory's service given three plants in
// turn, on a client whose retry budget allows 10 retries in 10 seconds,
// as a tight deployment sets it: what must hold, unless the life crashed,
// is each plant stored once, or an error that says it is not known.
func inventoryBatch(t *testing.T, srv *plantstoretest.Server) {
	inv := inventory.New(srv.Client(plantstore.WithRetryBudget(0.2, 1)))
	errs := map[string]error{}
	for _, key := range []string{"orders/1", "orders/2", "orders/3"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		errs[key] = inv.Register(ctx, key, key, "")
		cancel()
	}
	if srv.Crashed() {
		return
	}
	stored := map[int64]int{}
	for _, p := range srv.Plants() {
		stored[p.ID]++
	}
	for key, err := range errs {
		n := stored[plantstore.IDFor(key)]
		if n > 1 || err == nil && n == 0 || err != nil && n > 0 && !errors.Is(err, plantstore.ErrMaybeCreated) {
			t.Errorf("Register(%q): %v, and stored %d times", key, err, n)
		}
	}
}

// TestExploreProvesInventory is issues 43's and 44's proof:
// examples/inventory's service passes 10,000 schedules of Explore's
// defaults, runs and crashes among them, and the pass reports that its
// calls reached every outcome class, restarts included.
func TestExploreProvesInventory(t *testing.T) {
	testenv.Long(t) // 10,000 schedules in a child process
	t.Parallel()
	out, failed, took := child(t, "TestExploreChild", "inventory", "")
	m := regexp.MustCompile(`10000 schedules, no failure; runs that reached each outcome: (.*)`).FindStringSubmatch(out)
	if failed || m == nil {
		t.Fatalf("Explore failed the inventory, or ran fewer than 10,000 schedules:\n%s", out)
	}
	if zero := regexp.MustCompile(`[A-Za-z ]+ 0(,|$)`).FindAllString(m[1], -1); len(zero) > 0 {
		t.Errorf("outcome classes no run reached: %q (of %s)", zero, m[1])
	}
	t.Logf("10,000 schedules in %v (the child process included): %s", took.Round(time.Millisecond), m[1])
}

// TestExploreCorrectPasses runs a short exploration of the correct create
// path, in the README's test command; TestExploreFindsConsumerBugs runs
// the long one.
func TestExploreCorrectPasses(t *testing.T) {
	for name, reg := range map[string]register{"derived": correct, "persisted": persisted} {
		t.Run(name, func(t *testing.T) { plantstoretest.Explore(t, creates(reg), plantstoretest.ExploreRuns(100)) })
	}
}

// TestExploreShrinks checks, for a bug that takes two faults to show, that
// Explore shrinks the three-fault schedule it first finds (seed 2) to two,
// the same two on every run, from which removing either fault makes the
// scenario pass.
func TestExploreShrinks(t *testing.T) {
	testenv.Long(t) // child processes
	t.Parallel()
	const bug = "ErrMaybeCreated read as stored"
	var first string
	for range 2 {
		out, _, _ := child(t, "TestExploreChild", "shrink", "4")
		m := explored.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("Explore did not say which schedule fails:\n%s", out)
		}
		if m[2] != "2" || m[3] != "3" {
			t.Errorf("the schedule %q has %s faults, shrunk from %s; want 2, from 3", m[1], m[2], m[3])
		}
		if first != "" && m[1] != first {
			t.Errorf("the same seed found %q, then %q: want the same", first, m[1])
		}
		first = m[1]
	}
	checkMinimal(t, bug, first)
	// A run of faults: shortening it at either end makes it pass.
	for _, bug := range []string{"a fresh id after an unknown outcome", "an outer loop that gives up on ErrRetryBudgetExhausted as not stored"} {
		out, _, _ := child(t, "TestExploreChild", bug, "")
		m := explored.FindStringSubmatch(out)
		if m == nil || !strings.Contains(m[1], "-") {
			t.Fatalf("Explore did not hand over a run of faults for %q:\n%s", bug, out)
		}
		checkMinimal(t, bug, m[1])
	}
}

// checkMinimal checks that schedule fails bug's scenario, and that removing
// any item, or shortening any run at either end, makes it pass.
func checkMinimal(t *testing.T, bug, schedule string) {
	t.Helper()
	if _, failed, _ := child(t, "TestReproduceChild", bug, schedule); !failed {
		t.Errorf("ExploreOnly(%q) passed, want it to fail", schedule)
	}
	items := strings.Split(schedule, ",")
	var smaller []string
	for i, item := range items {
		with := func(repl ...string) {
			smaller = append(smaller, strings.Join(slices.Concat(items[:i], repl, items[i+1:]), ","))
		}
		if len(items) > 1 {
			with()
		}
		var at, to int
		var kind string
		if n, _ := fmt.Sscanf(strings.Replace(item, ":", " ", 1), "%d-%d %s", &at, &to, &kind); n == 3 {
			kind = item[strings.Index(item, ":")+1:]
			with(fmt.Sprintf("%d-%d:%s", at+1, to, kind))
			with(fmt.Sprintf("%d-%d:%s", at, to-1, kind))
		}
	}
	for _, s := range smaller {
		if out, failed, _ := child(t, "TestReproduceChild", bug, s); failed {
			t.Errorf("ExploreOnly(%q), a step smaller than %q, fails too: the schedule is not minimal\n%s", s, schedule, out)
		}
	}
}

// TestExploreServer checks that ExploreServer's options reach the fake of
// every run, beside the run's schedule: each starts from the plant
// WithPlants seeds, and the schedules' faults still answer.
func TestExploreServer(t *testing.T) {
	seeded := plantstore.NewPlant{ID: 1, Name: "Seeded"}
	runs, faulted := 0, 0
	plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
		if got := srv.Plants(); len(got) == 0 || got[0] != seeded {
			t.Errorf("the run's fake holds %v, want %v first", got, seeded)
		}
		_ = srv.Client().EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		if srv.Life() > 1 { // a restart after a crash runs it again: the same run
			return
		}
		runs++
		if slices.ContainsFunc(srv.Requests(), func(r plantstoretest.Request) bool { return r.Fault != "" }) {
			faulted++
		}
	}, plantstoretest.ExploreServer(plantstoretest.WithPlants(seeded)), plantstoretest.ExploreRuns(20))
	// The fault-free run sends one request: the nine kinds on it answer,
	// and a fault placed on a request never sent does not.
	if runs != 20 || faulted < 9 {
		t.Errorf("Explore ran %d schedules, %d of them with a fault answering; want 20, and at least 9", runs, faulted)
	}
}

// misuseChild names the case of TestExploreMisuseChild to run.
const misuseChild = "PLANTSTORETEST_EXPLORE_MISUSE"

// oneCreate is a scenario that creates one plant and checks nothing.
func oneCreate(t *testing.T, srv *plantstoretest.Server) {
	_ = srv.Client().EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
}

// misuses are the calls of Explore that TestExploreMisuse checks, each
// beside the text it must fail with (or, for "every schedule", pass with).
var misuses = map[string]struct {
	call func(t *testing.T)
	want string
}{
	"runs 0":      {func(t *testing.T) { plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreRuns(0)) }, "ExploreRuns(0): want 1 or more"},
	"runs -5":     {func(t *testing.T) { plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreRuns(-5)) }, "ExploreRuns(-5): want 1 or more"},
	"traffic nil": {func(t *testing.T) { plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreTraffic(nil)) }, "ExploreTraffic(nil): want a recording"},
	"in a bubble": {func(t *testing.T) { synctest.Test(t, func(t *testing.T) { plantstoretest.Explore(t, oneCreate) }) }, "Explore called inside a synctest bubble"},
	"in its scenario": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, _ *plantstoretest.Server) { plantstoretest.Explore(t, oneCreate) })
	}, "Explore called inside a synctest bubble"},
	"skips every run": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, _ *plantstoretest.Server) { t.Skip("not today") })
	}, "the scenario skipped (t.Skip) every one of its 1000 runs"},
	"panics under a fault": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			p, err := srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
			if err != nil && !errors.Is(err, plantstore.ErrMaybeCreated) {
				return
			}
			_ = p.Name // a nil plant after an unknown outcome
		}, plantstoretest.ExploreKinds("store-drop"))
	}, `the scenario fails under the schedule "1:store-drop"`},
	"hangs on a lost reply": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			done := make(chan struct{})
			go func() {
				if _, err := srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"}); err == nil {
					close(done) // never, after a failure: the wait below hangs
				}
			}()
			<-done
		}, plantstoretest.ExploreKinds("drop"))
	}, `never returned (deadlock: all goroutines in bubble are blocked`},
	"a kind named twice": {func(t *testing.T) {
		plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreKinds("503", "503"), plantstoretest.ExploreRuns(1_000_000))
	}, "no failure; that is every schedule of up to 3 faults, or of one run and at most one fault beside it, on requests 1 to 5"},
	"a rare kind of a recording": {func(t *testing.T) {
		rec := &traffic.Recording{Outcomes: []traffic.Outcome{{Kind: traffic.Kind5xx, Status: 503, Count: 100_000}, {Kind: traffic.Kind429, Status: 429, Count: 3}}}
		plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreTraffic(rec), plantstoretest.ExploreRuns(200))
	}, " schedules, no failure"}, // drawn in the mix until misses end the search
	"never an unknown outcome": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			_, _ = srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		}, plantstoretest.ExploreKinds("429"), plantstoretest.ExploreRuns(20))
	}, "yet no call through the Server's Client or ProductionClient returned ErrMaybeCreated"},
	"an unknown outcome only in a crashed life": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			_, _ = srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		}, plantstoretest.ExploreKinds("429", "crash"), plantstoretest.ExploreRuns(20)) // no code saw the crash's
	}, "yet no call through the Server's Client or ProductionClient returned ErrMaybeCreated"},
	"never an unknown outcome, as stated": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			_, _ = srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"})
		}, plantstoretest.ExploreKinds("429"), plantstoretest.ExploreRuns(20), plantstoretest.ExploreNeverMaybeCreated())
	}, "20 schedules, no failure; runs that reached each outcome: stored 1"},
	"only the schedule found": {func(t *testing.T) {
		plantstoretest.Explore(t, creates(bugNamed("a fresh id after an unknown outcome")), plantstoretest.ExploreOnly("4-11:store-drop"))
	}, `fails under the schedule "4-11:store-drop"`},
	"only a schedule that does not parse": {func(t *testing.T) {
		plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreOnly("4-2:drop"))
	}, `ExploreOnly: schedule item "4-2:drop"`},
	"asks again for ever after a crash": {func(t *testing.T) {
		plantstoretest.Explore(t, func(t *testing.T, srv *plantstoretest.Server) {
			c, p := srv.Client(), plantstore.NewPlant{ID: 7, Name: "Fern"}
			for err := c.EnsurePlant(context.Background(), p); errors.Is(err, plantstore.ErrMaybeCreated); {
				err = c.EnsurePlant(context.Background(), p) // a dead process's client: not known, for ever
			}
		}, plantstoretest.ExploreOnly("1:crash"))
	}, "the process crashed (a crash fault), and its code sent 1001 requests since, and goes on: return when srv.Crashed()"},
	"every schedule, crashes among them": {func(t *testing.T) {
		plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreKinds("503", "crash"), plantstoretest.ExploreRuns(1_000_000))
	}, "no failure; that is every schedule of up to 3 faults, or of one run and at most one fault beside it, on requests 1 to 5"},
	"every schedule": {func(t *testing.T) {
		plantstoretest.Explore(t, oneCreate, plantstoretest.ExploreKinds("503"), plantstoretest.ExploreRuns(1_000_000))
	}, "no failure; that is every schedule of up to 3 faults, or of one run and at most one fault beside it, on requests 1 to 5"},
}

// TestExploreMisuseChild runs the case of misuses that misuseChild names:
// only as a child of TestExploreMisuse, where failing is the point.
func TestExploreMisuseChild(t *testing.T) {
	m, ok := misuses[os.Getenv(misuseChild)]
	if !ok {
		t.Skip("runs only as the child of TestExploreMisuse")
	}
	m.call(t)
}

// TestExploreMisuse checks, each in a child process, that a misuse of
// Explore fails the test with a message naming it, at the caller's line,
// where it crashed the binary, ran once and passed, or passed skipping
// everything; and that a search that ran every schedule stops and says so.
func TestExploreMisuse(t *testing.T) {
	t.Parallel()
	for name, m := range misuses {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestExploreMisuseChild$", "-test.v", "-test.timeout=2m")
			cmd.Env = append(os.Environ(), misuseChild+"="+name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("the child did not run: %v\n%s", err, out)
			}
			wantFail := !strings.Contains(m.want, "no failure")
			if failed := err != nil; failed != wantFail || !strings.Contains(string(out), m.want) || strings.Contains(string(out), "panic:") {
				t.Errorf("the child failed %v, want %v, saying %q without a panic:\n%s", failed, wantFail, m.want, out)
			}
			if wantFail && !regexp.MustCompile(`explore_go125_test\.go:\d+: plantstoretest: Explore`).Match(out) {
				t.Errorf("the failure is not reported at the caller's line:\n%s", out)
			}
		})
	}
}
