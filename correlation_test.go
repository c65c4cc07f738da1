package plantstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestFakeTellsARetryFromANewCreate checks the correlation headers where
// a service sees them: in the fake's journal, a retry of a create that may
// have stored the plant carries the same request id and a higher retry
// count, and a second create of the same plant a new id.
func TestFakeTellsARetryFromANewCreate(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithAllowDuplicateIDs())
	srv.Inject(plantstoretest.Fault{Store: true, Drop: true})
	client := srv.Client(plantstore.WithRetryBackoff(0, 0))
	p := plantstore.NewPlant{ID: 7, Name: "Monstera"}
	var first, second plantstore.CallInfo
	if _, err := client.CreatePlant(context.Background(), p, plantstore.WithCallInfo(&first)); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", p, err)
	}
	if _, err := client.CreatePlant(context.Background(), p, plantstore.WithCallInfo(&second)); err != nil {
		t.Fatalf("second CreatePlant(%+v) error: %v", p, err)
	}
	type seen struct {
		RequestID  string
		RetryCount int
	}
	var got []seen
	for _, r := range srv.Requests() {
		got = append(got, seen{r.RequestID, r.RetryCount})
	}
	want := []seen{{first.RequestID, 0}, {first.RequestID, 1}, {second.RequestID, 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}
	if first.RequestID == second.RequestID {
		t.Errorf("two calls sent the same request id %q", first.RequestID)
	}
}
