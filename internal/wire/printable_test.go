package wire

import (
	"fmt"
	"testing"
	"unicode/utf8"
)

func TestReplaceUnprintable(t *testing.T) {
	t.Parallel()
	mark := func(dst []byte, r rune, c string) []byte {
		if r == utf8.RuneError && len(c) == 1 {
			return fmt.Appendf(dst, "<%x>", c)
		}
		return fmt.Appendf(dst, "<%U>", r)
	}
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text, é and 漢字 and \uFFFD", "plain text, é and 漢字 and \uFFFD"},
		{"tab\tnl\ncr\resc\x1bdel\x7f", "tab<U+0009>nl<U+000A>cr<U+000D>esc<U+001B>del<U+007F>"},
		{"c1\u0085\u009b", "c1<U+0085><U+009B>"},
		{"nbsp\u00a0ls\u2028ps\u2029", "nbsp<U+00A0>ls<U+2028>ps<U+2029>"},
		{"bidi\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", "bidi<U+200E><U+200F><U+061C><U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069>"},
		{"zwsp\u200b bom\ufeff", "zwsp<U+200B> bom<U+FEFF>"},
		{"bad\xff\xc3", "bad<ff><c3>"},
	}
	for _, tt := range tests {
		if got := ReplaceUnprintable(tt.in, mark); got != tt.want {
			t.Errorf("ReplaceUnprintable(%q) = %q, want %q", tt.in, got, tt.want)
		}
		markBytes := func(dst []byte, r rune, c []byte) []byte { return mark(dst, r, string(c)) }
		if got := ReplaceUnprintable([]byte(tt.in), markBytes); string(got) != tt.want {
			t.Errorf("ReplaceUnprintable([]byte(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
	drop := func(dst []byte, _ rune, _ string) []byte { return dst }
	if got := ReplaceUnprintable("\u202e", drop); got != "" {
		t.Errorf("ReplaceUnprintable(%q) with nothing for it = %q, want \"\"", "\u202e", got)
	}
}

func TestReplaceUnprintableAllocatesNothingForPrintableText(t *testing.T) {
	drop := func(dst []byte, _ rune, _ string) []byte { return dst }
	if n := testing.AllocsPerRun(100, func() { ReplaceUnprintable("printable é text", drop) }); n != 0 {
		t.Errorf("ReplaceUnprintable of printable text: %v allocations, want 0", n)
	}
}
