package plantstore

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// appendJSON appends p's JSON, the bytes encoding/json's Marshal writes
// for it, to dst; or returns a *ValidationError for a plant the server
// must not see: an empty Name, or a Name or Tag that is not valid UTF-8
// (which encoding/json would silently alter). It checks the text as it
// encodes it, so that a create walks its strings once rather than twice,
// and skips encoding/json's reflection: about 2,500 instructions a call
// less, measured with callgrind (bench/BENCHMARKS.md). TestAppendJSON and
// FuzzAppendJSON hold it to encoding/json.
func (p *NewPlant) appendJSON(dst []byte) ([]byte, error) {
	if p.Name == "" {
		return nil, &ValidationError{Field: "name", Reason: "is required"}
	}
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, p.ID, 10)
	dst = append(dst, `,"name":`...)
	dst, ok := appendJSONString(dst, p.Name)
	if !ok {
		return nil, &ValidationError{Field: "name", Reason: "is not valid UTF-8"}
	}
	if p.Tag != "" {
		dst = append(dst, `,"tag":`...)
		if dst, ok = appendJSONString(dst, p.Tag); !ok {
			return nil, &ValidationError{Field: "tag", Reason: "is not valid UTF-8"}
		}
	}
	return append(dst, '}'), nil
}

// appendJSONString appends s as encoding/json writes a string, HTML-safe
// escapes included, and reports false if s is not valid UTF-8 (which
// encoding/json would silently turn into U+FFFD).
func appendJSONString(dst []byte, s string) ([]byte, bool) {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is yet to be appended, unchanged
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe(b) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // control characters, and <, > and & for HTML
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return dst, false
		}
		if r == '\u2028' || r == '\u2029' { // line separators JavaScript does not allow in strings
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}

// jsonSafe reports whether encoding/json writes the ASCII byte b as it is
// in an HTML-safe string.
func jsonSafe(b byte) bool {
	return b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
}

// decodePlant decodes a Plant document into *out as json.Unmarshal does.
// The documents a Plant Store sends take a short path: an object whose
// members are "name" and "tag" with strings that need no unescaping (valid
// UTF-8, no backslash, no control character), with any JSON whitespace.
// That path costs a create about 7,000 instructions less than
// json.Unmarshal (callgrind, bench/BENCHMARKS.md); anything else, an
// error included, goes to json.Unmarshal, so the outcome is always
// json.Unmarshal's. TestDecodePlant and FuzzDecodePlant check that.
func decodePlant(data []byte, out *Plant) error {
	if decodeSimplePlant(data, out) {
		return nil
	}
	*out = Plant{}
	return json.Unmarshal(data, out)
}

// decodeSimplePlant decodes data into *out if it is a simple Plant
// document (see decodePlant), and reports whether it was. When it was not,
// *out may have been changed.
func decodeSimplePlant(data []byte, out *Plant) bool {
	i := skipJSONSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = skipJSONSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipJSONSpace(data, i+1) == len(data)
	}
	for {
		key, next, ok := simpleJSONString(data, i)
		if !ok {
			return false
		}
		i = skipJSONSpace(data, next)
		if i == len(data) || data[i] != ':' {
			return false
		}
		val, next, ok := simpleJSONString(data, skipJSONSpace(data, i+1))
		if !ok {
			return false
		}
		switch string(key) {
		case "name":
			out.Name = string(val)
		case "tag":
			out.Tag = string(val)
		default:
			return false
		}
		i = skipJSONSpace(data, next)
		if i == len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return skipJSONSpace(data, i+1) == len(data)
		case ',':
			i = skipJSONSpace(data, i+1)
		default:
			return false
		}
	}
}

// simpleJSONString returns the contents of the JSON string at data[i:] and
// the index after it, if it is one that needs no unescaping: valid UTF-8,
// without a backslash or a control character.
func simpleJSONString(data []byte, i int) (s []byte, next int, ok bool) {
	if i >= len(data) || data[i] != '"' {
		return nil, 0, false
	}
	start := i + 1
	for j := start; j < len(data); j++ {
		switch b := data[j]; {
		case b == '"':
			s = data[start:j]
			return s, j + 1, utf8.Valid(s)
		case b == '\\' || b < ' ':
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// skipJSONSpace returns the index of the first byte at or after i that is
// not JSON whitespace.
func skipJSONSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
