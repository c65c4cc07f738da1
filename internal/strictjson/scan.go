package strictjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The functions below step over and read parts of JSON text without
// allocating (but for a string with escapes), for [Valid]'s walk and
// plantstoretest's decoders of a plant and a seed. They check nothing, but
// do not read past the end of text that json.Valid would reject.

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace, or len(b).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// SkipString returns the index just past the string literal that starts
// at b[i], or len(b) if it does not end.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++ // the escaped character, which may be a quote
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// SkipValue returns the index just past the value that starts at b[i], an
// object's field or an array's element, however deeply nested: a number,
// true, false or null ends at a comma, a closing bracket or brace, or
// whitespace.
func SkipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = SkipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return len(b)
}

// Unescape returns the text of the string literal lit. Without escapes
// that is lit's own bytes, between the quotes; otherwise encoding/json
// decodes it, and turns an unpaired surrogate escape into U+FFFD. A lit
// that is not a valid literal is returned as it is.
func Unescape(lit []byte) []byte {
	if bytes.IndexByte(lit, '\\') < 0 && len(lit) >= 2 {
		return lit[1 : len(lit)-1]
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return lit
	}
	return []byte(s)
}

// InvalidUTF8 returns the offset of the first byte of b that is not valid
// UTF-8, or -1.
func InvalidUTF8(b []byte) int {
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

// UnpairedSurrogate returns the first \uXXXX escape in lit, a JSON string
// literal (one that is not valid gets an answer, not a panic), that is half
// of a UTF-16 surrogate pair without the other half, or "" if there is
// none: such an escape is not a character, and encoding/json would
// silently make it U+FFFD. Every string the module reads is held to it:
// [Decode] refuses one anywhere in a body, and the fake's POST /plants in
// a plant's name and tag.
func UnpairedSurrogate(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return "" // the usual string: no escape at all
	}
	for i := 1; i < len(lit)-1; i++ {
		if lit[i] != '\\' {
			continue
		}
		if lit[i+1] != 'u' {
			i++ // skip the escaped character, which may be a backslash
			continue
		}
		if i+6 > len(lit) {
			return "" // cut short: not a valid literal
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
