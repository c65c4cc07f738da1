package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
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
// overrides: [wire.ReplaceUnprintable]'s rule) and each byte of invalid
// UTF-8 written as a Go escape, as strconv.Quote writes them, but without
// quotes: a sentence that quotes what a target sent stays one line of
// plain text.
func printable(s string) string {
	return wire.ReplaceUnprintable(s, func(dst []byte, r rune, c string) []byte {
		if r == utf8.RuneError && len(c) == 1 {
			return fmt.Appendf(dst, `\x%02x`, c[0])
		}
		q := strconv.QuoteRune(r)
		return append(dst, q[1:len(q)-1]...)
	})
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
// [wire.ReplaceUnprintable] finds as a \u escape (two, for one past
// U+FFFF). In JSON text from encoding/json every such character is inside
// a string, and the C0 controls are escaped already.
func escapeUnprintable(data []byte) []byte {
	return wire.ReplaceUnprintable(data, func(dst []byte, r rune, _ []byte) []byte {
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			return fmt.Appendf(dst, `\u%04x\u%04x`, r1, r2)
		}
		return fmt.Appendf(dst, `\u%04x`, r)
	})
}
