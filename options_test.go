package plantstore

import (
	"context"
	"strings"
	"testing"
)

func TestWithUserAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    []Option
		want    string
		wantErr string
	}{
		{"default", nil, "plantstore-go/" + version, ""},
		{"application", []Option{WithUserAgent("inventory-sync/1.4")}, "inventory-sync/1.4 plantstore-go/" + version, ""},
		{"with a comment", []Option{WithUserAgent("inventory-sync/1.4 (+https://example.com)")}, "inventory-sync/1.4 (+https://example.com) plantstore-go/" + version, ""},
		{"last wins", []Option{WithUserAgent("a/1"), WithUserAgent("b/2")}, "b/2 plantstore-go/" + version, ""},
		{"empty", []Option{WithUserAgent("")}, "", "plantstore: user agent must be 1 to 256 bytes, got 0"},
		{"too long", []Option{WithUserAgent(strings.Repeat("a", 257))}, "", "plantstore: user agent must be 1 to 256 bytes, got 257"},
		{"leading space", []Option{WithUserAgent(" a/1")}, "", "plantstore: user agent must not start or end with a space"},
		{"newline", []Option{WithUserAgent("a/1\r\nX-Evil: 1")}, "", "plantstore: user agent has an invalid character at byte 3 (want printable ASCII)"},
		{"non-ASCII", []Option{WithUserAgent("plänts/1")}, "", "plantstore: user agent has an invalid character at byte 2 (want printable ASCII)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			c, err := NewClient(srv.URL, append([]Option{WithToken(testToken)}, tt.opts...)...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("NewClient(%s) error = %v, want %q", tt.name, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewClient(%s) error: %v", tt.name, err)
			}
			if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
				t.Fatalf("CreatePlant error: %v", err)
			}
			if got := srv.requests()[0].header.Get("User-Agent"); got != tt.want {
				t.Errorf("User-Agent = %q, want %q", got, tt.want)
			}
		})
	}
}
