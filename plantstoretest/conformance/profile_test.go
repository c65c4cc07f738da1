package conformance_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// The bounds plantstoretest.Profile's doc states: a reply's body, and its
// other text.
const maxProfileBody, maxProfileField = 16 << 10, 1 << 10

// TestProfileLoads takes a profile from a report of what a hostile target
// could answer, the longest answers a profile holds and answers too long,
// and checks that it keeps what a profile can hold and, written as JSON,
// loads again unchanged.
func TestProfileLoads(t *testing.T) {
	t.Parallel()
	page := strings.Repeat("<&>", maxProfileBody/3)
	recorded := func(id string, answer map[string]string) conformance.CheckResult {
		return conformance.CheckResult{ID: id, Tag: conformance.Observed, Outcome: conformance.Recorded, Answer: answer}
	}
	rep := conformance.Report{
		Target: "http://127.0.0.1:1/" + strings.Repeat("x", maxProfileField),
		Checks: []conformance.CheckResult{
			recorded("duplicate-id", map[string]string{"status": "409", "content_type": "text/html", "body": page}),
			recorded("auth-missing", map[string]string{"status": "401", "body": page, "challenge": strings.Repeat("<", maxProfileField)}),
			recorded("auth-wrong-scheme", map[string]string{"status": "401", "body": page, "challenge": strings.Repeat("b", maxProfileField+1)}),
			recorded("auth-wrong-token", map[string]string{"status": "401", "body": "\xff"}),
		},
	}
	want := plantstoretest.Profile{
		DuplicateID: &plantstoretest.ProfileReply{Status: 409, ContentType: "text/html", Body: page},
		AuthMissing: &plantstoretest.ProfileReply{Status: 401, Body: page, Challenge: strings.Repeat("<", maxProfileField)},
	}
	p := rep.Profile()
	if diff := cmp.Diff(want, p); diff != "" {
		t.Fatalf("Report.Profile (-want +got):\n%s", diff)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got, err := plantstoretest.ParseProfile(data)
	if err != nil {
		t.Fatalf("ParseProfile of the report's profile, %d bytes: %v", len(data), err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("the profile loaded again (-written +loaded):\n%s", diff)
	}
}
