package wire

import "testing"

func TestIsLoopbackHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.3.2.1", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"", false},
		{"0.0.0.0", false},
		{"::", false},
		{"10.0.0.1", false},
		{"plants.example.com", false},
		{"localhost.example.com", false},
		{"127.0.0.1.nip.io", false},
		{"[::1]", false},          // a Hostname() has no brackets
		{"127.0.0.1:8080", false}, // nor a port
		{"fe80::1%en0", false},
		{"::1%lo", false}, // a zone names an interface, not this host
		{"::ffff:10.0.0.1", false},
	}
	for _, tt := range tests {
		if got := IsLoopbackHost(tt.host); got != tt.want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestDialHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ host, want string }{
		{"", "127.0.0.1"},
		{"0.0.0.0", "127.0.0.1"},
		{"::", "localhost"},
		// Go listens on every interface for it, as for [::]; the health
		// check and ClientURL asked 127.0.0.1 before the rule moved here.
		{"::ffff:0.0.0.0", "127.0.0.1"},
		{"127.0.0.1", "127.0.0.1"},
		{"::1", "::1"},
		{"localhost", "localhost"},
		{"192.0.2.7", "192.0.2.7"},
		{"plants.example.com", "plants.example.com"},
	}
	for _, tt := range tests {
		if got := DialHost(tt.host); got != tt.want {
			t.Errorf("DialHost(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}
