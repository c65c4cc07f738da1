package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		max     int
		wantErr string // "" for none
	}{
		{"empty object", `{}`, 10, ""},
		{"distinct names", `{"a": 1, "b": [1, 2, {"a": 2}], "c": {"a": 3}}`, 20, ""},
		{"same name in sibling objects", `[{"a": 1}, {"a": 2}]`, 10, ""},
		{"repeated name", `{"status": 503, "status": 200}`, 10, `field "status" appears more than once`},
		{"repeated through an escape", `{"name": 1, "n\u0061me": 2}`, 10, `field "name" appears more than once`},
		{"repeated in a nested object", `{"headers": {"A": "1", "B": "2", "A": "3"}}`, 10, `field "A" appears more than once`},
		{"a value that looks like a name", `{"a": "b", "b": "a"}`, 10, ""},
		{"string with quote and colon", `{"a": "x\":", "b": 1}`, 10, ""},
		{"at the value bound", `[1, 2, 3]`, 4, ""},
		{"past the value bound", `[1, 2, 3, 4]`, 4, "more than 4 JSON values"},
		{"nesting counts", `[[[[[]]]]]`, 4, "more than 4 JSON values"},
		{"names do not count", `{"a": 1, "b": 2}`, 3, ""},
		{"a surrogate pair", `{"a": "\ud83c\udf31"}`, 10, ""},
		{"an unpaired surrogate in a value", `{"a": ["x\ud800"]}`, 10, `unpaired surrogate escape \ud800`},
		{"an unpaired surrogate in a name", `{"\udc00": 1}`, 10, `unpaired surrogate escape \udc00`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := check([]byte(tt.data), tt.max, new(any))
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("check(%s) = %v, want nil", tt.data, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.wantErr) {
				t.Errorf("check(%s) = %v, want an *Error containing %q", tt.data, err, tt.wantErr)
			}
		})
	}
}

// FuzzCheck: check never panics, whatever the bytes; and for a body Valid
// takes, it refuses a value of the wrong type exactly where
// json.Unmarshal does, so that Decode's messages are its own on every Go.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[`, `"\`, `{"a`, `}}]]`, `{"a":"\u00"}`,
		`{"a": {"k": [{"B": 1.5}]}, "c": [{"D": {"E": "x"}}]}`, `{"s": "", "t": true, "u": 255, "f": 1e38, "x": "y"}`,
		`{"u": 256}`, `{"f": 1e39}`, `{"x": 2}`, `{"t": 0}`} {
		f.Add([]byte(s))
	}
	type shape struct {
		A map[string][]struct{ B int }   `json:"a"`
		C []struct{ D *struct{ E int } } `json:"c"`
		S string                         `json:"s"`
		T bool                           `json:"t"`
		U uint8                          `json:"u"`
		F float32                        `json:"f"`
		X *text                          `json:"x"`
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = check(data, 100, new(any))
		err := check(data, 100, new(shape))
		_ = Decode(data, 100, new(shape))
		_ = Valid(data, new([]shape))
		var e *Error
		if Valid(data, new(shape)) != nil || err != nil && (!errors.As(err, &e) || e.Offset >= 0) {
			return // not a type's to judge
		}
		if uerr := json.Unmarshal(data, new(shape)); (err == nil) != (uerr == nil) {
			t.Errorf("check(%q) = %v, but json.Unmarshal = %v", data, err, uerr)
		}
	})
}

