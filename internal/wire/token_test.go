package wire

import "testing"

func TestTokenProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		token, want string
	}{
		{"s3cr3t-t0ken", ""},
		{"!~", ""},
		{"a.b_c-d+e/f=", ""},
		{"", "must not be empty"},
		{"s3cr3t t0ken", "has an invalid character at byte 6 (want visible ASCII)"},
		{"tab\there", "has an invalid character at byte 3 (want visible ASCII)"},
		{"del\x7f", "has an invalid character at byte 3 (want visible ASCII)"},
		{"caf\xc3\xa9", "has an invalid character at byte 3 (want visible ASCII)"},
	}
	for _, tt := range tests {
		if got := TokenProblem(tt.token); got != tt.want {
			t.Errorf("TokenProblem(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
}

func TestRedactCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value, want string
	}{
		{"Bearer s3cr3t-t0ken", "Bearer REDACTED"},
		{"Basic dXNlcjpwYXNz", "Basic REDACTED"},
		{"bearer s3cr3t", "bearer REDACTED"},
		{"s3cr3t-t0ken", "REDACTED"},
		{"", "REDACTED"},
	}
	for _, tt := range tests {
		if got := RedactCredentials(tt.value); got != tt.want {
			t.Errorf("RedactCredentials(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}
