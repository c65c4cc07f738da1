package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// A test that holds a deployment to the specification. Live says that it
// is a real deployment, where the run leaves up to 10 plants behind.
func ExampleRun() {
	_ = func(t *testing.T) {
		url := os.Getenv("PLANTSTORE_URL")
		if url == "" {
			t.Skip("PLANTSTORE_URL is not set")
		}
		conformance.Run(t, conformance.Target{
			URL:   url,
			Token: os.Getenv("PLANTSTORE_TOKEN"),
			Live:  true,
		})
	}
}

// A report of a run against the fake itself: every spec check passes, and
// no observed answer differs from the reference.
func ExampleRunReport() {
	h := plantstoretest.NewHandler()
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()

	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("passed:", rep.Passed, "differences:", rep.Differences)
	fmt.Println("duplicate-id:", rep.Check("duplicate-id").Answer["status"], rep.Check("duplicate-id").Answer["body"])
	// Output:
	// passed: true differences: []
	// duplicate-id: 400 {"error":5,"message":"plant {id} already exists"}
}

// Calibration: the profile of a report, as plantstore-mock conformance
// -profile-out writes it, to give to plantstoretest.WithProfile or
// plantstore-mock -profile.
func ExampleReport_Profile() {
	h := plantstoretest.NewHandler()
	defer h.Close()
	srv := httptest.NewServer(h)
	defer srv.Close()
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken})
	if err != nil {
		log.Fatal(err)
	}
	p := rep.Profile()
	p.Source = "" // the URL differs from run to run
	b, _ := json.MarshalIndent(p.DuplicateID, "", "  ")
	fmt.Println(string(b))
	status, code, _ := p.DuplicateIDError()
	fmt.Println("repeated id:", status, code)
	// Output:
	// {
	//   "status": 400,
	//   "content_type": "application/json",
	//   "body": "{\"error\":5,\"message\":\"plant {id} already exists\"}"
	// }
	// repeated id: 400 5
}
