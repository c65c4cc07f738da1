package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// scheduleOf returns a schedule text of exactly n characters: faults on
// requests 1, 2, ..., then spaces, which the schedule's syntax allows
// around an item.
func scheduleOf(n int) string {
	var b strings.Builder
	for i := 1; ; i++ {
		item := fmt.Sprintf("%d:503", i)
		if i > 1 {
			item = "," + item
		}
		if b.Len()+len(item) > n {
			break
		}
		b.WriteString(item)
	}
	return b.String() + strings.Repeat(" ", n-b.Len())
}

// TestScheduleControl checks PUT and GET /__plantstore/schedule: a PUT
// takes the longest schedule its document's maxLength allows, refuses a
// longer one and one the budget has no room for, keeping the schedule in
// force, and GET reads the schedule in force as PUT takes it.
func TestScheduleControl(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t, plantstoretest.WithBudget(plantstoretest.NewBudget(1<<20)))
	put := func(text string) reply {
		t.Helper()
		b, err := json.Marshal(map[string]string{"schedule": text})
		if err != nil {
			t.Fatal(err)
		}
		return call(t, srv, "PUT", "/__plantstore/schedule", b, "")
	}
	get := func() string {
		t.Helper()
		rep := call(t, srv, "GET", "/__plantstore/schedule", nil, "")
		if rep.status != http.StatusOK {
			t.Fatalf("GET /__plantstore/schedule = %d %s, want 200", rep.status, rep.body)
		}
		got := decode[scheduleBody](t, rep).Schedule
		if got == nil {
			t.Fatalf("GET /__plantstore/schedule = %s, without \"schedule\"", rep.body)
		}
		return *got
	}
	if got := get(); got != "" {
		t.Errorf("GET /__plantstore/schedule with none = %q, want \"\"", got)
	}
	if rep := put(" 2:drop, 1:503"); rep.status != http.StatusNoContent {
		t.Fatalf("PUT 2:drop, 1:503 = %d %s, want 204", rep.status, rep.body)
	}
	if got := get(); got != "1:503,2:drop" {
		t.Errorf("GET /__plantstore/schedule = %q, want 1:503,2:drop: its faults in the order of their requests", got)
	}

	longest := scheduleOf(maxScheduleText)
	if rep := put(longest); rep.status != http.StatusNoContent {
		t.Fatalf("PUT a schedule of %d characters, its document's maxLength = %d %.200s, want 204", len(longest), rep.status, rep.body)
	}
	if got := get(); got != h.Schedule() || !strings.HasPrefix(got, "1:503,2:503,") {
		t.Errorf("GET /__plantstore/schedule = %.40q…, want the Handler's, %.40q…", got, h.Schedule())
	}
	wantError(t, "PUT a schedule a character longer", put(longest+" "), http.StatusBadRequest, CodeBadControlRequest,
		"65537 characters", "at most 65536")
	b, _ := json.Marshal(map[string]string{"schedule": longest + strings.Repeat(" ", 2000)})
	wantError(t, "PUT a body over the limit", call(t, srv, "PUT", "/__plantstore/schedule", b, ""),
		http.StatusRequestEntityTooLarge, plantstoretest.CodeTooLarge)

	// One the budget has no room for.
	full, fh := openMock(t, plantstoretest.WithBudget(plantstoretest.NewBudget(4<<10)))
	if rep := call(t, full, "PUT", "/__plantstore/schedule", []byte(`{"schedule": "7:429"}`), ""); rep.status != http.StatusNoContent {
		t.Fatalf("PUT 7:429 = %d %s, want 204", rep.status, rep.body)
	}
	b, _ = json.Marshal(map[string]string{"schedule": longest})
	wantError(t, "PUT a schedule over the budget", call(t, full, "PUT", "/__plantstore/schedule", b, ""),
		http.StatusBadRequest, plantstoretest.CodeStoreFull, "-max-stored-mib")
	if got := fh.Schedule(); got != "7:429" {
		t.Errorf("the schedule after one refused = %q, want the one before, 7:429", got)
	}
}

// TestScheduleLimitIsDocumented checks that the control API's document
// gives the schedule the maxLength that the mock holds it to.
func TestScheduleLimitIsDocumented(t *testing.T) {
	t.Parallel()
	doc := string(controlDocument)
	start := strings.Index(doc, "\n    Schedule:\n")
	if start < 0 {
		t.Fatal("control.openapi.yaml has no schema Schedule")
	}
	var schema strings.Builder // its lines, indented more than its name
	for _, line := range strings.Split(doc[start+len("\n    Schedule:\n"):], "\n") {
		if !strings.HasPrefix(line, "      ") {
			break
		}
		schema.WriteString(line + "\n")
	}
	if want := "maxLength: " + strconv.Itoa(maxScheduleText) + "\n"; !strings.Contains(schema.String(), want) {
		t.Errorf("control.openapi.yaml's schema Schedule does not say %q:\n%s", want, schema.String())
	}
}
