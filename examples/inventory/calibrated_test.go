package inventory_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/plantstore/plantstore-go/examples/inventory"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// deployment is the calibration of a deployment that answers a repeated id
// with 409 and its own code, as plantstore-mock conformance -profile-out
// writes it.
const deployment = `{
	"source": "https://plants.example.com",
	"duplicate_id": {"status": 409, "content_type": "application/json",
	                 "body": "{\"error\":1009,\"message\":\"id {id} is taken\"}"}
}`

// calibratedFake returns a fake calibrated to answer like deployment: its
// clients take the calibration's answer to a repeated id, as a production
// client takes the status and code of profile.DuplicateIDError() with
// plantstore.WithAlreadyExists.
func calibratedFake(t *testing.T) *plantstoretest.Server {
	t.Helper()
	profile, err := plantstoretest.ParseProfile([]byte(deployment))
	if err != nil {
		t.Fatal(err)
	}
	return plantstoretest.NewServer(t, plantstoretest.WithProfile(profile))
}

// TestRegisterCalibrated settles a create whose answer was lost against a
// fake calibrated to answer like the deployment, with the duplicate answer
// taken from the calibration rather than from the operators.
func TestRegisterCalibrated(t *testing.T) {
	t.Parallel()
	srv := calibratedFake(t)
	srv.Inject(plantstoretest.Fault{Store: true, Drop: true})
	inv := inventory.New(srv.Client())
	if err := inv.Register(context.Background(), "orders/7", "Fern", ""); err != nil {
		t.Fatalf("Register after a lost answer: %v", err)
	}
	if err := inv.Register(context.Background(), "orders/7", "Fern", ""); err != nil {
		t.Fatalf("Register again: %v", err)
	}
	if got := srv.Plants(); len(got) != 1 {
		t.Errorf("stored %v, want the fern once", got)
	}
}

// TestRegisterCalibratedOtherStatus checks that only the calibrated status
// with the duplicate code counts as "already stored": a deployment that
// uses one code for many refusals answers a 403 with it too, and that 403
// stored nothing.
func TestRegisterCalibratedOtherStatus(t *testing.T) {
	t.Parallel()
	srv := calibratedFake(t)
	srv.Inject(plantstoretest.Fault{Status: http.StatusForbidden, Body: []byte(`{"error":1009,"message":"forbidden"}`)})
	inv := inventory.New(srv.Client())
	if err := inv.Register(context.Background(), "orders/8", "Ivy", ""); err == nil {
		t.Errorf("Register answered 403 with the duplicate code = nil, want an error: nothing is stored (%v)", srv.Plants())
	}
}
