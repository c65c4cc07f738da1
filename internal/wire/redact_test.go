package wire

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

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