func TestCheckFor(t *testing.T) {
	t.Parallel()
	type inner struct {
		ID   *int64 `json:"id,omitempty"`
		Name string `json:"name"`
	}
	type outer struct {
		Status  int                        `json:"status"`
		Headers map[string]json.RawMessage `json:"headers"`
		Match   *inner                     `json:"match"`
		List    []inner                    `json:"list"`
		Skipped int                        `json:"-"`
		Plain   bool
	}
	tests := []struct {
		name    string
		data    string
		wantErr string
	}{
		{"known fields", `{"status": 1, "headers": {"Any-Name": [1, {"x": 2}]}, "match": {"id": 1, "name": "a"}, "list": [{"name": "a"}, {"id": 2}], "Plain": true}`, ""},
		{"unknown at the top", `{"statsu": 1}`, `unknown field "statsu"`},
		{"names match exactly", `{"Status": 1}`, `unknown field "Status"`},
		{"a field tagged -", `{"Skipped": 1}`, `unknown field "Skipped"`},
		{"unknown in a nested struct", `{"match": {"nmae": "a"}}`, `unknown field "nmae"`},
		{"unknown in a later element", `{"list": [{"name": "a"}, {"tag": "b"}]}`, `unknown field "tag"`},
		{"after a nested object", `{"match": {"name": "a"}, "extra": 1}`, `unknown field "extra"`},
		{"after a nested array", `{"list": [{"name": "a"}], "extra": 1}`, `unknown field "extra"`},
		{"a map takes any name", `{"headers": {"statsu": 1, "nmae": 2}}`, ""},
		{"a wrong type", `{"match": [1, 2]}`, `field "match": want an object, got JSON array`},
		{"repeated", `{"status": 1, "status": 2}`, `field "status" appears more than once`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := check([]byte(tt.data), 100, new(outer))
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("check(%s) = %v, want nil", tt.data, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.wantErr) {
				t.Errorf("check(%s) = %v, want an *Error containing %q", tt.data, err, tt.wantErr)
			}
		})
	}
}

