package conformance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// printable returns s with each character strconv.IsPrint refuses
// ([wire.ReplaceUnprintable]'s rule) and each byte of invalid UTF-8
// written as a Go escape, as strconv.Quote writes them, but without
// quotes: a sentence that quotes what a target sent stays one line of
// plain text (see the package doc).
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
// controls, bidirectional overrides), which it writes as \u escapes.
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
