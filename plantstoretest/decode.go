package plantstoretest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
)

// decodePlant decodes body as a NewPlant, strictly, as documented on
// Handler. encoding/json alone is too lenient for a fake: it replaces
// invalid UTF-8 and unpaired surrogates with U+FFFD, keeps the last of
// repeated fields, matches field names without regard to case, and turns
// 1.0 into an int64.
func decodePlant(body []byte) (plantstore.NewPlant, *Error) {
	if i := invalidUTF8(body); i >= 0 {
		return plantstore.NewPlant{}, invalidJSON("body is not valid UTF-8 (at byte %d)", i)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		var syntax *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF):
			return plantstore.NewPlant{}, invalidJSON("body is empty; want a JSON object")
		case errors.As(err, &syntax):
			return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v (at byte %d)", err, syntax.Offset)
		default:
			return plantstore.NewPlant{}, invalidJSON("body is not valid JSON: %v", err)
		}
	}
	if len(bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n")) > 0 {
		return plantstore.NewPlant{}, invalidJSON("unexpected data after the JSON object (at byte %d)", dec.InputOffset())
	}
	if obj[0] != '{' {
		return plantstore.NewPlant{}, invalidJSON("body must be a JSON object, got %s", kindOf(obj))
	}
	fields, e := objectFields(obj)
	if e != nil {
		return plantstore.NewPlant{}, e
	}

	var p plantstore.NewPlant
	if p.ID, e = decodeID(fields["id"]); e != nil {
		return plantstore.NewPlant{}, e
	}
	raw, ok := fields["name"]
	if !ok {
		return plantstore.NewPlant{}, invalidPlant("name is required")
	}
	if p.Name, e = decodeString("name", raw); e != nil {
		return plantstore.NewPlant{}, e
	}
	if p.Name == "" {
		return plantstore.NewPlant{}, invalidPlant("name must not be empty")
	}
	if raw, ok := fields["tag"]; ok {
		if p.Tag, e = decodeString("tag", raw); e != nil {
			return plantstore.NewPlant{}, e
		}
	}
	return p, nil
}

func invalidJSON(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidJSON, Message: fmt.Sprintf(format, args...)}
}

func invalidPlant(format string, args ...any) *Error {
	return &Error{Code: CodeInvalidPlant, Message: fmt.Sprintf(format, args...)}
}

// invalidUTF8 returns the offset of the first byte of b that is not valid
// UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// objectFields splits obj, a valid JSON object, into its fields, and
// rejects a field name that appears twice: JSON leaves the meaning of
// repeated names undefined, and servers differ on which one wins.
func objectFields(obj json.RawMessage) (map[string]json.RawMessage, *Error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil, invalidJSON("body is not valid JSON: %v", err)
	}
	fields := make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, invalidJSON("body is not valid JSON: %v", err)
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, invalidJSON("body is not valid JSON: %v", err)
		}
		if _, dup := fields[name]; dup {
			return nil, invalidJSON("field %q appears more than once", name)
		}
		fields[name] = value
	}
	return fields, nil
}

// decodeID decodes the id field, which must be present and an integer
// literal (no fraction or exponent) that fits in int64. A nil raw means the
// field is missing.
func decodeID(raw json.RawMessage) (int64, *Error) {
	if raw == nil {
		return 0, invalidPlant("id is required")
	}
	const want = "id must be an integer that fits in int64"
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return 0, invalidPlant("%s, got %s", want, kindOf(raw))
	}
	if bytes.ContainsAny(raw, ".eE") {
		return 0, invalidPlant("%s (no fraction or exponent), got %s", want, abbreviate(raw))
	}
	id, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, invalidPlant("%s, got %s", want, abbreviate(raw))
	}
	return id, nil
}

// decodeString decodes the field called name, which must be a JSON string
// without unpaired surrogate escapes.
func decodeString(name string, raw json.RawMessage) (string, *Error) {
	if raw[0] != '"' {
		return "", invalidPlant("%s must be a string, got %s", name, kindOf(raw))
	}
	if esc := unpairedSurrogate(raw); esc != "" {
		return "", invalidPlant("%s contains the unpaired surrogate escape %s, which is not a character", name, esc)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalidPlant("%s must be a string: %v", name, err)
	}
	return s, nil
}

// unpairedSurrogate returns the first \uXXXX escape in lit, a valid JSON
// string literal, that is half of a UTF-16 surrogate pair without the other
// half, or "" if there is none.
func unpairedSurrogate(lit []byte) string {
	for i := 1; i < len(lit)-1; i++ {
		if lit[i] != '\\' {
			continue
		}
		if lit[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		r := hex4(lit[i+2 : i+6])
		switch {
		case !utf16.IsSurrogate(r):
			i += 5
		case r >= 0xDC00: // a low surrogate with no high one before it
			return string(lit[i : i+6])
		case i+12 <= len(lit) && lit[i+6] == '\\' && lit[i+7] == 'u' &&
			utf16.DecodeRune(r, hex4(lit[i+8:i+12])) != utf8.RuneError:
			i += 11
		default:
			return string(lit[i : i+6])
		}
	}
	return ""
}

// hex4 decodes four hexadecimal digits, which a valid JSON literal
// guarantees.
func hex4(b []byte) rune {
	n, _ := strconv.ParseUint(string(b), 16, 16)
	return rune(n)
}

// kindOf names the kind of JSON value v is, for messages.
func kindOf(v json.RawMessage) string {
	switch v[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	default:
		return "a number"
	}
}

// abbreviate returns v, shortened if it is too long to quote in a message.
func abbreviate(v json.RawMessage) string {
	const max = 32
	if len(v) > max {
		return string(v[:max]) + "…"
	}
	return string(v)
}
