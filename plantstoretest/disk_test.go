package plantstoretest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

// TestCrash checks a schedule's crash from an ordinary test: request 2
// stores its plant and kills the process, whose clients then send nothing
// and whose Disk keeps nothing more, until Restart begins its second life,
// which keeps what the first stored before the crash.
func TestCrash(t *testing.T) {
	t.Parallel()
	srv := NewServer(t, WithSchedule("2:crash"))
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
	if err := create(4); err != nil {
		t.Errorf("a create of the second life: %v", err)
	}
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Fault)
	}
	if diff := cmp.Diff([]string{"", "schedule 2:crash", ""}, got); diff != "" {
		t.Errorf("the journal's faults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1, 2, 4}, ids(srv.Plants())); diff != "" {
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
