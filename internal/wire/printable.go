package wire

import (
	"strconv"
	"unicode/utf8"
)

// ReplaceUnprintable returns text with each character that must not reach
// a terminal or a log line as written replaced by what with appends to dst
// for it; text is not modified, and the result is a copy only when
// something was replaced. A peer's text (a server's message or request
// id, a target's answer) could otherwise clear a screen, forge a line or
// reorder what a reader sees. This is the one rule of the module for such
// text: the client makes it printable with it and the conformance kit
// escapes it with it.
//
// Such a character is one [strconv.IsPrint] refuses, which is the
// definition of [unicode.IsPrint]: C0 and C1 controls, DEL, every space
// but U+0020, the line and paragraph separators, and the format
// characters, bidirectional marks, embeddings, overrides and isolates
// among them (U+200E, U+200F, U+061C, U+202A to U+202E, U+2066 to
// U+2069). Each byte of invalid UTF-8 is one too: with gets that byte
// alone as c, where it otherwise gets the character's encoding.
func ReplaceUnprintable[T string | []byte](text T, with func(dst []byte, r rune, c T) []byte) T {
	var out []byte
	replaced := false
	last := 0
	for i := 0; i < len(text); {
		if c := text[i]; ' ' <= c && c < 0x7f {
			i++ // the usual case: printable ASCII
			continue
		}
		var r rune
		var n int
		if s, ok := any(text).(string); ok {
			r, n = utf8.DecodeRuneInString(s[i:])
		} else {
			r, n = utf8.DecodeRune(any(text).([]byte)[i:])
		}
		if strconv.IsPrint(r) && (r != utf8.RuneError || n > 1) {
			i += n
			continue
		}
		out = append(out, text[last:i]...)
		out = with(out, r, text[i:i+n])
		replaced = true
		i += n
		last = i
	}
	if !replaced {
		return text
	}
	return T(append(out, text[last:]...))
}
