package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func TestAddFaultServesTheFault(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	rep := call(t, srv, "POST", "/__plantstore/faults", []byte(`{
		"status": 503,
		"headers": {"Retry-After": "2", "x-multi": ["a", "b"]},
		"body": "{\"error\": 42, \"message\": \"busy\"}",
		"times": 2,
		"match": {"name": "Fern"}
	}`), "")
	if rep.status != http.StatusCreated {
		t.Fatalf("POST faults = %d %s, want 201", rep.status, rep.body)
	}
	body := `{"error": 42, "message": "busy"}`
	fern := "Fern"
	want := faultStatusJSON{
		ID: 1, Kind: "503 retry-after=2", Status: 503,
		Headers: map[string][]string{"Retry-After": {"2"}, "X-Multi": {"a", "b"}},
		Body:    &body, Delay: "0s", Match: &matchJSON{Name: &fern}, Times: 2, Left: 2,
	}
	if diff := cmp.Diff(want, decode[faultStatusJSON](t, rep)); diff != "" {
		t.Errorf("POST faults reply mismatch (-want +got):\n%s", diff)
	}

	// Ivy does not match; Fern does, twice.
	if rep := create(t, srv, plantstore.NewPlant{ID: 1, Name: "Ivy"}); rep.status != 200 {
		t.Errorf("create Ivy = %d, want 200: the fault matches Fern only", rep.status)
	}
	rep = create(t, srv, plantstore.NewPlant{ID: 2, Name: "Fern"})
	if rep.status != 503 || rep.header.Get("Retry-After") != "2" || string(rep.body) != body ||
		!cmp.Equal(rep.header.Values("X-Multi"), []string{"a", "b"}) {
		t.Errorf("create Fern = %d %v %s, want the scripted 503", rep.status, rep.header, rep.body)
	}
	want.Left = 1
	if diff := cmp.Diff([]faultStatusJSON{want}, decode[[]faultStatusJSON](t, call(t, srv, "GET", "/__plantstore/faults", nil, ""))); diff != "" {
		t.Errorf("GET faults after one use mismatch (-want +got):\n%s", diff)
	}
	create(t, srv, plantstore.NewPlant{ID: 3, Name: "Fern"})
	if got := decode[[]faultStatusJSON](t, call(t, srv, "GET", "/__plantstore/faults", nil, "")); len(got) != 0 {
		t.Errorf("GET faults once used up = %+v, want []", got)
	}
	if got := len(h.Plants()); got != 1 {
		t.Errorf("stored %d plants, want 1 (Ivy): the faults had no store", got)
	}
}

func TestAddFaultKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		fault      string
		wantStatus int // 0: the connection drops
		wantStored int
		goAway     bool // the connection takes no more requests (HTTP/1.1: Connection: close)
	}{
		{"drop", `{"drop": true}`, 0, 0, false},
		{"store then drop", `{"store": true, "drop": true}`, 0, 1, false},
		{"delay then the usual reply", `{"delay": "1ms", "headers": {"X-Slow": "yes"}}`, 200, 1, false},
		{"empty body", `{"status": 500, "body": ""}`, 500, 0, false},
		{"match by id and tag", `{"status": 418, "match": {"id": 1, "tag": "t"}}`, 418, 0, false},
		{"goaway with the usual reply", `{"goaway": true}`, 200, 1, true},
		{"goaway with a 503", `{"status": 503, "goaway": true}`, 503, 0, true},
		{"kind store-drop", `{"kind": "store-drop"}`, 0, 1, false},
		{"kind with a match", `{"kind": "418 goaway", "match": {"id": 1}}`, 418, 0, true},
		{"kind delay after", `{"kind": "delay after=1ms"}`, 200, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, h := openMock(t)
			rep := call(t, srv, "POST", "/__plantstore/faults", []byte(tt.fault), "")
			if rep.status != 201 {
				t.Fatalf("POST faults %s = %d %s, want 201", tt.fault, rep.status, rep.body)
			}
			if got := decode[faultStatusJSON](t, rep).GoAway; got != tt.goAway {
				t.Errorf("POST faults %s answered goaway %v, want %v", tt.fault, got, tt.goAway)
			}
			req, _ := http.NewRequest("POST", srv.URL+"/plants", strings.NewReader(`{"id": 1, "name": "Fern", "tag": "t"}`))
			req.Header.Set("Authorization", "Bearer "+apiToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			switch {
			case tt.wantStatus == 0 && err == nil:
				resp.Body.Close()
				t.Errorf("create = %d, want a dropped connection", resp.StatusCode)
			case tt.wantStatus != 0 && err != nil:
				t.Errorf("create error = %v, want %d", err, tt.wantStatus)
			case err == nil:
				resp.Body.Close()
				if resp.StatusCode != tt.wantStatus || resp.Close != tt.goAway {
					t.Errorf("create = %d, closing the connection %v; want %d, %v", resp.StatusCode, resp.Close, tt.wantStatus, tt.goAway)
				}
			}
			if got := len(h.Plants()); got != tt.wantStored {
				t.Errorf("stored %d plants, want %d", got, tt.wantStored)
			}
		})
	}
}

func TestAddFaultMatchesByMethodAndPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		match string
		// The statuses of GET /plants (405 unless the fault answers),
		// GET /other (404), a create of Fern and a create of Ivy (200).
		want [4]int
	}{
		{"method", `{"method": "GET"}`, [4]int{503, 503, 200, 200}},
		{"path", `{"path": "/other"}`, [4]int{405, 503, 200, 200}},
		{"method and path", `{"method": "GET", "path": "/plants"}`, [4]int{503, 404, 200, 200}},
		{"operation and plant", `{"method": "POST", "path": "/plants", "name": "Fern"}`, [4]int{405, 404, 503, 200}},
		// GET /plants carries no plant, so not even the zero id matches it.
		{"plant on a request without one", `{"method": "GET", "id": 0}`, [4]int{405, 404, 200, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _ := openMock(t)
			fault := `{"status": 503, "times": 4, "match": ` + tt.match + `}`
			rep := call(t, srv, "POST", "/__plantstore/faults", []byte(fault), "")
			if rep.status != http.StatusCreated {
				t.Fatalf("POST faults %s = %d %s, want 201", fault, rep.status, rep.body)
			}
			var wantMatch matchJSON
			if err := json.Unmarshal([]byte(tt.match), &wantMatch); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&wantMatch, decode[faultStatusJSON](t, rep).Match); diff != "" {
				t.Errorf("POST faults reply's match (-want +got):\n%s", diff)
			}
			got := [4]int{
				call(t, srv, "GET", "/plants", nil, apiToken).status,
				call(t, srv, "GET", "/other", nil, apiToken).status,
				create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"}).status,
				create(t, srv, plantstore.NewPlant{ID: 2, Name: "Ivy"}).status,
			}
			if got != tt.want {
				t.Errorf("statuses of GET /plants, GET /other, create Fern, create Ivy = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMatchOnARequestWithoutAPlant checks matches on requests the mock
// cannot produce today: a valid request to an operation that takes no
// plant, whose Plant is the zero NewPlant.
func TestMatchOnARequestWithoutAPlant(t *testing.T) {
	t.Parallel()
	list := plantstoretest.Request{Method: "GET", Path: "/plants"} // passed every check
	fern := plantstoretest.Request{Method: "POST", Path: "/plants", Plant: plantstore.NewPlant{ID: 0, Name: "Fern"}}
	tests := []struct {
		match    string
		wantList bool
		wantFern bool
	}{
		{`{"method": "GET"}`, true, false},
		{`{"path": "/plants"}`, true, true},
		{`{"id": 0}`, false, true},
		{`{"method": "GET", "id": 0}`, false, false},
		{`{"tag": ""}`, false, true},
	}
	for _, tt := range tests {
		var m matchJSON
		if err := json.Unmarshal([]byte(tt.match), &m); err != nil {
			t.Fatal(err)
		}
		if got := m.fn()(list); got != tt.wantList {
			t.Errorf("match %s on a valid GET /plants = %v, want %v", tt.match, got, tt.wantList)
		}
		if got := m.fn()(fern); got != tt.wantFern {
			t.Errorf("match %s on a create of Fern with id 0 = %v, want %v", tt.match, got, tt.wantFern)
		}
	}
}

// TestAddFaultRejectsInJSONTerms checks that a fault the Handler refuses is
// refused with a message naming the JSON fields the user posted, not the
// Go fields of plantstoretest.Fault that Inject's message names.
func TestAddFaultRejectsInJSONTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, want string
	}{
		{"hang and drop", `{"hang": true, "drop": true}`, `invalid fault: "hang" and "drop" are alternatives; set one`},
		{"status out of range", `{"status": 99}`, `invalid fault: "status" is 99, want 0 or 200 to 599`},
		{"status with drop", `{"status": 503, "drop": true}`, `invalid fault: a fault with "hang" or "drop" sends no reply, so "status" must be left out`},
		{"headers with hang", `{"hang": true, "headers": {"X-A": "1"}}`, `invalid fault: a fault with "hang" or "drop" sends no reply, so "headers" and "body" must be left out`},
		{"body without status", `{"body": "x"}`, `invalid fault: "body" needs a "status"`},
		{"negative times", `{"status": 503, "times": -1}`, `invalid fault: "times" is -1, want 0 or more`},
		{"negative delay", `{"delay": "-1s"}`, `invalid fault: "delay" is -1s, want 0 or more`},
		{"hang with delay", `{"hang": true, "delay": "1s"}`, `invalid fault: a fault with "hang" never replies, so "delay" must be left out`},
		{"store alone", `{"store": true}`, `invalid fault: "store" alone changes nothing; add "status", "headers", "delay", "hang", "drop" or "goaway"`},
		{"goaway with drop", `{"goaway": true, "drop": true}`, `invalid fault: "goaway" goes with a reply, and "hang" and "drop" send none; set one`},
		{"kind unknown", `{"kind": "fetch"}`, `fault "fetch": "fetch" is no kind: want 503, 429, another status from 200 to 599, drop, hang, delay, goaway, reply or crash, with store- before it to store first`},
		{"kind and status", `{"kind": "503", "status": 500}`, "kind names the whole fault: leave out status, headers, body, delay, hang, drop, goaway and store, or kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, h := openMock(t)
			rep := call(t, srv, "POST", "/__plantstore/faults", []byte(tt.json), "")
			wantError(t, "POST faults "+tt.json, rep, 400, CodeBadControlRequest)
			if got := decode[plantstoretest.ErrorBody](t, rep).Message; got != tt.want {
				t.Errorf("POST faults %s: message\n%q, want\n%q", tt.json, got, tt.want)
			}
			if got := h.Faults(); len(got) != 0 {
				t.Errorf("faults after a refused POST = %+v, want none", got)
			}
		})
	}
}

// TestFaultMessagesNameEveryField checks that the translation of the
// Handler's fault messages knows every field of plantstoretest.Fault, so
// that a message about a field added later cannot reach a JSON user in Go
// terms.
func TestFaultMessagesNameEveryField(t *testing.T) {
	typ := reflect.TypeFor[plantstoretest.Fault]()
	for i := 0; i < typ.NumField(); i++ {
		name := typ.Field(i).Name
		got := jsonFaultMessage(errors.New("plantstoretest: invalid Fault: " + name + " is wrong"))
		if strings.Contains(got, name) || !strings.HasPrefix(got, "invalid fault: \"") {
			t.Errorf("the message about Fault.%s reads %q in the control API, want the JSON field quoted", name, got)
		}
	}
}

func TestAddFaultRejectsBadJSONFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json string
		code int32
		msg  string
	}{
		{`{"status": "503"}`, plantstoretest.CodeInvalidJSON, `field "status": want an integer, got JSON string`},
		{`{"status": 503.5}`, plantstoretest.CodeInvalidJSON, `field "status": want an integer`},
		{`{"statsu": 503}`, plantstoretest.CodeInvalidJSON, `unknown field "statsu"`},
		{`{"match": {"nmae": "Fern"}}`, plantstoretest.CodeInvalidJSON, `unknown field "nmae"`},
		{`{"match": {"id": 1.5}}`, plantstoretest.CodeInvalidJSON, `field "match.id": want an integer`},
		{`{"status": 503, "match": {}}`, CodeBadControlRequest, "match names none of method, path, id, name and tag"},
		{`{"status": 503, "match": {"method": ""}}`, CodeBadControlRequest, `match.method "" is not an HTTP method`},
		{`{"status": 503, "match": {"method": "GE T"}}`, CodeBadControlRequest, `match.method "GE T" is not an HTTP method`},
		{`{"status": 503, "match": {"path": "plants"}}`, CodeBadControlRequest, `match.path "plants" must start with /`},
		{`{"status": 503, "match": {"path": 1}}`, plantstoretest.CodeInvalidJSON, `field "match.path": want a string`},
		{`{"delay": "soon"}`, CodeBadControlRequest, `delay "soon" is not a Go duration`},
		{`{"delay": 250}`, plantstoretest.CodeInvalidJSON, `field "delay": want a string`},
		{`{"status": 503, "body": 5}`, plantstoretest.CodeInvalidJSON, `field "body": want a string, got JSON number`},
		{`{"status": 503, "body": ["x"]}`, plantstoretest.CodeInvalidJSON, `field "body": want a string, got JSON array`},
		{`{"status": 503, "headers": {"Bad Name": "x"}}`, CodeBadControlRequest, `"Bad Name" is not a valid header name`},
		{`{"status": 503, "headers": {"X": "a\r\nInjected: 1"}}`, CodeBadControlRequest, `"X": a value holds a control character`},
		{`{"status": 503, "headers": {"X": 1}}`, CodeBadControlRequest, `"X": want a string or a non-empty array of strings`},
		{`{"status": 503, "headers": {"X": []}}`, CodeBadControlRequest, `"X": want a string or a non-empty array of strings`},
		{`{"status": 503, "headers": {"X": [1]}}`, CodeBadControlRequest, `"X": want a string or a non-empty array of strings`},
		{`{"status": 503, "headers": {"x-a": "1", "X-A": "2"}}`, CodeBadControlRequest, `"X-A" and "x-a" name the same header`},
		{`{"status": 503, "headers": {"X": null}}`, CodeBadControlRequest, `"X": want a string or a non-empty array of strings`},
		{`{"status": 503, "headers": {"X": [null]}}`, CodeBadControlRequest, `"X": want a string or a non-empty array of strings`},
		{`{"status": 503, "headers": []}`, plantstoretest.CodeInvalidJSON, `field "headers": want an object`},
		{`{"status": 503} {}`, plantstoretest.CodeInvalidJSON, "data after the value"},
		{`[]`, plantstoretest.CodeInvalidJSON, "want an object, got JSON array"},
		{` null `, plantstoretest.CodeInvalidJSON, "want an object, got JSON null"},
		// One strictness rule for every body, as POST /plants: a repeated
		// field is refused, not taken last-wins.
		{`{"status": 503, "status": 200}`, plantstoretest.CodeInvalidJSON, `field "status" appears more than once`},
		{`{"status": 503, "st\u0061tus": 200}`, plantstoretest.CodeInvalidJSON, `field "status" appears more than once`},
		{`{"status": 503, "headers": {"X-A": "1", "X-A": "2"}}`, plantstoretest.CodeInvalidJSON, `field "X-A" appears more than once`},
		{`{"status": 503, "body": "\ud800"}`, plantstoretest.CodeInvalidJSON, `unpaired surrogate escape \ud800`},
		{`{"status": 503, "match": {"id": 1, "id": 2}}`, plantstoretest.CodeInvalidJSON, `field "id" appears more than once`},
		// A bounded number of values, so that a small body cannot decode
		// into a large fault.
		{`{"status": 503, "headers": {"X-A": [` + strings.Repeat(`"a",`, maxValues) + `"a"]}}`, plantstoretest.CodeInvalidJSON, fmt.Sprintf("more than %d JSON values", maxValues)},
	}
	for _, tt := range tests {
		srv, h := openMock(t)
		rep := call(t, srv, "POST", "/__plantstore/faults", []byte(tt.json), "")
		wantError(t, "POST faults "+tt.json, rep, 400, tt.code, tt.msg)
		if got := h.Faults(); len(got) != 0 {
			t.Errorf("POST faults %s: faults = %+v, want none", tt.json, got)
		}
	}
}

