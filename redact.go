package plantstore

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// redactChain returns err with tokens redacted from every error reachable
// from it by Unwrap (Unwrap() error and Unwrap() []error alike), so that
// no cause a caller, a hook or an error reporter walks to holds one: a
// transport error can quote what the server sent (a Location net/http
// could not parse, a malformed status line), or name a URL the server
// chose by a redirect.
//
// An error that holds none of tokens (in its text, or in its formatting
// with %+v or %#v) and wraps none that does is kept as it is, so
// [errors.As] still finds it by its type: context errors, *net.OpError
// and the *APIError a call ends with are untouched. A *url.Error is copied
// with its URL and its cause redacted. Any other error is replaced by a
// stand-in, [redactedError], that reads as it did but REDACTED, unwraps to
// its causes redacted the same way, matches with [errors.Is] what the
// original's own Is method matched, and is a [net.Error] when the
// original was one; [errors.As] no longer finds the original by its type.
func redactChain(err error, tokens []string) error {
	if len(tokens) == 0 {
		return err
	}
	r, _ := redact(err, tokens)
	return r
}

// redact is redactChain; changed reports whether the result is not err.
func redact(err error, tokens []string) (_ error, changed bool) {
	if err == nil {
		return nil, false
	}
	if e, ok := err.(*url.Error); ok {
		u := wire.Redact(e.URL, tokens)
		cause, changed := redact(e.Err, tokens)
		if u == e.URL && !changed {
			return err, false
		}
		return &url.Error{Op: e.Op, URL: u, Err: cause}, true
	}
	var (
		cause  error
		causes []error
	)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		cause, changed = redact(u.Unwrap(), tokens)
	case interface{ Unwrap() []error }:
		causes = append(causes, u.Unwrap()...)
		for i := range causes {
			var c bool
			causes[i], c = redact(causes[i], tokens)
			changed = changed || c
		}
	}
	text := err.Error()
	r := wire.Redact(text, tokens)
	if !changed && r == text && !holds(fmt.Sprintf("%+v\x00%#v", err, err), tokens) {
		return err, false
	}
	s := &redactedError{text: r, cause: cause}
	if x, ok := err.(interface{ Is(error) bool }); ok {
		s.is = x.Is
	}
	if causes != nil {
		return &redactedErrors{redactedError: s, causes: causes}, true
	}
	if x, ok := err.(interface {
		Timeout() bool
		Temporary() bool
	}); ok {
		return &redactedNetError{redactedError: s, timeout: x.Timeout(), temporary: x.Temporary()}, true
	}
	return s, true
}

// holds reports whether text holds one of tokens in a form [wire.Redact]
// knows.
func holds(text string, tokens []string) bool {
	return wire.Redact(text, tokens) != text
}

// redactedError stands in for an error that held a token, or wrapped one
// that did; see [redactChain]. It keeps nothing of the original but its
// text redacted, its cause redacted and its Is method.
type redactedError struct {
	text  string
	cause error            // the original's Unwrap() error, redacted
	is    func(error) bool // the original's Is method, or nil
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.cause }
func (e *redactedError) Is(target error) bool {
	return e.is != nil && e.is(target)
}

// redactedErrors is a [redactedError] for an error with several causes
// (Unwrap() []error).
type redactedErrors struct {
	*redactedError
	causes []error
}

func (e *redactedErrors) Unwrap() []error { return e.causes }

// redactedNetError is a [redactedError] for a [net.Error].
type redactedNetError struct {
	*redactedError
	timeout, temporary bool
}

func (e *redactedNetError) Timeout() bool   { return e.timeout }
func (e *redactedNetError) Temporary() bool { return e.temporary }

// redactName is wire.Redact for a header name, which net/http hands over
// canonical: a token echoed in a name may have changed case there
// ("X-Echo-S3cr3t-T0ken"), so it is matched without regard to case, and
// such a name reads in lower case ("x-echo-REDACTED").
func redactName(k string, tokens []string) string {
	if wire.MayHold(k, tokens) {
		if rk := wire.Redact(k, tokens); rk != k {
			return rk
		}
	}
	for _, t := range tokens {
		for i := 0; t != "" && i+len(t) <= len(k); i++ {
			if strings.EqualFold(k[i:i+len(t)], t) {
				lower := make([]string, len(tokens))
				for j, t := range tokens {
					lower[j] = strings.ToLower(t)
				}
				return wire.Redact(strings.ToLower(k), lower)
			}
		}
	}
	return k
}

// redactHeader returns h, or, when a name or a value in it holds one of
// tokens, a copy of h with them REDACTED: the headers a call hands back
// in [CallInfo], which a caller may log or print with the call's error.
func redactHeader(h http.Header, tokens []string) http.Header {
	if len(tokens) == 0 {
		return h
	}
	var out http.Header // nil until something is redacted
	for k, vs := range h {
		rk := redactName(k, tokens)
		var rvs []string
		for i, v := range vs {
			if !wire.MayHold(v, tokens) {
				continue // the usual case, found by a vectorised search
			}
			if rv := wire.Redact(v, tokens); rv != v {
				if rvs == nil {
					rvs = append([]string(nil), vs...)
				}
				rvs[i] = rv
			}
		}
		if rk == k && rvs == nil {
			continue
		}
		if out == nil {
			out = h.Clone()
		}
		if rvs == nil {
			rvs = vs
		}
		delete(out, k)
		out[rk] = rvs
	}
	if out == nil {
		return h
	}
	return out
}
