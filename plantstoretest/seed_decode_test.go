package plantstoretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/strictjson"
)

// decodeSeedByDecoder is decodeSeed as it was before it walked the array in
// place: a json.Decoder handing out each element. FuzzDecodeSeed holds the
// walk to it.
func decodeSeedByDecoder(data []byte) ([]plantstore.NewPlant, error) {
	if err := strictjson.Valid(data, new([]json.RawMessage)); err != nil {
		return nil, &SeedError{Index: -1, Body: *invalidJSON("%v", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.Token()
	plants := []plantstore.NewPlant{}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &SeedError{Index: i, Body: *invalidJSON("%v", err)}
		}
		if len(raw) > maxBodyBytes {
			return nil, &SeedError{Index: i, Body: ErrorBody{Code: CodeTooLarge,
				Message: fmt.Sprintf("plant is larger than %d bytes, the most POST /plants accepts", maxBodyBytes)}}
		}
		p, e := decodePlant(raw)
		if e != nil {
			return nil, &SeedError{Index: i, Body: *e}
		}
		plants = append(plants, p)
	}
	return plants, nil
}

var seedCorpus = []string{
	`[]`, ` [ ] `, "[\n]", `[0]`, `[0,1]`, `[ 0 , 1 ]`, `[null]`, `[true, false]`, `["a"]`,
	`[{"id": 1, "name": "a"}]`,
	"[\t{\"id\":1,\"name\":\"a\"}\r\n,\n{\"id\":2,\"name\":\"b\",\"tag\":\"t\"} ]",
	`[{"id": 1, "name": "a", "x": [1, {"y": "]}"}]}, {"id": 2, "name": "]["}]`,
	`[{"id": 1, "name": "a"}, {"id": 2, "name": ""}]`,
	`[{"id": 1, "name": "a"}, 5]`,
	`[{"id": 1, "name": "a", "name": "b"}]`,
	`[{"id": 1.0, "name": "a"}]`,
	`[{"id": 1, "name": "a\"]"}, [], {}]`,
	`[-1e5, "x", {"id": -3, "name": "\u00e9"}]`,
	`{"id": 1}`, `[`, `[1,]`, `[1] 2`, ``,
}

func TestDecodeSeedAgreesWithDecoder(t *testing.T) {
	t.Parallel()
	for _, data := range seedCorpus {
		compareSeedDecoders(t, []byte(data))
	}
}

func FuzzDecodeSeed(f *testing.F) {
	for _, data := range seedCorpus {
		f.Add([]byte(data))
	}
	f.Fuzz(func(t *testing.T, data []byte) { compareSeedDecoders(t, data) })
}

func compareSeedDecoders(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := decodeSeed(data)
	want, wantErr := decodeSeedByDecoder(data)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("decodeSeed(%q) error = %v, the Decoder's = %v", data, gotErr, wantErr)
	}
	if gotErr != nil {
		// The same element, for the same reason; a syntax error within an
		// element is reported for the whole body by both.
		var g, w *SeedError
		if !errorsAs(gotErr, &g) || !errorsAs(wantErr, &w) || g.Index != w.Index || g.Body.Code != w.Body.Code {
			t.Fatalf("decodeSeed(%q) error = %v, the Decoder's = %v", data, gotErr, wantErr)
		}
		return
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decodeSeed(%q) mismatch (-decoder +walk):\n%s", data, diff)
	}
	if cap(got) != len(got) {
		t.Errorf("decodeSeed(%q) returned cap %d for %d plants, want exact", data, cap(got), len(got))
	}
}

func errorsAs(err error, target **SeedError) bool {
	se, ok := err.(*SeedError)
	*target = se
	return ok
}

// TestSeedFirstErrorWins: a seed reports its first bad plant, whether a
// repeated id or the store's bound stops it, as checking one plant after
// another would; the bound's check costs no map however large the seed.
func TestSeedFirstErrorWins(t *testing.T) {
	t.Parallel()
	p := func(id int64) plantstore.NewPlant { return plantstore.NewPlant{ID: id, Name: "p"} }
	tests := []struct {
		name      string
		max       int
		seed      []plantstore.NewPlant
		wantIndex int
		wantCode  int32
	}{
		{"repeat before the bound", 3, []plantstore.NewPlant{p(1), p(1), p(2), p(3)}, 1, CodeDuplicateID},
		{"repeat at the bound", 2, []plantstore.NewPlant{p(1), p(2), p(1)}, 2, CodeDuplicateID},
		{"bound before a repeat", 2, []plantstore.NewPlant{p(1), p(2), p(3), p(1)}, 2, CodeStoreFull},
		{"stored before", 10, []plantstore.NewPlant{p(5), p(9)}, 1, CodeDuplicateID},
		{"repeat of a repeat", 10, []plantstore.NewPlant{p(4), p(6), p(4), p(4)}, 2, CodeDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(WithMaxPlants(tt.max + 1))
			defer h.Close()
			if err := h.Seed([]plantstore.NewPlant{p(9)}); err != nil {
				t.Fatal(err)
			}
			err := h.Seed(tt.seed)
			var se *SeedError
			if !errorsAs(err, &se) || se.Index != tt.wantIndex || se.Body.Code != tt.wantCode {
				t.Errorf("Seed = %v, want plant %d refused with code %d", err, tt.wantIndex, tt.wantCode)
			}
			if got := len(h.Plants()); got != 1 {
				t.Errorf("%d plants stored after a refused seed, want 1", got)
			}
		})
	}
}
