package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A target controls much of what a report shows: bodies, headers, the
// strings of a JSON body a check quotes in its problem. Shown raw on the
// terminal of the kit's user, an ESC sequence, a carriage return, a BEL or
// a C1 control (U+0080 to U+009F) could clear the screen, set its title or
// overwrite a line, and a line break could add a line that reads as a
// PASS. So every such string reaches the text report and Run's log
// escaped, by one rule, strconv.Quote's: a character strconv.IsPrint
// refuses is written as a Go escape. A value (a body, a header, an answer)
// is shown quoted; a sentence that holds target text (a check's Problem, an
// exchange's Error) is escaped without quotes. The JSON report escapes the
// same characters as \u escapes.

// printable returns s with each character strconv.IsPrint refuses (C0 and
// C1 controls, DEL, line and paragraph separators, bidirectional
// overrides) and each byte of invalid UTF-8 written as a Go escape, as
// strconv.Quote writes them, but without quotes: a sentence that quotes
// what a target sent stays one line of plain text.
func printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if b.Len() == 0 {
				b.WriteString(s[:i])
			}
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !strconv.IsPrint(r):
			if b.Len() == 0 {
				b.WriteString(s[:i])
			}
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		case b.Len() > 0:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	if b.Len() == 0 {
		return s
	}
	return b.String()
}

// MarshalJSON writes r as encoding/json does, but for the characters that
// strconv.IsPrint refuses and encoding/json leaves as they are (DEL, the C1
// controls, bidirectional overrides), which it writes as \u escapes: the
// -json report, printed on a terminal, cannot drive it. The values are
// unchanged.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // without this method
	data, err := json.Marshal(plain(r))
	if err != nil {
		return nil, err
	}
	return escapeUnprintable(data), nil
}

// escapeUnprintable writes each character of the JSON text data that
// strconv.IsPrint refuses as a \u escape (two, for one past U+FFFF). In
// JSON text from encoding/json every such character is inside a string,
// and the C0 controls are escaped already.
func escapeUnprintable(data []byte) []byte {
	var out []byte // nil until the first escape
	last := 0
	for i := 0; i < len(data); {
		if c := data[i]; c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if strconv.IsPrint(r) {
			i += n
			continue
		}
		out = append(out, data[last:i]...)
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += n
		last = i
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}