// TestClearFaultsAndTheirMatches checks that GET faults shows a pending
// fault's match, kept by the Handler with the fault (Fault.Note), not a
// used one's, and that DELETE faults clears them.
func TestClearFaultsAndTheirMatches(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	for _, f := range []string{`{"status": 500, "match": {"id": 1}}`, `{"status": 501, "match": {"id": 2}}`} {
		call(t, srv, "POST", "/__plantstore/faults", []byte(f), "")
	}
	create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"}) // uses fault #1
	got := decode[[]faultStatusJSON](t, call(t, srv, "GET", "/__plantstore/faults", nil, ""))
	if len(got) != 1 || got[0].ID != 2 || got[0].Match == nil || *got[0].Match.ID != 2 {
		t.Fatalf("GET faults = %+v, want fault #2 with its match", got)
	}
	if rep := call(t, srv, "DELETE", "/__plantstore/faults", nil, ""); rep.status != 204 || len(rep.body) != 0 {
		t.Errorf("DELETE faults = %d %q, want 204 and no body", rep.status, rep.body)
	}
	if got := h.Faults(); len(got) != 0 {
		t.Errorf("faults after DELETE = %+v, want none", got)
	}
	if rep := create(t, srv, plantstore.NewPlant{ID: 2, Name: "Ivy"}); rep.status != 200 {
		t.Errorf("create after DELETE faults = %d, want 200", rep.status)
	}
}
