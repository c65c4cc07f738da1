package plantstoretest

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// rejection is why the checks refused a request.
type rejection struct {
	status    int
	body      ErrorBody
	challenge string    // the WWW-Authenticate value of a 401
	allow     string    // the Allow value of a 405
	profiled  *profiled // the reply WithProfile dictates instead, or nil
}

func rejectf(status int, code int32, format string, args ...any) *rejection {
	return &rejection{status: status, body: ErrorBody{Code: code, Message: fmt.Sprintf(format, args...)}}
}

// reply is the reply that answers the request rej refused.
func (rej *rejection) reply() reply {
	return reply{status: rej.status, body: &rej.body, challenge: rej.challenge, allow: rej.allow, profiled: rej.profiled}
}

// check routes the request and runs the stateless checks documented on
// Handler, in order. It returns the request's operation (if routed), and
// what the request carries to it, or why a check failed.
func (h *Handler) check(r *http.Request, body []byte, readErr error) (*operation, input, *rejection) {
	op, values, rej := h.route(r)
	if rej == nil {
		rej = h.authorize(r.Header)
	}
	if rej == nil && op.decode == nil {
		rej = checkNoBody(r, body, readErr)
	}
	if rej != nil || op.decode == nil {
		return op, input{values: values}, rej
	}
	if msg := checkContentType(r.Header); msg != "" {
		return op, input{}, rejectf(http.StatusBadRequest, CodeContentType, "%s", msg)
	}
	if readErr != nil {
		return op, input{}, bodyError(readErr)
	}
	p, e := op.decode(body)
	if e != nil {
		return op, input{}, &rejection{status: http.StatusBadRequest, body: *e}
	}
	for _, rule := range h.rules {
		if rej := h.applyRule(rule, p); rej != nil {
			return op, input{}, rej
		}
	}
	return op, input{plant: p, values: values}, nil
}

// bodyError is the 400 for a body that could not be read.
func bodyError(readErr error) *rejection {
	if errors.Is(readErr, wire.ErrBodyTooLarge) {
		return rejectf(http.StatusBadRequest, CodeTooLarge, "body is larger than %d bytes", maxBodyBytes)
	}
	return rejectf(http.StatusBadRequest, CodeInvalidJSON, "reading body: %v", readErr)
}

// checkNoBody refuses a request to an operation that takes no body if it
// has one, or a Content-Type that announces one.
func checkNoBody(r *http.Request, body []byte, readErr error) *rejection {
	switch {
	case len(r.Header.Values("Content-Type")) > 0:
		return rejectf(http.StatusBadRequest, CodeContentType, "%s %s takes no body, so no Content-Type header", r.Method, r.URL.Path)
	case readErr != nil:
		return bodyError(readErr)
	case len(body) > 0:
		return rejectf(http.StatusBadRequest, CodeInvalidJSON, "%s %s takes no body, got %d bytes", r.Method, r.URL.Path, len(body))
	}
	return nil
}

// applyRule runs a [WithRule] rule; a panic in it is answered with 500 (see
// [Handler.callback]).
func (h *Handler) applyRule(rule func(plantstore.NewPlant) *ErrorBody, p plantstore.NewPlant) *rejection {
	var e *ErrorBody
	what := func() string { return fmt.Sprintf("a WithRule rule panicked on %+v", p) }
	if r := h.callback(h.site, what, func() { e = rule(p) }); r != nil {
		return rejectf(http.StatusInternalServerError, CodeCallbackPanic, "a WithRule rule panicked: %v", r)
	}
	if e != nil {
		return &rejection{status: http.StatusBadRequest, body: *e}
	}
	return nil
}

// authorize returns the 401 for the request's credentials, or nil if they
// carry the configured token. The message never contains a token.
func (h *Handler) authorize(header http.Header) *rejection {
	token, problem := wire.ParseBearer(header)
	switch problem {
	case wire.BearerMissing:
		return h.profileAuth(unauthorized("", "missing Authorization header"), problem, false)
	case wire.BearerRepeated:
		return h.profileAuth(unauthorized("invalid_request", "more than one Authorization header"), problem, false)
	case wire.BearerMalformed:
		return h.profileAuth(unauthorized("invalid_request", `Authorization header must be "Bearer <token>"`), problem, false)
	}
	if subtle.ConstantTimeCompare([]byte(token), h.token) != 1 {
		return h.profileAuth(unauthorized("invalid_token", "invalid token"), problem, true)
	}
	return nil
}

// unauthorized is a 401 whose challenge carries the RFC 6750 error code
// oauthErr, or none when the request sent no credentials at all.
func unauthorized(oauthErr, msg string) *rejection {
	challenge := `Bearer realm="plantstore"`
	if oauthErr != "" {
		challenge += `, error="` + oauthErr + `"`
	}
	return &rejection{
		status:    http.StatusUnauthorized,
		body:      ErrorBody{Code: CodeUnauthorized, Message: msg},
		challenge: challenge,
	}
}

// checkContentType returns what is wrong with the request's Content-Type,
// or "" if it is JSON.
func checkContentType(header http.Header) string {
	values := header.Values("Content-Type")
	switch len(values) {
	case 0:
		return "missing Content-Type header; want application/json"
	case 1:
	default:
		return "more than one Content-Type header"
	}
	if values[0] == "application/json" { // what most clients send, without parsing
		return ""
	}
	mediaType, params, err := mime.ParseMediaType(values[0])
	if err != nil || mediaType != "application/json" {
		return fmt.Sprintf("Content-Type must be application/json, got %q", values[0])
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Sprintf("charset must be utf-8, got %q", cs)
	}
	return ""
}
