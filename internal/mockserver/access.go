package mockserver

import (
	"crypto/subtle"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// access decides who may use the control API, as [Config.AdminToken] and
// [Config.Loopback] say.
type access int

const (
	accessOpen access = iota
	accessToken
	accessOff
)

// checkToken reports what is wrong with token as a bearer token, or "";
// "" for no token, which the caller may allow. name is the flag or setting
// it came from, for the message; the token itself is never quoted.
func checkToken(name, token string) string {
	if p := wire.TokenProblem(token); token != "" && p != "" {
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

func unauthorized(oauthErr, msg string) *controlError {
	e := errorf(http.StatusUnauthorized, plantstoretest.CodeUnauthorized, "%s", msg)
	e.challenge = wire.Challenge("plantstore-control", oauthErr) // the API's own realm is "plantstore"
	return e
}

// offMessage is the body of the 404 every control path but health answers
// while the control API is off: why, and how to turn it on.
func offMessage(listenAddr string) string {
	return fmt.Sprintf("the control API is off: plantstore-mock listens on %s, which is not a loopback address, "+
		"and has no admin token; restart it with -admin-token TOKEN (or PLANTSTORE_ADMIN_TOKEN=TOKEN) "+
		"and send Authorization: Bearer TOKEN, or listen on 127.0.0.1", listenAddr)
}

// CodeForeignRequest is the "error" code of the 403 the open control API
// answers a request that may come from a web page rather than from this
// machine's tools (see [checkLocal]).
const CodeForeignRequest int32 = 101

// checkLocal returns the 403 for a request to the open control API that
// does not come from this machine's own tools, or nil. Without an admin
// token, being on loopback is the control API's only protection, and a
// browser on this machine can reach loopback on a web page's behalf. A
// request without a Host (HTTP/1.0) is not a browser's, which always
// sends one: it passes, as it does with an admin token.
func checkLocal(r *http.Request) *controlError {
	host := r.Host
	if host != "" && !wire.IsLoopbackHost((&url.URL{Host: host}).Hostname()) {
		return errorf(http.StatusForbidden, CodeForeignRequest,
			"Host %q is not a loopback name or address: without an admin token the control API answers only requests "+
				"for localhost, 127.0.0.1 or [::1] (a web page rebinding its own name to this machine sends its own); "+
				"set -admin-token to reach it by another name", host)
	}
	if origin, ok := r.Header["Origin"]; ok {
		if len(origin) != 1 || origin[0] != "http://"+host {
			return errorf(http.StatusForbidden, CodeForeignRequest,
				"Origin %q is not the mock's own (http://%s): without an admin token the control API refuses "+
					"requests a web page from another origin sends", strings.Join(origin, ", "), host)
		}
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "cross-site", "same-site":
		return errorf(http.StatusForbidden, CodeForeignRequest,
			"Sec-Fetch-Site is %s: without an admin token the control API refuses requests a web page from another origin sends", site)
	}
	return nil
}

// checkContentType returns the 415 for a control request with a body whose
// Content-Type is not application/json, or nil. No web page can send
// application/json to another origin without a CORS preflight, which the
// mock never grants; so this holds whatever the access mode.
func checkContentType(r *http.Request) *controlError {
	if n := len(r.Header.Values("Content-Type")); n > 1 {
		return errorf(http.StatusUnsupportedMediaType, plantstoretest.CodeContentType,
			"more than one Content-Type header (%d); send one, application/json", n)
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		return nil
	}
	if ct == "" {
		ct = "none"
	} else {
		ct = strconv.Quote(ct)
	}
	return errorf(http.StatusUnsupportedMediaType, plantstoretest.CodeContentType,
		"Content-Type is %s; control request bodies must be application/json (curl: --json, or -H 'Content-Type: application/json')", ct)
}
