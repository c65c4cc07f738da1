package plantstoretest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
)

func TestSeed(t *testing.T) {
	t.Parallel()
	stored := plantstore.NewPlant{ID: 1, Name: "Fern"}
	noDigits := func(p plantstore.NewPlant) *ErrorBody {
		if strings.ContainsAny(p.Name, "0123456789") {
			return &ErrorBody{Code: 100, Message: "no digits"}
		}
		return nil
	}
	tests := []struct {
		name    string
		opts    []Option
		plants  []plantstore.NewPlant
		wantErr *SeedError // nil for success
	}{
		{"none", nil, nil, nil},
		{"two", nil, []plantstore.NewPlant{{ID: 2, Name: "Ivy", Tag: "climber"}, {ID: 3, Name: "Moss"}}, nil},
		{"empty name", nil, []plantstore.NewPlant{{ID: 2, Name: "Ivy"}, {ID: 3}},
			&SeedError{Index: 1, Body: ErrorBody{Code: CodeInvalidPlant, Message: "name must not be empty"}}},
		{"name not UTF-8", nil, []plantstore.NewPlant{{ID: 2, Name: "F\xffrn"}},
			&SeedError{Index: 0, Body: ErrorBody{Code: CodeInvalidJSON, Message: "name is not valid UTF-8 (at byte 1)"}}},
		{"tag not UTF-8", nil, []plantstore.NewPlant{{ID: 2, Name: "Fern", Tag: "\xc3"}},
			&SeedError{Index: 0, Body: ErrorBody{Code: CodeInvalidJSON, Message: "tag is not valid UTF-8 (at byte 0)"}}},
		{"rule", []Option{WithRule(noDigits)}, []plantstore.NewPlant{{ID: 2, Name: "Ivy"}, {ID: 3, Name: "R2"}},
			&SeedError{Index: 1, Body: ErrorBody{Code: 100, Message: "no digits"}}},
		{"id already stored", nil, []plantstore.NewPlant{{ID: 2, Name: "Ivy"}, {ID: 1, Name: "Fern"}},
			&SeedError{Index: 1, Body: ErrorBody{Code: CodeDuplicateID, Message: "plant 1 already exists"}}},
		{"id twice in the batch", nil, []plantstore.NewPlant{{ID: 2, Name: "Ivy"}, {ID: 3, Name: "Moss"}, {ID: 2, Name: "Ivy"}},
			&SeedError{Index: 2, Body: ErrorBody{Code: CodeDuplicateID, Message: "plant 2 appears twice, at index 0 and 2"}}},
		{"duplicates allowed", []Option{WithAllowDuplicateIDs()}, []plantstore.NewPlant{{ID: 1, Name: "Fern"}, {ID: 1, Name: "Fern"}}, nil},
		{"store full", []Option{WithMaxPlants(3)}, []plantstore.NewPlant{{ID: 2, Name: "Ivy"}, {ID: 3, Name: "Moss"}, {ID: 4, Name: "Oak"}},
			&SeedError{Index: 2, Body: ErrorBody{Code: CodeStoreFull,
				Message: "the store is full: it holds 3 plants, the most that WithMaxPlants (plantstore-mock: -max-plants) allows"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler(append(tt.opts, WithPlants(stored))...)
			err := h.Seed(tt.plants)
			want := []plantstore.NewPlant{stored}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Seed(%+v) = %v, want nil", tt.plants, err)
				}
				want = append(want, tt.plants...)
			} else {
				var got *SeedError
				if !errors.As(err, &got) {
					t.Fatalf("Seed(%+v) = %v, want a *SeedError", tt.plants, err)
				}
				if diff := cmp.Diff(tt.wantErr, got); diff != "" {
					t.Errorf("Seed(%+v) error mismatch (-want +got):\n%s", tt.plants, diff)
				}
			}
			if diff := cmp.Diff(want, h.Plants()); diff != "" {
				t.Errorf("Plants() after Seed mismatch (-want +got):\n%s", diff)
			}
			if got := h.Requests(); len(got) != 0 {
				t.Errorf("Seed recorded %d requests, want none", len(got))
			}
		})
	}
}

func TestSeedJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		want    []plantstore.NewPlant
		wantErr *SeedError
	}{
		{"empty array", `[]`, nil, nil},
		{"two", ` [ {"id":1,"name":"Fern","tag":"shade"}, {"id":2,"name":"Ivy","x":[1]} ] `,
			[]plantstore.NewPlant{{ID: 1, Name: "Fern", Tag: "shade"}, {ID: 2, Name: "Ivy"}}, nil},
		{"empty", ``, nil, &SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: "no JSON value; want an array"}}},
		{"an object", `{"id":1,"name":"Fern"}`, nil, &SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: "want an array, got JSON object"}}},
		{"truncated", `[{"id":1,"name":"Fern"}`, nil, &SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: "invalid JSON: cut short (at byte 23)"}}},
		{"float id", `[{"id":1,"name":"Fern"},{"id":2.0,"name":"Ivy"}]`, nil, &SeedError{Index: 1, Body: ErrorBody{Code: CodeInvalidPlant,
			Message: "id must be an integer that fits in int64 (no fraction or exponent), got 2.0"}}},
		{"null tag", `[{"id":1,"name":"Fern","tag":null}]`, nil, &SeedError{Index: 0, Body: ErrorBody{Code: CodeInvalidPlant,
			Message: "tag must be a string, got null"}}},
		{"repeated field", `[{"id":1,"name":"Fern","name":"Ivy"}]`, nil, &SeedError{Index: 0, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: `body: field "name" appears more than once (at byte 23)`}}},
		{"element not an object", `[{"id":1,"name":"Fern"},7]`, nil, &SeedError{Index: 1, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: "body: want an object, got JSON number"}}},
		{"invalid UTF-8", "[{\"id\":1,\"name\":\"Fern\"},{\"id\":2,\"name\":\"I\xffy\"}]", nil, &SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON,
			Message: "not valid UTF-8 (at byte 41)"}}},
		{"duplicate within", `[{"id":1,"name":"Fern"},{"id":1,"name":"Fern"}]`, nil, &SeedError{Index: 1, Body: ErrorBody{Code: CodeDuplicateID,
			Message: "plant 1 appears twice, at index 0 and 1"}}},
		{"element too large", `[{"id":1,"name":"Fern","x":"` + strings.Repeat("a", maxBodyBytes) + `"}]`, nil,
			&SeedError{Index: 0, Body: ErrorBody{Code: CodeTooLarge, Message: fmt.Sprintf("plant is larger than %d bytes, the most POST /plants accepts", maxBodyBytes)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHandler()
			n, err := h.SeedJSON([]byte(tt.data))
			if tt.wantErr == nil && (err != nil || n != len(tt.want)) {
				t.Fatalf("SeedJSON(%s) = %d, %v; want %d, nil", abbreviate([]byte(tt.data)), n, err, len(tt.want))
			}
			if tt.wantErr != nil && n != 0 {
				t.Errorf("SeedJSON(%s) = %d, %v; want 0 stored", abbreviate([]byte(tt.data)), n, err)
			}
			if tt.wantErr != nil {
				var got *SeedError
				if !errors.As(err, &got) {
					t.Fatalf("SeedJSON(%s) = %v, want a *SeedError", abbreviate([]byte(tt.data)), err)
				}
				if diff := cmp.Diff(tt.wantErr, got); diff != "" {
					t.Errorf("SeedJSON(%s) error mismatch (-want +got):\n%s", abbreviate([]byte(tt.data)), diff)
				}
			}
			if diff := cmp.Diff(tt.want, h.Plants()); diff != "" {
				t.Errorf("Plants() after SeedJSON mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSeedJSONOffsetsInTheDocument: every offset a seed's error gives
// counts from the start of the document, as an editor shows the -seed file,
// whether the syntax or a repeated field name is at fault.
func TestSeedJSONOffsetsInTheDocument(t *testing.T) {
	t.Parallel()
	const prefix = `[{"id":1,"name":"Fern"}, {"id":2,"name":"Ivy",`
	for _, tt := range []struct{ name, rest string }{
		{"repeated field", `"name":"Ivy"}]`},
		{"syntax", `7:"Ivy"}]`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewHandler().SeedJSON([]byte(prefix + tt.rest))
			if want := fmt.Sprintf("(at byte %d)", len(prefix)); err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("SeedJSON(%s) = %v, want an error ending %q", prefix+tt.rest, err, want)
			}
		})
	}
}

// TestSeedJSONAgreesWithPOST checks that each element is judged exactly as
// the same bytes sent to POST /plants: same code, same message.
func TestSeedJSONAgreesWithPOST(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"id":1,"name":"Fern"}`, `{"id":"1","name":"Fern"}`, `{"id":1e3,"name":"Fern"}`, `{"id":1}`,
		`{"id":1,"name":""}`, `{"id":1,"name":"\ud800"}`, `{"id":1,"Name":"Fern"}`, `null`, `[]`, `"x"`,
		`{"id":99999999999999999999,"name":"Fern"}`, `{"id":1,"name":"Fern","tag":7}`,
	} {
		post := serve(NewHandler(), validHeader(DefaultToken), body)
		_, err := NewHandler().SeedJSON([]byte("[" + body + "]"))
		var seedErr *SeedError
		switch {
		case post.Code == http.StatusOK && err != nil:
			t.Errorf("POST %s = 200, but SeedJSON refused it: %v", body, err)
		case post.Code != http.StatusOK && !errors.As(err, &seedErr):
			t.Errorf("POST %s = %d, but SeedJSON = %v, want a *SeedError", body, post.Code, err)
		case post.Code != http.StatusOK:
			if got, want := fmt.Sprintf(`{"error":%d,"message":%q}`, seedErr.Body.Code, seedErr.Body.Message), post.Body.String(); got != want {
				t.Errorf("element %s: SeedJSON body %s, POST body %s; want the same", body, got, want)
			}
		}
	}
}

func TestSeedErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *SeedError
		want string
	}{
		{&SeedError{Index: 3, Body: ErrorBody{Code: CodeInvalidPlant, Message: "name must not be empty"}},
			"plantstoretest: seed: plant 3: name must not be empty"},
		{&SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON, Message: "want an array, got JSON null"}},
			"plantstoretest: seed: want an array, got JSON null"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%+v.Error() = %q, want %q", *tt.err, got, tt.want)
		}
	}
}

func TestWithPlants(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern"}), WithPlants(plantstore.NewPlant{ID: 2, Name: "Ivy"}))
	want := []plantstore.NewPlant{{ID: 1, Name: "Fern"}, {ID: 2, Name: "Ivy"}}
	if diff := cmp.Diff(want, s.Plants()); diff != "" {
		t.Errorf("Plants() with WithPlants mismatch (-want +got):\n%s", diff)
	}
	checkError(t, "POST of a seeded id", post(t, s, `{"id":2,"name":"Ivy"}`), http.StatusBadRequest, CodeDuplicateID, "plant 2 already exists")

	// Invalid plants are misuse, whatever the order of the options.
	bad := []Option{WithPlants(plantstore.NewPlant{ID: 1, Name: "Fern"}, plantstore.NewPlant{ID: 1, Name: "Fern"}), WithToken("t")}
	const wantMsg = "plantstoretest: WithPlants: plant 1: plant 1 appears twice, at index 0 and 1"
	tb := &fakeTB{}
	if runFatal(func() { NewServer(tb, bad...) }) {
		t.Errorf("NewServer with a duplicate in WithPlants returned, want tb.Fatalf")
	}
	tb.cleanup()
	if diff := cmp.Diff([]string{wantMsg}, tb.fatals); diff != "" {
		t.Errorf("NewServer Fatalf calls mismatch (-want +got):\n%s", diff)
	}
	func() {
		defer func() {
			if r := recover(); r != wantMsg {
				t.Errorf("NewHandler with a duplicate in WithPlants panicked with %v, want %q", r, wantMsg)
			}
		}()
		NewHandler(bad...)
	}()
}

func TestWithMaxPlants(t *testing.T) {
	t.Parallel()
	s := NewServer(t, WithMaxPlants(1))
	if resp := post(t, s, `{"id":1,"name":"Fern"}`); resp.status != http.StatusOK {
		t.Fatalf("first POST: status %d, want 200", resp.status)
	}
	checkError(t, "POST of a stored id into a full store", post(t, s, `{"id":1,"name":"Fern"}`),
		http.StatusBadRequest, CodeDuplicateID, "plant 1 already exists")
	resp := post(t, s, `{"id":2,"name":"Ivy"}`)
	checkError(t, "POST past WithMaxPlants(1)", resp, http.StatusBadRequest, CodeStoreFull, "WithMaxPlants")
	checkError(t, "POST past WithMaxPlants(1)", resp, http.StatusBadRequest, CodeStoreFull, "-max-plants")
	if got := len(s.Plants()); got != 1 {
		t.Errorf("len(Plants()) past the bound = %d, want 1", got)
	}
	s.Reset()
	if resp := post(t, s, `{"id":2,"name":"Ivy"}`); resp.status != http.StatusOK {
		t.Errorf("POST after Reset: status %d, want 200", resp.status)
	}

	zero := NewHandler(WithMaxPlants(0))
	if w := serve(zero, validHeader(DefaultToken), `{"id":1,"name":"Fern"}`); w.Code != http.StatusBadRequest {
		t.Errorf("POST under WithMaxPlants(0): status %d, want 400", w.Code)
	}
	if h := NewHandler(); h.store.max != DefaultMaxPlants || DefaultMaxPlants != 1_000_000 {
		t.Errorf("default bound = %d (DefaultMaxPlants %d), want 1,000,000", h.store.max, DefaultMaxPlants)
	}
}
