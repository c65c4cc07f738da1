package plantstore

import (
	"errors"
	"net/url"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// redactURLError redacts tokens from a *url.Error in err's chain, which a
// caller reaches with errors.As and prints: from its URL, after a redirect
// the URL the server chose, which may carry the token in its query; and
// from its cause, which may quote what the server sent (a Location that
// net/http could not parse).
func redactURLError(err error, tokens []string) {
	var urlErr *url.Error
	if len(tokens) > 0 && errors.As(err, &urlErr) {
		urlErr.URL = wire.Redact(urlErr.URL, tokens)
		urlErr.Err = redactError(urlErr.Err, tokens)
	}
}

// redactError returns err, or, when its text holds one of tokens in a form
// [wire.Redact] knows, an error that wraps err and reads the same but
// REDACTED.
// net/http quotes what the server sent in some of its errors (a Location it
// could not parse, a malformed status line), so a transport error's text
// can hold an echoed token as much as a body can.
func redactError(err error, tokens []string) error {
	if err == nil || len(tokens) == 0 {
		return err
	}
	text := err.Error()
	if r := wire.Redact(text, tokens); r != text {
		return &redactedError{text: r, err: err}
	}
	return err
}

// redactedError is an error whose text had a token in it; see redactError.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }
