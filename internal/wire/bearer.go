package wire

import (
	"net/http"
	"strings"
)

// A BearerProblem is what is wrong with a request's credentials, as
// [ParseBearer] finds it.
type BearerProblem int

const (
	// BearerOK means the request carries one well-formed bearer token.
	BearerOK BearerProblem = iota
	// BearerMissing means the request has no Authorization header. RFC 6750
	// answers it with a bare challenge, without an error code.
	BearerMissing
	// BearerRepeated means the request has more than one Authorization
	// header: an "invalid_request" in RFC 6750's terms.
	BearerRepeated
	// BearerMalformed means the header is not "Bearer", matched without
	// regard to case, one or more spaces and a token: an "invalid_request".
	BearerMalformed
)

// ParseBearer returns the bearer token of a request's header (RFC 6750,
// with RFC 7235's case-insensitive scheme), or what is wrong with its
// credentials. The servers of this module, the fake and the mock's control
// API, read credentials the same way; each compares the token it gets, in
// constant time, and words its own 401.
func ParseBearer(header http.Header) (string, BearerProblem) {
	values := header.Values("Authorization")
	switch len(values) {
	case 0:
		return "", BearerMissing
	case 1:
	default:
		return "", BearerRepeated
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", BearerMalformed
	}
	return token, BearerOK
}

// Challenge returns the WWW-Authenticate value of a 401 for realm: a
// bearer challenge (RFC 6750, section 3) with the error code oauthErr
// ("invalid_request", "invalid_token"), or without one ("") for a request
// that sent no credentials at all.
func Challenge(realm, oauthErr string) string {
	if oauthErr == "" {
		return `Bearer realm="` + realm + `"`
	}
	return `Bearer realm="` + realm + `", error="` + oauthErr + `"`
}
