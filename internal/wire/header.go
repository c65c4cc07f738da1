package wire

import "strings"

// ValidHeaderName reports whether name is an RFC 9110 token, as a header
// field name (and a method) must be.
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// HeaderValueControl returns the index of the first byte of v that a header
// value must not hold, a control character other than tab, or -1 if there
// is none. Such a byte could break the message's framing.
func HeaderValueControl(v string) int {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return i
		}
	}
	return -1
}
