package wire

import "testing"

func TestValidHeaderName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"X-Tenant", true},
		{"x_tenant.v2", true},
		{"!#$%&'*+-.^_`|~", true},
		{"", false},
		{"X Tenant", false},
		{"X-Tenant:", false},
		{"Tenant\r\nX-Evil", false},
		{"Ténant", false},
		{"(comment)", false},
		{"a/b", false},
		{"a\x7f", false},
	}
	for _, tt := range tests {
		if got := ValidHeaderName(tt.name); got != tt.want {
			t.Errorf("ValidHeaderName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestHeaderValueControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  int
	}{
		{"", -1},
		{"plain value", -1},
		{"tab\tis fine", -1},
		{"ünïcode bytes are not controls", -1},
		{"a\r\nX-Evil: 1", 1},
		{"nul\x00", 3},
		{"del\x7f", 3},
		{"\x1b[2J", 0},
	}
	for _, tt := range tests {
		if got := HeaderValueControl(tt.value); got != tt.want {
			t.Errorf("HeaderValueControl(%q) = %d, want %d", tt.value, got, tt.want)
		}
	}
}
