package plantstoretest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// TestCrash checks a schedule's crash from an ordinary test: request 2
// stores its plant ("crash") or not ("drop crash") and kills the process,
// whose clients then send nothing and whose Disk keeps nothing more, until
// Restart begins its second life, which keeps what the first stored before
// the crash.
func TestCrash(t *testing.T) {
	t.Parallel()
	for kind, plants := range map[string][]int64{"crash": {1, 2, 4}, "drop crash": {1, 4}} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testCrash(t, kind, plants)
		})
	}
}

// testCrash is TestCrash under "2:"+kind, which leaves plants stored.
func testCrash(t *testing.T, kind string, plants []int64) {
	srv := NewServer(t, WithSchedule("2:"+kind))
	c := srv.Client(plantstore.WithMaxRetries(0))
	disk := srv.Disk()
	create := func(id int64) error {
		_, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: id, Name: "Fern"})
		return err
	}
	disk.Store("before", "kept")
	if err := create(1); err != nil || srv.Crashed() || srv.Restart() {
		t.Fatalf("request 1: %v, crashed %v; want a plant stored, no crash, nothing to restart", err, srv.Crashed())
	}
	if err := create(2); !errors.Is(err, plantstore.ErrMaybeCreated) || !srv.Crashed() {
		t.Fatalf("request 2, the crash: %v, crashed %v; want ErrMaybeCreated and a crash", err, srv.Crashed())
	}
	disk.Store("after", "lost")
	if err := create(3); !errors.Is(err, errCrashed) {
		t.Errorf("a create of the dead process: %v, want errCrashed", err)
	}
	if !srv.Restart() || srv.Restart() || srv.Crashed() || srv.Life() != 2 {
		t.Fatalf("Restart after the crash: life %d, crashed %v; want life 2, one restart", srv.Life(), srv.Crashed())
	}
	kept, ok1 := disk.Load("before")
	_, ok2 := disk.Load("after")
	if kept != "kept" || !ok1 || ok2 {
		t.Errorf("the disk after the restart: before %q (%v), after present %v; want what was stored before the crash only", kept, ok1, ok2)
	}
	if err := create(4); !errors.Is(err, errCrashed) {
		t.Errorf("a create of the first life's client after the restart: %v, want errCrashed", err)
	}
	disk.Store("ghost", "of the first life")
	if _, ok := srv.Disk().Load("ghost"); ok {
		t.Error("the first life's Disk stored after the restart")
	}
	c = srv.Client(plantstore.WithMaxRetries(0)) // the second life's
	if err := create(4); err != nil {
		t.Errorf("a create of the second life: %v", err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Fault)
	}
	if diff := cmp.Diff([]string{"", "schedule 2:" + kind, ""}, got); diff != "" {
		t.Errorf("the journal's faults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plants, ids(srv.Plants())); diff != "" {
		t.Errorf("the stored plants (-want +got):\n%s", diff)
	}
}

// ids returns the plants' ids.
func ids(plants []plantstore.NewPlant) []int64 {
	var out []int64
	for _, p := range plants {
		out = append(out, p.ID)
	}
	return out
}

// TestDiskLoadOrStore: of two lives' LoadOrStore of one key, the first
// stores; one of a crashed life stores nothing.
func TestDiskLoadOrStore(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, WithSchedule("1:crash"))
	disk := srv.Disk()
	if v, loaded := disk.LoadOrStore("k", "1"); v != "1" || loaded {
		t.Errorf("LoadOrStore of a new key = %q, %v; want 1, false", v, loaded)
	}
	if v, loaded := disk.LoadOrStore("k", "2"); v != "1" || !loaded {
		t.Errorf("LoadOrStore of a stored key = %q, %v; want 1, true", v, loaded)
	}
	_, _ = srv.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	if v, loaded := disk.LoadOrStore("j", "3"); v != "3" || loaded {
		t.Errorf("LoadOrStore after the crash = %q, %v; want 3, false", v, loaded)
	}
	if _, ok := disk.Load("j"); ok || !srv.Crashed() {
		t.Errorf("a crashed life's LoadOrStore stored (crashed %v)", srv.Crashed())
	}
}

// TestCrashRefusedWithoutSchedule: a Server made without WithSchedule,
// whose clients a crash could not stop, refuses one; WithSchedule("")
// takes it, and so does a Handler, which has no clients.
func TestCrashRefusedWithoutSchedule(t *testing.T) {
	t.Parallel()
	crash := Fault{Store: true, Drop: true, Crash: true}
	plain := NewServer(t)
	if _, err := plain.AddFault(crash); !errors.Is(err, errCrashless) {
		t.Errorf("AddFault(crash) without WithSchedule: %v, want errCrashless", err)
	}
	if err := plain.SetSchedule("1:crash"); !errors.Is(err, errCrashless) {
		t.Errorf("SetSchedule(1:crash) without WithSchedule: %v, want errCrashless", err)
	}
	if err := NewServer(t, WithSchedule("")).SetSchedule("1:crash"); err != nil {
		t.Errorf("SetSchedule(1:crash) under WithSchedule(\"\"): %v", err)
	}
	if _, err := NewHandler().AddFault(crash); err != nil {
		t.Errorf("a Handler's AddFault(crash): %v", err)
	}
}

// TestCrashLoop: a run of crashes, "1-2:crash", kills each life at its
// first request in the run: life 1 at request 1, life 2 at request 2, and
// life 3 creates; Reset leaves a crash standing until Restart.
func TestCrashLoop(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, WithSchedule("1-2:crash"))
	var lives []string
	for {
		_, err := srv.Client(plantstore.WithMaxRetries(0)).CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(srv.Life()), Name: "Fern"})
		lives = append(lives, fmt.Sprintf("life %d: crashed %v, err %v", srv.Life(), srv.Crashed(), err != nil))
		if srv.Crashed() {
			srv.Reset()
			if !srv.Crashed() {
				t.Fatal("Reset ended the crash")
			}
		}
		if !srv.Restart() {
			break
		}
	}
	want := []string{"life 1: crashed true, err true", "life 2: crashed true, err true", "life 3: crashed false, err false"}
	if diff := cmp.Diff(want, lives); diff != "" {
		t.Errorf("the lives of 1-2:crash (-want +got):\n%s", diff)
	}
}

// TestCrashNeedsDrop: a Fault with Crash and no Drop is refused, as
// Fault's doc says: a dead process hears no answer.
func TestCrashNeedsDrop(t *testing.T) {
	t.Parallel()
	for _, f := range []Fault{{Crash: true}, {Store: true, Crash: true}, {Crash: true, Status: 503}} {
		if _, err := NewHandler().AddFault(f); err == nil || !strings.Contains(err.Error(), "Crash needs Drop") {
			t.Errorf("AddFault(%+v) = %v, want the error that Crash needs Drop", f, err)
		}
	}
}
