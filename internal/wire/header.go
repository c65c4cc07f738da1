package wire

import "strings"

// tchar holds the characters of an RFC 9110 token.
const tchar = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// ValidHeaderName reports whether name is an RFC 9110 token, as a header
// field name (and a method) must be.
func ValidHeaderName(name string) bool {
	return name != "" && strings.Trim(name, tchar) == "" // nothing but tchar
}

// HeaderValueControl returns the index of the first byte of v that a header
// value must not hold, a control character other than tab, or -1 if there
// is none. Such a byte could break the message's framing.
func HeaderValueControl(v string) int {
	return strings.IndexFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f })
}
