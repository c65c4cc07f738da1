package wire

import (
	"strings"
	"unicode/utf8"
)

// MinRedactedToken is the shortest token [Redact] looks for wherever it
// appears. Real bearer tokens are far longer; replacing a shorter one, such
// as a development "dev", everywhere would mangle every word that contains
// it, so a shorter one is looked for only where "Bearer " or "bearer "
// precedes it.
const MinRedactedToken = 8

// Redact replaces each of tokens in text with REDACTED, wherever text holds
// it as written or escaped in one of the ways a server that echoes it back
// (a proxy's debug page, an error that quotes the request) plausibly
// escapes it: as a JSON string (\/, \", \\, \uXXXX for any character),
// percent-encoded (%2F or %2f, for any character) or as HTML (&amp;, &#47;,
// &#x2F;). A token shorter than [MinRedactedToken] is replaced only where
// "Bearer " or "bearer " precedes it, in the same forms, and the scheme is
// kept: "Bearer REDACTED". text is not modified; the result is a copy only
// when something was replaced. The client (its errors, its request ids)
// and the conformance kit (its reports) redact with this one rule.
//
// A base64 form is not looked for: no echo encodes a header that way, and a
// match would depend on where the token fell among three byte alignments.
func Redact[T string | []byte](text T, tokens []string) T {
	for _, token := range tokens {
		for _, n := range needles(token) {
			text = replace(text, n.find, n.with)
		}
	}
	return text
}

// MayHold reports whether [Redact] could find one of tokens in s: false
// when s holds no byte of [escapes] and none of tokens as written. The
// client's header redaction asks it first: its vectorised searches pass a
// header that echoes no token for a fraction of Redact's byte-by-byte walk
// (bench/BENCHMARKS.md, "The header redacted only for hooks that read
// it": 800 instructions a create of the 3,800 the walk cost).
func MayHold(s string, tokens []string) bool {
	for _, esc := range escapes {
		if strings.IndexByte(s, esc) >= 0 {
			return true
		}
	}
	for _, token := range tokens {
		for _, n := range needles(token) {
			if strings.Contains(s, n.find) {
				return true
			}
		}
	}
	return false
}

// RedactCut is [Redact] for text cut from a longer one, such as a body
// read up to a limit: it also drops the end of text from the first byte
// where what is left could be the start of a token, in any form Redact
// knows, whose rest the cut took, so that no part of a token shows. An
// escape cut short (a final "%2" or "&#4") counts as one that could be.
// What it drops is shorter than the longest form of the longest token, 12
// bytes a character.
func RedactCut[T string | []byte](text T, tokens []string) T {
	text = Redact(text, tokens)
	cut := len(text)
	for _, token := range tokens {
		for _, n := range needles(token) {
			for i := max(0, len(text)-maxEscape*len(n.find)); i < cut; i++ {
				if startsToken(text[i:], n.find) {
					cut = i
					break
				}
			}
		}
	}
	return text[:cut]
}

// A needle is what Redact looks for to find one token, and what replaces it.
type needle struct{ find, with string }

// needles returns what [Redact] looks for to find token: the token, or, for
// one shorter than MinRedactedToken, the token after the bearer scheme.
func needles(token string) []needle {
	switch {
	case token == "":
		return nil
	case len(token) >= MinRedactedToken:
		return []needle{{token, "REDACTED"}}
	}
	return []needle{{"Bearer " + token, "Bearer REDACTED"}, {"bearer " + token, "bearer REDACTED"}}
}

// replace replaces token in text, in every form of [Redact], with r.
func replace[T string | []byte](text T, token, r string) T {
	var out []byte // nil until the first match
	last := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != token[0] && c != '\\' && c != '%' && c != '&' {
			continue // the usual case: no match can start here
		}
		n := matchToken(text[i:], token)
		if n == 0 {
			continue
		}
		out = append(out, text[last:i]...)
		out = append(out, r...)
		last = i + n
		i = last - 1
	}
	if out == nil {
		return text
	}
	return T(append(out, text[last:]...))
}

// escapes are the ways Redact looks for a token: each is the character
// that starts an escape, in text escaped that way.
var escapes = [...]byte{'\\', '%', '&'}

