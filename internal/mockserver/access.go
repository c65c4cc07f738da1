package mockserver

import (
	"crypto/subtle"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// access decides who may use the control API.
type access int

const (
	// accessOpen: no admin token, and the mock listens on loopback only, so
	// only this machine can reach it.
	accessOpen access = iota
	// accessToken: every control path but health needs the admin token.
	accessToken
	// accessOff: no admin token on a non-loopback address; every control
	// path but health is 404.
	accessOff
)

// checkToken reports what is wrong with token as a bearer token, or "".
// name is the flag or setting it came from, for the message; the token
// itself is never quoted.
func checkToken(name, token string) string {
	if token == "" {
		return "" // no token: the caller decides whether that is allowed
	}
	if p := wire.TokenProblem(token); p != "" {
		return name + " " + p
	}
	return ""
}

// authorize returns the 401 for a control request whose credentials do not
// carry the admin token, or nil when they do. The token is compared in
// constant time, and no message contains a token.
func (s *Server) authorize(header http.Header) *controlError {
	token, problem := wire.ParseBearer(header)
	switch problem {
	case wire.BearerMissing:
		return unauthorized("", "missing Authorization header; the control API needs the admin token (-admin-token)")
	case wire.BearerRepeated:
		return unauthorized("invalid_request", "more than one Authorization header")
	case wire.BearerMalformed:
		return unauthorized("invalid_request", `Authorization header must be "Bearer <admin token>"`)
	}
	if subtle.ConstantTimeCompare([]byte(token), s.adminToken) != 1 {
		return unauthorized("invalid_token", "invalid admin token; the API token does not open the control API")
	}
	return nil
}

// controlRealm is the realm of the control API's 401 challenge; the API's
// own is "plantstore".
const controlRealm = "plantstore-control"

func unauthorized(oauthErr, msg string) *controlError {
	e := errorf(http.StatusUnauthorized, plantstoretest.CodeUnauthorized, "%s", msg)
	e.challenge = `Bearer realm="` + controlRealm + `"`
	if oauthErr != "" {
		e.challenge += `, error="` + oauthErr + `"`
	}
	return e
}

// offMessage is the body of the 404 every control path but health answers
// while the control API is off: why, and how to turn it on.
func offMessage(listenAddr string) string {
	return fmt.Sprintf("the control API is off: plantstore-mock listens on %s, which is not a loopback address, "+
		"and has no admin token; restart it with -admin-token TOKEN (or PLANTSTORE_ADMIN_TOKEN=TOKEN) "+
		"and send Authorization: Bearer TOKEN, or listen on 127.0.0.1", listenAddr)
}
