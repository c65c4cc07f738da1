package wire

import (
	"strings"
	"testing"
)

// TestParseBaseURL checks the rule of a base URL a client can use, which
// the client and the mock both follow: "" for one it takes, and otherwise
// a fragment of the error.
func TestParseBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"https://plants.example.com/api/", ""},
		{"http://127.0.0.1:8080", ""},
		{"http://[::1]:8080/", ""},
		{"http://[fe80::1%25en0]/", ""},
		{"http://bücher.example/", ""},
		{"http://plant_store:1", ""},
		{"", "must not be empty"},
		{"https://a b/", "space at byte 9"},
		{"ftp://plants.example.com", "scheme must be http or https"},
		{"https://user:pw@plants.example.com", "must not contain user info"},
		{"https://user@plants.example.com", "must not contain user info"},
		{"https:///plants", "has no host"},
		{"http://:8080/", "host must be a name"},
		{"http://a<b/", "host must be a name"},
		{"http://localhost:/", "port must be 1 to 65535"},
		{"http://localhost:0/", "port must be 1 to 65535"},
		{"http://localhost:65536/", "port must be 1 to 65535"},
		{"https://plants.example.com?x=1", "must not have a query"},
		{"https://plants.example.com?", "must not have a query"},
		{"https://plants.example.com#top", "must not have a fragment"},
		{"http://0#", "must not have a fragment"}, // found by FuzzNamespaceBaseURL

		{"http://[::1", "invalid base URL"},
	}
	for _, tt := range tests {
		_, err := ParseBaseURL(tt.url)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ParseBaseURL(%q): %v, want it taken", tt.url, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "plantstore: ")):
			t.Errorf("ParseBaseURL(%q) = %v, want a plantstore: error containing %q", tt.url, err, tt.want)
		}
	}
	for _, host := range []string{"[::1", "[127.0.0.1]", "[::1]x", "[::1]:x"} {
		if hostProblem(host) == "" {
			t.Errorf("hostProblem(%q) = \"\", want a problem", host)
		}
	}
}