// matchToken returns the length of the text at the start of s that spells
// token, as written or escaped in one of the ways of [escapes]; 0 if none
// does.
func matchToken[T string | []byte](s T, token string) int {
	if len(s) >= len(token) && string(s[:len(token)]) == token {
		return len(token)
	}
	for _, esc := range escapes {
		if n, _ := matchEscaped(s, token, esc); n > 0 {
			return n
		}
	}
	return 0
}

// maxEscape is the length of the longest escape of one character that
// unescape decodes: an HTML reference with 8 hexadecimal digits, such as
// &#x0000002F;.
const maxEscape = 12

// startsToken reports whether s, all of it, could be the start of token as
// written or escaped in one of the ways of [escapes], the rest of it cut
// off (see matchEscaped).
func startsToken[T string | []byte](s T, token string) bool {
	for _, esc := range escapes {
		if _, partial := matchEscaped(s, token, esc); partial {
			return true
		}
	}
	return false
}

// matchEscaped is matchToken for text escaped one way, the one whose
// escapes start with esc. There an escape is tried before the character
// itself, because the escape character is itself escaped in such text; any
// other character is only taken as written. partial reports that s could
// be the start of token cut short: s ran out first, or holds, near its end,
// an escape character that starts no escape, which a cut may have
// shortened (it is then taken as written, for n).
func matchEscaped[T string | []byte](s T, token string, esc byte) (n int, partial bool) {
	j := 0
	for i := 0; i < len(token); i++ {
		if j == len(s) {
			return 0, true
		}
		if s[j] == esc {
			if c, w := unescape(s[j:]); w > 0 {
				if c != token[i] {
					return 0, partial
				}
				j += w
				continue
			}
			partial = partial || len(s)-j < maxEscape
		}
		if s[j] != token[i] {
			return 0, partial
		}
		j++
	}
	return j, partial
}

// unescape decodes the ASCII character that a JSON, percent or HTML escape
// at the start of s stands for, and its length; n is 0 if s starts with
// none.
func unescape[T string | []byte](s T) (c byte, n int) {
	switch {
	case len(s) >= 2 && s[0] == '\\' && (s[1] == '"' || s[1] == '\\' || s[1] == '/'):
		return s[1], 2
	case len(s) >= 6 && s[0] == '\\' && s[1] == 'u':
		if v, ok := parseDigits(s[2:6], 16); ok && v < utf8.RuneSelf {
			return byte(v), 6
		}
	case len(s) >= 3 && s[0] == '%':
		if v, ok := parseDigits(s[1:3], 16); ok {
			return byte(v), 3
		}
	case len(s) >= 4 && s[0] == '&':
		return unescapeHTML(s)
	}
	return 0, 0
}

// unescapeHTML decodes an HTML character reference to an ASCII character:
// one of the five that HTML escapers name, or a number such as &#47; or
// &#x2F;.
func unescapeHTML[T string | []byte](s T) (c byte, n int) {
	end := 1
	for end < len(s) && end < maxEscape && s[end] != ';' {
		end++
	}
	if end == len(s) || s[end] != ';' {
		return 0, 0
	}
	ref := s[1:end]
	if c, ok := htmlNamed[string(ref)]; ok {
		return c, end + 1
	}
	if len(ref) < 2 || ref[0] != '#' {
		return 0, 0
	}
	digits, base := ref[1:], 10
	if ref[1] == 'x' || ref[1] == 'X' {
		digits, base = ref[2:], 16
	}
	v, ok := parseDigits(digits, base)
	if !ok || v >= utf8.RuneSelf {
		return 0, 0
	}
	return byte(v), end + 1
}

// htmlNamed are the character references HTML escapers use by name.
var htmlNamed = map[string]byte{"amp": '&', "lt": '<', "gt": '>', "quot": '"', "apos": '\''}

// parseDigits parses 1 to 8 digits of base 10 or 16, hexadecimal ones in
// either case.
func parseDigits[T string | []byte](s T, base int) (rune, bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	var v rune
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte("0123456789abcdefABCDEF", s[i])
		if d >= 16 {
			d -= 6 // A to F are a to f
		}
		if d < 0 || d >= base {
			return 0, false
		}
		v = v*rune(base) + rune(d)
	}
	return v, true
}
