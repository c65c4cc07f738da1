package plantstore

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// ErrMaybeCreated matches the error of a failed create, such as
// [Client.CreatePlant]'s, when the plant may nevertheless have been stored:
// an attempt was written to the network and then failed without an answer,
// was answered with a 5xx, or got a 2xx that could not be read; not when
// every attempt certainly failed before reaching the server (a refused
// connection, a DNS or TLS failure, an HTTP/2 REFUSED_STREAM or GOAWAY below
// the stream) or got a 4xx. Settle it by creating the plant again with the
// same ID, never a new one: [Client.EnsurePlant] does.
var ErrMaybeCreated = errors.New("plantstore: plant may have been created")

// maybeCreatedNote ends the text of every error that matches
// [ErrMaybeCreated], so that a logged error tells what errors.Is does.
const maybeCreatedNote = " (the plant may have been created)"

// ValidationError reports a [NewPlant] that [Client.CreatePlant] refused to
// send. Nothing reached the server.
type ValidationError struct {
	Field  string // the JSON name of the offending field, e.g. "name"
	Reason string // what is wrong with it, e.g. "is required"
}

// Error returns, for example, "plantstore: invalid plant: name is required".
func (e *ValidationError) Error() string {
	return "plantstore: invalid plant: " + e.Field + " " + e.Reason
}

// APIError is the non-2xx answer that ended a call ([Client] says which are
// retried first); the [*CallError] that wraps it describes the call. Branch
// on StatusCode and Code.
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Code is the service's own error code, the Error body's "error" field,
	// read even when "message" is missing or null; zero when the body was
	// not an Error (a JSON object whose "error" is an integer).
	Code int32
	// Message is the Error body's "message" or, when it had none (a proxy's
	// HTML page, nothing, {"error":1009}), the body's first bytes, as valid
	// UTF-8.
	Message string
	// RetryAfter is the wait the Retry-After header asked for, or zero.
	RetryAfter time.Duration
}

// Error returns the answer, for example
// "400 Bad Request: name is required (error 3)", followed by
// " (retry after 2s)" when the server asked for a wait.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.StatusCode))
	if text := http.StatusText(e.StatusCode); text != "" {
		b.WriteByte(' ')
		b.WriteString(text)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Code != 0 {
		fmt.Fprintf(&b, " (error %d)", e.Code)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %v)", e.RetryAfter)
	}
	return b.String()
}

// CallError is the error every [Client] method returns, as net/http's
// *url.Error is every error of an http.Client: Call says which call
// failed, and Err is the cause, which [errors.As] and [errors.Is] see
// through.
//
// No error of a call holds the token, in its text or any error Unwrap
// reaches: where the server's text or a redirect's URL holds a token the
// call sent, as written or JSON-, percent- or HTML-escaped, it reads
// REDACTED (one shorter than 8 bytes only where "Bearer " precedes it). A
// cause so redacted is a copy (a *url.Error) or a stand-in that still
// matches with [errors.Is] and [errors.As] what it did ([context.Canceled],
// a [net.Error]) but is no longer its own type.
type CallError struct {
	// Call is the failed call, as [WithCallInfo] records it; its RequestID
	// is empty only when a CallOption was invalid.
	Call CallInfo
	// Err is the cause, never nil: an [*APIError], a [*ValidationError], or
	// a transport or context error.
	Err error

	op            string // the failed operation, e.g. "create plant"; "" if none ran
	maybeCreated  bool
	retryDenied   bool // the retry budget refused a retry
	alreadyExists bool // the answer is WithAlreadyExists's
}

// Error returns the cause's message after the operation, for example
// "plantstore: create plant: 400 Bad Request: name is required (error 3)",
// followed by " (after 3 attempts)" when the call made several, then by
// " (not retried: the client's retry budget is exhausted)" and " (the
// plant may have been created)" when e matches [ErrRetryBudgetExhausted]
// and [ErrMaybeCreated]. A call refused for an invalid plant or
// CallOption reads as its cause alone. The request id and the token are
// left out.
func (e *CallError) Error() string {
	if e.op == "" {
		return e.Err.Error()
	}
	var b strings.Builder
	b.WriteString("plantstore: ")
	b.WriteString(e.op)
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Call.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Call.Attempts)
	}
	if e.retryDenied {
		b.WriteString(retryBudgetNote)
	}
	if e.maybeCreated {
		b.WriteString(maybeCreatedNote)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrMaybeCreated], [ErrRetryBudgetExhausted]
// or [ErrAlreadyExists] and e is such an error.
func (e *CallError) Is(target error) bool {
	return target == ErrMaybeCreated && e.maybeCreated ||
		target == ErrRetryBudgetExhausted && e.retryDenied ||
		target == ErrAlreadyExists && e.alreadyExists
}

const (
	// snippetBytes is how much of an unexpected body an error quotes, and
	// messageBytes how much of an Error body's message it keeps.
	snippetBytes = 256
	messageBytes = 1024
)

// newAPIError describes a non-2xx response, the last of a call that sent
// tokens over its attempts, which asked for a wait of retryAfter. Code is
// the body's as [wire.ReadError] reads an Error; Message is the Error's
// message, or else the body quoted; a redirect without a body names its
// target.
func newAPIError(resp *http.Response, data []byte, tokens []string, retryAfter time.Duration) *APIError {
	e := &APIError{StatusCode: resp.StatusCode, RetryAfter: retryAfter}
	// The token is redacted from the body as the server wrote it, and from
	// the message as JSON decoded it: decoding can turn a form wire.Redact
	// knows (an HTML escape written into JSON by hand, say) into one it
	// does not.
	data = wire.Redact(data, tokens)
	code, message, hasMessage := wire.ReadError(data)
	e.Code = code
	if hasMessage {
		e.Message = printable(wire.Redact(message, tokens), messageBytes)
	} else {
		e.Message = snippet(data)
	}
	if loc := resp.Header.Get("Location"); e.Message == "" && loc != "" && resp.StatusCode/100 == 3 {
		e.Message = "redirect to " + printable(wire.Redact(loc, tokens), snippetBytes)
	}
	return e
}

// snippet returns the start of an unexpected body, for an error message.
// Leading space and control characters are skipped first, so a page that
// begins with many blank lines still shows its text.
func snippet(data []byte) string {
	data = bytes.TrimLeftFunc(data, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	if len(data) > snippetBytes+utf8.UTFMax {
		data = data[:snippetBytes+utf8.UTFMax] // printable cuts it to size
	}
	return printable(string(data), snippetBytes)
}

// printable makes text from the server safe to put in an error and a log
// line: each character that [wire.ReplaceUnprintable] finds (controls,
// newlines included, bidirectional marks and overrides, other spaces than
// U+0020) as a space and each byte of invalid UTF-8 as U+FFFD, no
// surrounding space, and at most limit bytes, cut at a character boundary
// and marked with "…".
func printable(s string, limit int) string {
	s = strings.TrimSpace(wire.ReplaceUnprintable(s, asSpace))
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// asSpace is how [printable] replaces what it must: a byte of invalid
// UTF-8 by U+FFFD, any other character by a space.
func asSpace(dst []byte, r rune, c string) []byte {
	if r == utf8.RuneError && len(c) == 1 {
		return utf8.AppendRune(dst, utf8.RuneError)
	}
	return append(dst, ' ')
}
