package plantstore

import (
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// validate is the check appendJSON makes as it encodes, written out: a
// *ValidationError for a plant the server must not see.
func (p *NewPlant) validate() error {
	switch {
	case p.Name == "":
		return &ValidationError{Field: "name", Reason: "is required"}
	case !utf8.ValidString(p.Name):
		return &ValidationError{Field: "name", Reason: "is not valid UTF-8"}
	case !utf8.ValidString(p.Tag):
		return &ValidationError{Field: "tag", Reason: "is not valid UTF-8"}
	}
	return nil
}

// checkAppendJSON fails if p.appendJSON disagrees with encoding/json and
// validate: the same bytes for a valid plant, the same error otherwise.
func checkAppendJSON(t *testing.T, p NewPlant) {
	t.Helper()
	got, err := p.appendJSON(nil)
	if verr := p.validate(); verr != nil {
		var gotErr *ValidationError
		if !errors.As(err, &gotErr) {
			t.Fatalf("appendJSON(%+q) error %v, want %v", p, err, verr)
		}
		if diff := cmp.Diff(verr, error(gotErr)); diff != "" {
			t.Fatalf("appendJSON(%+q) error (-validate +appendJSON):\n%s", p, diff)
		}
		return
	}
	if err != nil {
		t.Fatalf("appendJSON(%+q) error %v, want none", p, err)
	}
	want, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("json.Marshal(%+q): %v", p, err)
	}
	if string(got) != string(want) {
		t.Fatalf("appendJSON(%+q) = %s, want %s as encoding/json writes it", p, got, want)
	}
}

func TestAppendJSON(t *testing.T) {
	t.Parallel()
	var all []byte // every byte value, for the escapes of each
	for b := range 256 {
		all = append(all, byte(b))
	}
	tests := []NewPlant{
		{ID: 7, Name: "Monstera", Tag: "indoor"},
		{ID: 0, Name: "x"},
		{ID: -1 << 63, Name: "min"},
		{ID: 1<<63 - 1, Name: "max", Tag: "t"},
		{Name: `quote " backslash \ slash /`},
		{Name: "<script>&amp;</script>", Tag: "\b\f\n\r\t\x00\x1f\x7f"},
		{Name: "Ficus \u2028 lyrata \u2029", Tag: "\u2027\u202a"},
		{Name: "Strelitzia 极乐鸟 🌿", Tag: "\ufffd"},
		{Name: string(all[:128])},
		{Name: string(all)},                   // invalid UTF-8
		{Name: "ok", Tag: "\xe2\x80"},         // truncated rune
		{Name: "ok", Tag: "\xed\xa0\x80"},     // a surrogate
		{Name: "", Tag: "\xff"},               // empty name first
		{Name: "\xff", Tag: "\xff"},           // name first
		{Name: "Monstera\xc0\xaf", Tag: "ok"}, // overlong
	}
	for _, p := range tests {
		checkAppendJSON(t, p)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add(int64(7), "Monstera", "indoor")
	f.Add(int64(-1), "<&>\u2028\"\\\x00", "")
	f.Add(int64(0), "\xff", "\u2029")
	f.Fuzz(func(t *testing.T, id int64, name, tag string) {
		checkAppendJSON(t, NewPlant{ID: id, Name: name, Tag: tag})
	})
}

// checkDecodePlant fails if decodePlant disagrees with json.Unmarshal on
// data: the same Plant, or the same error.
func checkDecodePlant(t *testing.T, data []byte) {
	t.Helper()
	var got, want Plant
	gotErr := decodePlant(data, &got)
	wantErr := json.Unmarshal(data, &want)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("decodePlant(%q) error %v, json.Unmarshal's %v", data, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decodePlant(%q) (-json.Unmarshal +decodePlant):\n%s", data, diff)
	}
}

func TestDecodePlant(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data   string
		simple bool // decoded without json.Unmarshal
	}{
		{`{"name":"Monstera","tag":"indoor"}`, true},
		{`{"name":"Monstera"}`, true},
		{" \t\r\n{ \"tag\" : \"t\" , \"name\" :\"n\" }\n", true},
		{`{}`, true},
		{`{"name":"a","name":"b"}`, true}, // the last wins, as in encoding/json
		{`{"name":"Strelitzia 极乐鸟 🌿 <&>"}`, true},
		{`{"name":"a\"b"}`, false},
		{`{"name":"a\u00e9"}`, false},
		{`{"Name":"case"}`, false},
		{`{"name":"a","id":7}`, false},
		{`{"name":null}`, false},
		{`{"name":"a","tag":7}`, false},
		{"{\"name\":\"\xff\"}", false},
		{"{\"name\":\"a\x01\"}", false},
		{`{"name":"a",}`, false},
		{`{"name":"a"} x`, false},
		{`{"name":"a"`, false},
		{`{"name" "a"}`, false},
		{`[]`, false},
		{``, false},
		{`{"name":"a"}{}`, false},
	}
	for _, tt := range tests {
		checkDecodePlant(t, []byte(tt.data))
		var p Plant
		if got := decodeSimplePlant([]byte(tt.data), &p); got != tt.simple {
			t.Errorf("decodeSimplePlant(%q) = %v, want %v", tt.data, got, tt.simple)
		}
	}
}

func FuzzDecodePlantResponse(f *testing.F) {
	for _, s := range []string{`{"name":"Monstera","tag":"indoor"}`, ` { "tag":"", "name":"x" } `, `{"name":"a\n"}`, `{"Tag":"b"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodePlant(t, data)
	})
}
