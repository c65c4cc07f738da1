package strictjson

import (
	"cmp"
	"encoding/json"
	"reflect"
	"strings"
)

// Decode decodes data, one JSON value in UTF-8, into v, a non-nil pointer,
// by the package's rule. It refuses, in this order and before it decodes
// anything: bytes that are not UTF-8; no value, bad syntax or data after
// the value; null, or a value of another kind where v points to a struct,
// a map, a slice or an array; a repeated or unknown field name, more than
// maxValues values; a value of the wrong type for its field. Then it
// decodes with encoding/json.
//
// The error is an [*Error], in JSON's terms (no Go type names) and the
// same on every Go: its Offset is where a problem of the text starts, or
// -1 for a value of the wrong type, whose message names the field by its
// path of struct fields instead, as in
// `field "match.id": want an integer, got JSON number 1.5`.
func Decode(data []byte, maxValues int, v any) error {
	if err := Valid(data, v); err != nil {
		return err
	}
	if err := check(data, maxValues, v); err != nil {
		return err
	}
	// Only a type that decodes itself can fail here.
	if err := json.Unmarshal(data, v); err != nil {
		return &Error{Offset: -1, Msg: strings.TrimPrefix(err.Error(), "json: ")}
	}
	return nil
}

// Valid runs the steps of [Decode] before the walk over names and values,
// which decode and allocate nothing for good data, whatever its length:
// for a body, such as a seed of plants, that is not decoded whole, and the
// fake's POST /plants. Of v, a pointer, only the type is used.
func Valid(data []byte, v any) error {
	if e := explain(data, v); e.Msg != "" {
		refused := e // declared here, so that only a refusal allocates it (TestDecodePlantAllocations)
		return &refused
	}
	return nil
}

// explain is Valid, with the error as a value and an empty Msg for data
// Valid accepts.
func explain(data []byte, v any) Error {
	t := reflect.TypeOf(v).Elem()
	if i := InvalidUTF8(data); i >= 0 {
		return Error{Offset: i, Msg: "not valid UTF-8"}
	}
	i := SkipSpace(data, 0)
	if i == len(data) {
		return Error{Offset: -1, Msg: "no JSON value; want " + wantOf(t)}
	}
	if !json.Valid(data) {
		return syntaxError(data)
	}
	// encoding/json leaves v as it is for null, and names Go types.
	k, c := kindOf(t), data[i]
	if c == 'n' || (k == '{' || k == '[') && c != k {
		return Error{Offset: -1, Msg: "want " + wantOf(t) + ", got JSON " + Kind(c)}
	}
	return Error{}
}

// syntaxError says what makes data, which json.Valid refused, not one JSON
// value, and where.
func syntaxError(data []byte) Error {
	// Unmarshal checks all of data's syntax before it decodes anything;
	// its SyntaxError's Offset counts the byte at fault, which data holds.
	err := json.Unmarshal(data, new(struct{}))
	syntax, ok := err.(*json.SyntaxError)
	switch {
	case !ok:
		return Error{Offset: -1, Msg: "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}
	case syntax.Error() == "unexpected end of JSON input",
		// At the end, Unmarshal feeds its scanner a space: a literal
		// cut short fails on a space data does not hold.
		syntax.Offset == int64(len(data)) && data[len(data)-1] != ' ' && strings.HasPrefix(syntax.Error(), "invalid character ' '"):
		return Error{Offset: len(data), Msg: "invalid JSON: cut short"}
	case strings.HasSuffix(syntax.Error(), "after top-level value"):
		return Error{Offset: int(syntax.Offset - 1), Msg: "invalid JSON: data after the value"}
	}
	return Error{Offset: int(syntax.Offset - 1), Msg: "invalid JSON: " + syntax.Error()}
}

// wantOf names the JSON value that a t decodes from.
func wantOf(t reflect.Type) string {
	if want := kindOf(t); want != '0' {
		return cmp.Or(wants[want], "another type")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k := t.Kind(); k == reflect.Float32 || k == reflect.Float64 {
		return "a number"
	}
	return "an integer"
}

// wants names the JSON values of the kinds of kindOf but numbers.
var wants = map[byte]string{'{': "an object", '[': "an array", '"': "a string", 't': "true or false"}

// Kind names the kind of the JSON value that starts with c, as
// encoding/json's errors do: object, array, string, bool, null or number.
func Kind(c byte) string {
	return cmp.Or(kindNames[c], "number")
}

var kindNames = map[byte]string{'{': "object", '[': "array", '"': "string", 't': "bool", 'f': "bool", 'n': "null"}
