package wire

import (
	"net/http"
	"testing"
)

func TestParseBearer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		values      []string
		wantToken   string
		wantProblem BearerProblem
	}{
		{"none", nil, "", BearerMissing},
		{"bearer", []string{"Bearer s3cret"}, "s3cret", BearerOK},
		{"scheme in any case, several spaces", []string{"bEaReR   s3cret"}, "s3cret", BearerOK},
		{"two headers", []string{"Bearer a", "Bearer b"}, "", BearerRepeated},
		{"basic", []string{"Basic dXNlcjpwYXNz"}, "", BearerMalformed},
		{"scheme alone", []string{"Bearer"}, "", BearerMalformed},
		{"scheme and spaces", []string{"Bearer   "}, "", BearerMalformed},
		{"empty", []string{""}, "", BearerMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tt.values {
				h.Add("Authorization", v)
			}
			token, problem := ParseBearer(h)
			if token != tt.wantToken || problem != tt.wantProblem {
				t.Errorf("ParseBearer(%q) = %q, %d; want %q, %d", tt.values, token, problem, tt.wantToken, tt.wantProblem)
			}
		})
	}
}

func TestChallenge(t *testing.T) {
	for _, tt := range []struct{ realm, oauthErr, want string }{
		{"plantstore", "", `Bearer realm="plantstore"`},
		{"plantstore", "invalid_token", `Bearer realm="plantstore", error="invalid_token"`},
		{"plantstore-control", "invalid_request", `Bearer realm="plantstore-control", error="invalid_request"`},
	} {
		if got := Challenge(tt.realm, tt.oauthErr); got != tt.want {
			t.Errorf("Challenge(%q, %q) = %q, want %q", tt.realm, tt.oauthErr, got, tt.want)
		}
	}
}