// TestDecode checks each of Decode's refusals, in JSON's terms, and where
// it says the problem is.
func TestDecode(t *testing.T) {
	t.Parallel()
	type inner struct {
		ID int64 `json:"id"`
	}
	type outer struct {
		N      int              `json:"n"`
		Match  *inner           `json:"match"`
		List   []string         `json:"list"`
		Items  []inner          `json:"items"`
		Counts map[string]uint8 `json:"counts"`
		F32    float32          `json:"f32"`
		Text   *text            `json:"text"`
		Raw    json.RawMessage  `json:"raw"`
		Any    any              `json:"any"`
	}
	tests := []struct {
		name, data string
		want       string // Error(); "" for none
	}{
		{"good", ` {"n": 1, "match": {"id": 2}, "list": ["a"]} `, ""},
		{"not UTF-8", "{\"list\": [\"\xff\"]}", "not valid UTF-8 (at byte 11)"},
		{"empty", " \n", "no JSON value; want an object"},
		{"cut short", `{"n": 1`, "invalid JSON: cut short (at byte 7)"},
		{"data after", `{} {}`, "invalid JSON: data after the value (at byte 3)"},
		{"bad syntax", `{"n" 1}`, "invalid JSON: invalid character '1' after object key (at byte 5)"},
		{"null", ` null`, "want an object, got JSON null"},
		{"another kind", `[1]`, "want an object, got JSON array"},
		{"repeated", `{"n": 1, "n": 2}`, `field "n" appears more than once (at byte 9)`},
		{"unknown", `{"m": 1}`, `unknown field "m" (at byte 1)`},
		{"too many values", `{"list": ["a", "b", "c", "d", "e"]}`, "more than 6 JSON values (at byte 30)"},
		{"wrong type", `{"n": "1"}`, `field "n": want an integer, got JSON string`},
		{"wrong type, nested", `{"match": {"id": 1.5}}`, `field "match.id": want an integer, got JSON number 1.5`},
		{"wrong type, element", `{"list": [1]}`, `field "list": want a string, got JSON number`},
		// The path names struct fields only, not indices or map keys,
		// as encoding/json's did before Go 1.27, on every Go.
		{"wrong type, in a later element", `{"items": [{"id": 1}, {"id": "x"}]}`, `field "items.id": want an integer, got JSON string`},
		{"wrong type, map value", `{"counts": {"a": true}}`, `field "counts": want an integer, got JSON bool`},
		{"wrong type, after a nested object", `{"match": {"id": 1}, "n": "x"}`, `field "n": want an integer, got JSON string`},
		{"wrong type, after a nested array", `{"items": [{"id": 1}], "n": []}`, `field "n": want an integer, got JSON array`},
		{"wrong kind, object", `{"match": [1]}`, `field "match": want an object, got JSON array`},
		{"wrong kind, array", `{"list": "a"}`, `field "list": want an array, got JSON string`},
		{"wrong kind, map", `{"counts": []}`, `field "counts": want an object, got JSON array`},
		{"an integer with an exponent", `{"n": 1e3}`, `field "n": want an integer, got JSON number 1e3`},
		{"out of range", `{"counts": {"a": 256}}`, `field "counts": want an integer, got JSON number 256`},
		{"negative for unsigned", `{"counts": {"a": -1}}`, `field "counts": want an integer, got JSON number -1`},
		{"out of float32's range", `{"f32": 1e39}`, `field "f32": want a number, got JSON number 1e39`},
		{"a TextUnmarshaler wants a string", `{"text": 5}`, `field "text": want a string, got JSON number`},
		{"the first wrong type", `{"n": "1", "list": [1]}`, `field "n": want an integer, got JSON string`},
		{"a repeated name before a wrong type", `{"n": "1", "n": 2}`, `field "n" appears more than once (at byte 11)`},
		{"numbers that fit", `{"n": -0, "f32": 1.5e3, "counts": {"a": 255}}`, ""},
		{"nulls", `{"n": null, "list": [null], "match": null}`, ""},
		{"a string for a TextUnmarshaler", `{"text": "t\u00e9"}`, ""},
		{"raw and any take anything", `{"raw": {"x": [1]}, "any": "s"}`, ""},
		{"unpaired surrogate", `{"list": ["\udc00"]}`, `string contains the unpaired surrogate escape \udc00, which is not a character (at byte 10)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Decode([]byte(tt.data), 6, new(outer))
			var e *Error
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Decode(%q) = %v, want nil", tt.data, err)
			case tt.want != "" && (!errors.As(err, &e) || e.Error() != tt.want):
				t.Errorf("Decode(%q) = %v, want an *Error %q", tt.data, err, tt.want)
			}
		})
	}
}

// text decodes from a JSON string through encoding.TextUnmarshaler.
type text string

func (t *text) UnmarshalText(b []byte) error {
	*t = text(b)
	return nil
}

// TestValid checks that Valid wants the kind of v's type, and takes any
// number of values.
func TestValid(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ data, want string }{
		{`[` + strings.Repeat(`{"a": {"a": 1}},`, 1000) + `1]`, ""},
		{``, "no JSON value; want an array"},
		{`{}`, "want an array, got JSON object"},
		{`[1,]`, "invalid JSON: invalid character ']' looking for beginning of value (at byte 3)"},
		// Cut short in a literal: no character is at fault, though
		// encoding/json names a space it pretends to read at the end.
		{`[nul`, "invalid JSON: cut short (at byte 4)"},
		{`[1.`, "invalid JSON: cut short (at byte 3)"},
		{`[nul `, "invalid JSON: invalid character ' ' in literal null (expecting 'l') (at byte 4)"},
	} {
		err := Valid([]byte(tt.data), new([]json.RawMessage))
		if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("Valid(%.20q) = %v, want %q", tt.data, err, tt.want)
		}
	}
}

// TestErrorText checks how an Error reads, with and without its offset.
func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Offset: 6, Msg: "not valid UTF-8"}, "not valid UTF-8 (at byte 6)"},
		{Error{Offset: 0, Msg: "x"}, "x (at byte 0)"},
		{Error{Offset: -1, Msg: "want an object, got JSON null"}, "want an object, got JSON null"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v.Error() = %q, want %q", tc.e, got, tc.want)
		}
	}
}

// TestSkipValue checks that SkipValue steps over each kind of value, in an
// object and in an array, to the byte that follows it, and stops at the
// end of text cut short.
func TestSkipValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string // the value, then what follows it
		want int    // the length of the value
	}{
		{`"a\"}" ,`, 6},
		{`12.5e3}`, 6},
		{`-1]`, 2},
		{`true ,`, 4},
		{`null` + "\n", 4},
		{`{"a": [1, "]}", {"b": {}}]} ,`, 27},
		{`[[], {}, "[", 3]]`, 16},
		{`{"a": [1, 2`, 11}, // cut short: the end
		{`"open`, 5},
	} {
		if got := SkipValue([]byte(tt.text), 0); got != tt.want {
			t.Errorf("SkipValue(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}
