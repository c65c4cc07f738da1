package plantstore

import (
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
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
		if got := redact(tt.text, []string{tok}); got != tt.want {
			t.Errorf("redact(%s: %q) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
		if got := redact([]byte(tt.text), []string{tok}); string(got) != tt.want {
			t.Errorf("redact([]byte(%s: %q)) = %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
	if got := redact("x-"+testToken+"-y "+tok, []string{tok, testToken}); got != "x-REDACTED-y REDACTED" {
		t.Errorf("redact with two tokens = %q, want both replaced", got)
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
