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

// check runs the stateless checks of the package documentation on a
// request routed to op, in order, and returns the plant its body carries
// (zero for an operation without one), or the first refusal.
func (h *Handler) check(op *operation, r *http.Request, body []byte, readErr error) (p plantstore.NewPlant, rej *reply) {
	if rej = h.authorize(r.Header); rej != nil {
		return p, rej
	}
	if op.decode == nil {
		return p, checkNoBody(r, body, readErr)
	}
	if rej = checkContentType(r.Header); rej != nil {
		return p, rej
	}
	if readErr != nil {
		return p, bodyError(readErr)
	}
	p, e := op.decode(body)
	if e != nil {
		return plantstore.NewPlant{}, refuse(malformed, *e)
	}
	if rej = h.applyRules(p); rej != nil {
		return plantstore.NewPlant{}, rej
	}
	return p, nil
}

// refuse is the refusal of kind k with body e, held in the same
// allocation: one fewer per refusal (BenchmarkHandler).
func refuse(k kind, e ErrorBody) *reply {
	r := &struct {
		reply
		e ErrorBody
	}{e: e}
	r.reply = reply{kind: k, status: statuses[k], body: &r.e}
	return &r.reply
}

// refusef is the refusal of kind k with a body of code and the message.
func refusef(k kind, code int32, format string, args ...any) *reply {
	return refuse(k, ErrorBody{Code: code, Message: fmt.Sprintf(format, args...)})
}

// bodyError is the 400 for a body that could not be read.
func bodyError(readErr error) *reply {
	if errors.Is(readErr, wire.ErrBodyTooLarge) {
		return refusef(malformed, CodeTooLarge, "body is larger than %d bytes", maxBodyBytes)
	}
	return refusef(malformed, CodeInvalidJSON, "reading body: %v", readErr)
}

// checkNoBody refuses a body, or a Content-Type, sent to an operation that
// takes none.
func checkNoBody(r *http.Request, body []byte, readErr error) *reply {
	switch {
	case len(r.Header.Values("Content-Type")) > 0:
		return refusef(malformed, CodeContentType, "%s %s takes no body, so no Content-Type header", r.Method, r.URL.Path)
	case readErr != nil:
		return bodyError(readErr)
	case len(body) > 0:
		return refusef(malformed, CodeInvalidJSON, "%s %s takes no body, got %d bytes", r.Method, r.URL.Path, len(body))
	}
	return nil
}

// applyRules runs the [WithRule] rules on p, in order, and returns the
// first refusal; a rule that panics is a 500.
func (h *Handler) applyRules(p plantstore.NewPlant) *reply {
	for _, rule := range h.cfg.rules {
		var e *ErrorBody
		what := func() string { return fmt.Sprintf("a WithRule rule panicked on %+v", p) }
		if r := h.callback(h.cfg.site, what, func() { e = rule(p) }); r != nil {
			return refusef(rulePanicked, CodeCallbackPanic, "a WithRule rule panicked: %v", r)
		}
		if e != nil {
			return refuse(ruleRefused, *e)
		}
	}
	return nil
}

// authorize returns the 401 for the request's credentials, or nil for the
// fake's token. The message never holds a token.
func (h *Handler) authorize(header http.Header) *reply {
	token, problem := wire.ParseBearer(header)
	switch problem {
	case wire.BearerMissing:
		return unauthorized(authMissing, "", "missing Authorization header")
	case wire.BearerRepeated:
		return unauthorized(authMalformed, "invalid_request", "more than one Authorization header")
	case wire.BearerMalformed:
		return unauthorized(authMalformed, "invalid_request", `Authorization header must be "Bearer <token>"`)
	}
	if subtle.ConstantTimeCompare([]byte(token), h.cfg.token) != 1 {
		return unauthorized(authInvalid, "invalid_token", "invalid token")
	}
	return nil
}

// unauthorized is a 401 of kind k whose challenge carries the RFC 6750
// error oauthErr, or none when no credentials were sent.
func unauthorized(k kind, oauthErr, msg string) *reply {
	rep := refuse(k, ErrorBody{Code: CodeUnauthorized, Message: msg})
	rep.challenge = wire.Challenge("plantstore", oauthErr)
	return rep
}

// checkContentType refuses a Content-Type other than JSON.
func checkContentType(header http.Header) *reply {
	values := header.Values("Content-Type")
	switch {
	case len(values) == 0:
		return refusef(malformed, CodeContentType, "missing Content-Type header; want application/json")
	case len(values) > 1:
		return refusef(malformed, CodeContentType, "more than one Content-Type header")
	case values[0] == "application/json": // what most clients send, without parsing
		return nil
	}
	mediaType, params, err := mime.ParseMediaType(values[0])
	if err != nil || mediaType != "application/json" {
		return refusef(malformed, CodeContentType, "Content-Type must be application/json, got %q", values[0])
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return refusef(malformed, CodeContentType, "charset must be utf-8, got %q", cs)
	}
	return nil
}
