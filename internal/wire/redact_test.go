package wire

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

// forms are the ways a peer may echo a token that Redact knows.
var forms = []struct {
	name   string
	encode func(string) string
}{
	{"as written", func(s string) string { return s }},
	{"JSON, escaped slash", func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
	{"JSON, every character as \\u", func(s string) string { return jsonEscapeAll(s, "\\u%04X") }},
	{"URL query", url.QueryEscape},
	{"percent, every character", func(s string) string { return jsonEscapeAll(s, "%%%02x") }},
	{"HTML", html.EscapeString},
	{"HTML, hexadecimal, 8 digits", func(s string) string { return jsonEscapeAll(s, "&#x%08X;") }},
}

func TestRedact(t *testing.T) {
	t.Parallel()
	const other = "s3cr3t-t0ken"
	const tok = "ab/c&d+e=f%g<h>\\i\"j'k" // ab/c&d+e=f%g<h>\i"j'k
	tests := []struct {
		name, text, want string
	}{
		{"absent", "nothing to see", "nothing to see"},
		{"raw", "Bearer " + tok + "!", "Bearer REDACTED!"},
		{"twice", tok + tok, "REDACTEDREDACTED"},
		{"JSON, Go style", `"ab/c\u0026d+e=f%g\u003ch\u003e\\i\"j'k"`, `"REDACTED"`},
		{"JSON, escaped slash", `ab\/c&d+e=f%g<h>\\i\"j'k`, "REDACTED"},
		{"JSON, every character as \\u, upper case", jsonEscapeAll(tok, "\\u%04X"), "REDACTED"},
		{"JSON, every character as \\u, lower case", jsonEscapeAll(tok, "\\u%04x"), "REDACTED"},
		{"URL query", "?t=" + url.QueryEscape(tok) + "&x=1", "?t=REDACTED&x=1"},
		{"URL path", "/" + url.PathEscape(tok), "/REDACTED"},
		{"percent, lower case", strings.ToLower(url.QueryEscape(tok)), "REDACTED"},
		{"HTML", html.EscapeString(tok), "REDACTED"},
		{"HTML, numeric", "ab&#47;c&#x26;d&#X2b;e=f&#37;g&lt;h&gt;\\i&quot;j&apos;k", "REDACTED"},
		{"prefix only", "ab/c&d+e=f", "ab/c&d+e=f"},
		{"escape of another character", `ab\/c&d+e=f%g<h>\\i\"j\u0026k`, `ab\/c&d+e=f%g<h>\\i\"j\u0026k`},
		{"broken escapes nearby", `%zz\u12&#;` + tok + `%`, `%zz\u12&#;REDACTED%`},
	}
	for _, tt := range tests {
		if got := Redact(tt.text, []string{tok}); got != tt.want {
			t.Errorf("Redact(%s: %q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
		if got := Redact([]byte(tt.text), []string{tok}); string(got) != tt.want {
			t.Errorf("Redact([]byte(%s: %q)) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
	if got := Redact("x-"+other+"-y "+tok, []string{tok, other}); got != "x-REDACTED-y REDACTED" {
		t.Errorf("Redact with two tokens = %q, want both replaced", got)
	}
}

// TestRedactShortToken checks that a token shorter than MinRedactedToken
// is replaced only after the bearer scheme, in every form, and that the
// scheme stays.
func TestRedactShortToken(t *testing.T) {
	t.Parallel()
	const tok = "d/v" // 3 bytes
	tests := []struct {
		name, text, want string
	}{
		{"a word that contains it", "no d/vision here", "no d/vision here"},
		{"after Bearer", "got Bearer d/v.", "got Bearer REDACTED."},
		{"after bearer", "got bearer d/v", "got bearer REDACTED"},
		{"after another scheme", "got Basic d/v", "got Basic d/v"},
		{"JSON, escaped slash", `"Bearer d\/v"`, `"Bearer REDACTED"`},
		{"percent-encoded", "Bearer%20d%2Fv", "Bearer REDACTED"},
		{"HTML, numeric", "Bearer d&#47;v", "Bearer REDACTED"},
		{"twice", "Bearer d/v Bearer d/v", "Bearer REDACTED Bearer REDACTED"},
	}
	for _, tt := range tests {
		if got := Redact(tt.text, []string{tok}); got != tt.want {
			t.Errorf("Redact(%s: %q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
	if got := Redact("Bearer ", []string{""}); got != "Bearer " {
		t.Errorf("Redact with an empty token = %q, want the text unchanged", got)
	}
}

// jsonEscapeAll writes every byte of s as a \u escape in format.
func jsonEscapeAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// TestRedactCut checks that a text cut anywhere inside a token, in any
// form, keeps no byte of it, and that a token whole before the cut is
// replaced as Redact replaces it.
func TestRedactCut(t *testing.T) {
	t.Parallel()
	const tok = "ab/c&d+e=f<g>"
	const pad = "x y "
	for _, form := range forms {
		enc := form.encode(tok)
		for k := 1; k < len(enc); k++ {
			if got := RedactCut(pad+enc[:k], []string{tok}); got != pad {
				t.Errorf("RedactCut(%q, %s, cut after %d bytes) = %q, want %q", pad+enc[:k], form.name, k, got, pad)
			}
		}
		if got := RedactCut(pad+enc, []string{tok}); got != pad+"REDACTED" {
			t.Errorf("RedactCut(%q, %s, whole) = %q, want %q", pad+enc, form.name, got, pad+"REDACTED")
		}
	}
	for _, tt := range []struct {
		name, text, want string
		tokens           []string
	}{
		{"nothing of it", pad + "zzz", pad + "zzz", []string{tok}},
		{"an earlier match stays replaced", tok + pad + "ab", "REDACTED" + pad, []string{tok}},
		{"a short token after the scheme", pad + "Bearer d/", pad, []string{"d/v"}},
		{"a short token without it", pad + "d/", pad + "d/", []string{"d/v"}},
		{"the second of two tokens", pad + "s3cr", pad, []string{tok, "s3cr3t-t0ken"}},
		{"no token", pad + "ab", pad + "ab", nil},
		{"empty", "", "", []string{tok}},
	} {
		if got := RedactCut(tt.text, tt.tokens); got != tt.want {
			t.Errorf("RedactCut(%s: %q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
		if got := RedactCut([]byte(tt.text), tt.tokens); string(got) != tt.want {
			t.Errorf("RedactCut([]byte(%s: %q)) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

// TestMayHold checks that MayHold is false only where Redact finds
// nothing: for a plain token and a short one, in every form a peer may
// echo, alone and among other text, and for text that holds neither.
func TestMayHold(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"s3cr3t-t0ken-plain", "dev"} {
		tokens := []string{tok}
		texts := []string{"", "application/json", "Mon, 07 Dec 2026 14:21:07 GMT", "7b2b0c58-6c5e-4c6f", "Bearer", tok[:len(tok)-1]}
		for _, f := range forms {
			texts = append(texts, f.encode(tok), "x "+f.encode(tok)+" y", "Bearer "+f.encode(tok), "bearer "+f.encode(tok))
		}
		for _, text := range texts {
			redacted := Redact(text, tokens) != text
			if got := MayHold(text, tokens); !got && redacted {
				t.Errorf("MayHold(%q, %q) = false, and Redact replaces something", text, tok)
			}
		}
		for _, text := range []string{"application/json", "Mon, 07 Dec 2026 14:21:07 GMT", "7b2b0c58-6c5e-4c6f"} {
			if MayHold(text, tokens) {
				t.Errorf("MayHold(%q, %q) = true for text with no escape and no token", text, tok)
			}
		}
	}
}
