package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func TestSeedAndListPlants(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"})
	rep := call(t, srv, "POST", "/__plantstore/plants", []byte(`[{"id": 2, "name": "Ivy", "tag": "climber"}, {"id": 3, "name": "Aloe"}]`), "")
	if rep.status != http.StatusCreated {
		t.Fatalf("seed = %d %s, want 201", rep.status, rep.body)
	}
	if diff := cmp.Diff(seedBody{Added: 2}, decode[seedBody](t, rep)); diff != "" {
		t.Errorf("seed reply mismatch (-want +got):\n%s", diff)
	}
	want := []plantstore.NewPlant{{ID: 1, Name: "Fern"}, {ID: 2, Name: "Ivy", Tag: "climber"}, {ID: 3, Name: "Aloe"}}
	if diff := cmp.Diff(want, decode[[]plantstore.NewPlant](t, call(t, srv, "GET", "/__plantstore/plants", nil, ""))); diff != "" {
		t.Errorf("GET plants mismatch (-want +got):\n%s", diff)
	}
	if rep := call(t, srv, "POST", "/__plantstore/plants", []byte(`[]`), ""); rep.status != 201 || decode[seedBody](t, rep).Added != 0 {
		t.Errorf("seed [] = %d %s, want 201 with added 0", rep.status, rep.body)
	}
	if diff := cmp.Diff(want, h.Plants()); diff != "" {
		t.Errorf("Plants() after an empty seed mismatch (-want +got):\n%s", diff)
	}
}

func TestSeedIsAllOrNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		code int32
		msg  string
	}{
		{`[{"id": 1, "name": "A"}, {"id": 2, "name": ""}]`, plantstoretest.CodeInvalidPlant, "seed: plant 1 (counting from 0): "},
		{`[{"id": 5, "name": "A"}, {"id": 5, "name": "B"}]`, plantstoretest.CodeDuplicateID, "seed: plant 1 (counting from 0): "},
		{`[{"id": 9, "name": "Stored before"}]`, plantstoretest.CodeDuplicateID, "seed: plant 0 (counting from 0): "},
		{`[{"id": 1.5, "name": "A"}]`, plantstoretest.CodeInvalidPlant, "seed: plant 0 (counting from 0): "},
		{`[{"id": 1, "name": "A", "tag": null}]`, plantstoretest.CodeInvalidPlant, "seed: plant 0 (counting from 0): "},
		{`{"id": 1, "name": "A"}`, plantstoretest.CodeInvalidJSON, "want an array, got JSON object"},
		{`null`, plantstoretest.CodeInvalidJSON, "want an array, got JSON null"},
		{``, plantstoretest.CodeInvalidJSON, "no JSON value; want an array"},
		{`[{"id": 1, "name": "A"},]`, plantstoretest.CodeInvalidJSON, "invalid JSON"},
		{`[1, 2]`, plantstoretest.CodeInvalidJSON, "seed: plant 0 (counting from 0): body: want an object, got JSON number"},
	}
	for _, tt := range tests {
		srv, h := openMock(t)
		h.Seed([]plantstore.NewPlant{{ID: 9, Name: "Stored before"}})
		rep := call(t, srv, "POST", "/__plantstore/plants", []byte(tt.body), "")
		wantError(t, "seed "+tt.body, rep, 400, tt.code, tt.msg)
		if diff := cmp.Diff([]plantstore.NewPlant{{ID: 9, Name: "Stored before"}}, h.Plants()); diff != "" {
			t.Errorf("seed %s changed the plants (-want +got):\n%s", tt.body, diff)
		}
	}
}

func TestSeedPastMaxPlants(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t, plantstoretest.WithMaxPlants(2))
	rep := call(t, srv, "POST", "/__plantstore/plants", []byte(`[{"id": 1, "name": "A"}, {"id": 2, "name": "B"}, {"id": 3, "name": "C"}]`), "")
	wantError(t, "seed of 3 into 2", rep, 400, plantstoretest.CodeStoreFull, "plant 2", "-max-plants")
	if got := len(h.Plants()); got != 0 {
		t.Errorf("stored %d plants after a refused seed, want 0", got)
	}
}

func TestSeedLargeBody(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	var b bytes.Buffer
	b.WriteByte('[')
	const n = 20_000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "plant %d"}`, i, i)
	}
	b.WriteByte(']')
	rep := call(t, srv, "POST", "/__plantstore/plants", b.Bytes(), "")
	if rep.status != 201 || decode[seedBody](t, rep).Added != n {
		t.Fatalf("seed of %d plants = %d %s, want 201", n, rep.status, rep.body)
	}
	if got := len(decode[[]plantstore.NewPlant](t, call(t, srv, "GET", "/__plantstore/plants", nil, ""))); got != n {
		t.Errorf("GET plants = %d plants, want %d", got, n)
	}
	tooLarge := append([]byte("["+strings.Repeat(" ", MaxSeedBody)), ']')
	wantError(t, "seed over the limit", call(t, srv, "POST", "/__plantstore/plants", tooLarge, ""), 413, plantstoretest.CodeTooLarge, fmt.Sprint(MaxSeedBody))
	if got := len(h.Plants()); got != n {
		t.Errorf("stored %d plants after a refused seed, want %d", got, n)
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"})
	call(t, srv, "POST", "/__plantstore/faults", []byte(`{"status": 500, "match": {"id": 7}}`), "")
	rep := call(t, srv, "POST", "/__plantstore/reset", nil, "")
	if rep.status != 204 || len(rep.body) != 0 {
		t.Fatalf("reset = %d %q, want 204 and no body", rep.status, rep.body)
	}
	if len(h.Plants()) != 0 || len(h.Requests()) != 0 || len(h.Faults()) != 0 {
		t.Errorf("after reset: plants %v, requests %d, faults %v; want none", h.Plants(), len(h.Requests()), h.Faults())
	}
	if got := decode[[]faultStatusJSON](t, call(t, srv, "GET", "/__plantstore/faults", nil, "")); len(got) != 0 {
		t.Errorf("GET faults after reset = %+v, want none", got)
	}
}

// TestSeedReplyCountsPlants checks the seed reply's count against arrays
// whose strings and nested values hold the characters that separate
// elements: it is the number of plants stored.
func TestSeedReplyCountsPlants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want int
	}{
		{`[]`, 0},
		{" [ \n\t ] ", 0},
		{`[{"id":1,"name":"a"},{"id":2,"name":"b"}]`, 2},
		{`[{"id":1,"name":"a, b] [c"},{"id":2,"name":"\",\\"}]`, 2},
		{`[{"id":1,"name":"a","tags":[1,2,3],"more":{"a":[{},{}]}}]`, 1},
	}
	for _, tt := range tests {
		srv, h := openMock(t)
		rep := call(t, srv, "POST", "/__plantstore/plants", []byte(tt.body), "")
		if rep.status != http.StatusCreated || decode[seedBody](t, rep).Added != tt.want || len(h.Plants()) != tt.want {
			t.Errorf("seed %s = %d %s, %d plants stored; want 201 with added %d, and as many stored", tt.body, rep.status, rep.body, len(h.Plants()), tt.want)
		}
	}
}
