package strictjson

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The functions below step over and read parts of JSON text without
// allocating (but for a string with escapes): the walk of [Check] and
// plantstoretest's POST /plants, which share them. They check nothing, but
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
