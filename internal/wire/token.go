package wire

import (
	"strconv"
	"strings"
)

// TokenProblem says what makes t unfit to send as a bearer token, or "" if
// nothing does: a token must be non-empty and consist of visible ASCII
// (0x21 to 0x7E), which every header value can carry unchanged. The text
// never quotes t and has no package prefix, for example
// "has an invalid character at byte 6 (want visible ASCII)"; callers put
// their own "<package>: token " in front.
func TokenProblem(t string) string {
	if t == "" {
		return "must not be empty"
	}
	if i := strings.IndexFunc(t, func(r rune) bool { return r <= ' ' || r >= 0x7f }); i >= 0 {
		return "has an invalid character at byte " + strconv.Itoa(i) + " (want visible ASCII)"
	}
	return ""
}

// RedactCredentials returns an Authorization (or Proxy-Authorization)
// header value with its credentials replaced by REDACTED, keeping the
// scheme so that a reader can still tell which was used: "Bearer abc"
// becomes "Bearer REDACTED"; a value without a scheme becomes "REDACTED".
func RedactCredentials(v string) string {
	scheme, _, ok := strings.Cut(v, " ")
	switch {
	case scheme == "Bearer" && ok:
		return "Bearer REDACTED" // the usual case, without building a string
	case ok:
		return scheme + " REDACTED"
	}
	return "REDACTED"
}
