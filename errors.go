package plantstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrMaybeCreated matches a failed call of a method that creates, such as
// [Client.CreatePlant], when the plant may nevertheless have been stored:
// some attempt was written to the network and then failed without an
// answer, or was answered with a 5xx, or a 200 came back that could not be
// read. It does not match when every attempt certainly
// failed before reaching the server (a refused connection, a DNS or TLS
// failure) or was answered with a 4xx. The text of every error that matches
// it ends with "(the plant may have been created)".
//
// The plant's ID is chosen by the caller, which makes the create repeatable.
// The service specification does not say how a repeated ID is answered; if
// the service rejects it (as plantstoretest does by default, with
// CodeDuplicateID), settle the outcome by creating the plant again with the
// same ID and treating that rejection as success. But look at the error in
// hand first: when the Client's own retry already got that rejection (an
// [*APIError] with the duplicate-ID code that also matches ErrMaybeCreated,
// because an earlier attempt may have stored the plant), the plant is
// stored and there is nothing left to ask.
var ErrMaybeCreated = errors.New("plantstore: plant may have been created")

// maybeCreatedNote ends the text of every error that matches
// [ErrMaybeCreated], so that a logged error tells what errors.Is does.
const maybeCreatedNote = " (the plant may have been created)"

// ValidationError reports a [NewPlant] that [Client.CreatePlant] refused to
// send. Nothing reached the server. Find it with [errors.As].
type ValidationError struct {
	Field  string // the JSON name of the offending field, e.g. "name"
	Reason string // what is wrong with it, e.g. "is required"
}

// Error returns, for example, "plantstore: invalid plant: name is required".
func (e *ValidationError) Error() string {
	return "plantstore: invalid plant: " + e.Field + " " + e.Reason
}

// APIError is the error a [Client] method returns when the server answers
// with a status other than 2xx: after the retries ran out, for a status that
// is not retried, when the server asked to wait longer than allowed, or when
// the Client's retry budget refused the retry.
//
// Use [errors.As] to read it, and branch on StatusCode (and Code, the
// service's own error code); [errors.Is] with [ErrMaybeCreated] tells
// whether the failed call may nevertheless have stored the plant, and with
// [ErrRetryBudgetExhausted] whether a retry was refused by the budget. The call
// it ended, its request id and attempts included, is the [CallError] that
// wraps it.
type APIError struct {
	// StatusCode is the HTTP status of the last response.
	StatusCode int
	// Code is the "error" field of the response's Error body, or zero when the
	// body was not an Error.
	Code int32
	// Message is the "message" field of the Error body. When the body was not
	// an Error (an HTML page from a proxy, a problem+json document, nothing),
	// it holds the first bytes of the body instead, as valid UTF-8.
	Message string
	// RetryAfter is how long the server asked the client to wait, from the
	// Retry-After header; zero when there was none.
	RetryAfter time.Duration

	op           string // the failed operation, e.g. "create plant"
	attempts     int    // for the text; CallError.Call.Attempts has it
	maybeCreated bool
	retryDenied  bool // the retry budget refused a retry
}

// Error returns, for example,
// "plantstore: create plant: 400 Bad Request: name is required (error 3)",
// followed by " (after 3 attempts)" when the call made several, by
// " (not retried: the client's retry budget is exhausted)" when e matches
// [ErrRetryBudgetExhausted], and by " (the plant may have been created)"
// when e matches [ErrMaybeCreated].
// It never contains the token: the Client's own text never quotes it, and
// where the server's text (a proxy's page that echoes request headers, say)
// contains a token that the call sent, as written, JSON-escaped,
// percent-encoded or HTML-escaped, it reads REDACTED instead (a token
// shorter than 8 bytes only where "Bearer " precedes it).
// The same holds for the other errors of a call, such as a redirect's URL.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("plantstore: ")
	if e.op != "" {
		b.WriteString(e.op)
		b.WriteString(": ")
	}
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
	if e.attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.attempts)
	}
	if e.retryDenied {
		b.WriteString(retryBudgetNote)
	}
	if e.maybeCreated {
		b.WriteString(maybeCreatedNote)
	}
	return b.String()
}

// Is reports whether target is [ErrMaybeCreated] and the call may
// nevertheless have stored the plant, or [ErrRetryBudgetExhausted] and the
// Client's retry budget refused the retry that would have followed.
func (e *APIError) Is(target error) bool {
	return target == ErrMaybeCreated && e.maybeCreated ||
		target == ErrRetryBudgetExhausted && e.retryDenied
}

// CallError is the error every [Client] method returns: it says which call
// failed, as a [CallInfo] (its request id, attempts, last status and
// duration), and wraps the cause (an [*APIError], a [*ValidationError], or
// a transport or context error). [errors.As] and [errors.Is] see through
// it, so
//
//	var apiErr *plantstore.APIError
//	if errors.As(err, &apiErr) { … }
//
// works as ever; read the CallError itself with errors.As(err, &callErr) to
// log callErr.Call.RequestID, the id to quote, for any failure.
type CallError struct {
	// Call is the failed call, as [WithCallInfo] would record it. When
	// nothing was sent (Call.Attempts is zero) its RequestID is the id the
	// call would have sent; it is empty when a CallOption was invalid.
	Call CallInfo
	// Err is the cause; never nil.
	Err error
}

// Error returns the cause's message unchanged. The request id is left out,
// so that the text of an error does not change from one run to the next;
// log it from the field.
func (e *CallError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *CallError) Unwrap() error { return e.Err }

// requestError is a call that failed without a usable response: the
// connection failed, the context ended, or the response could not be read.
type requestError struct {
	op           string
	attempts     int
	maybeCreated bool
	retryDenied  bool
	err          error
}

func (e *requestError) Error() string {
	var b strings.Builder
	b.WriteString("plantstore: ")
	b.WriteString(e.op)
	b.WriteString(": ")
	b.WriteString(e.err.Error())
	if e.attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.attempts)
	}
	if e.retryDenied {
		b.WriteString(retryBudgetNote)
	}
	if e.maybeCreated {
		b.WriteString(maybeCreatedNote)
	}
	return b.String()
}

func (e *requestError) Unwrap() error { return e.err }

func (e *requestError) Is(target error) bool {
	return target == ErrMaybeCreated && e.maybeCreated ||
		target == ErrRetryBudgetExhausted && e.retryDenied
}

const (
	// snippetBytes is how much of an unexpected body an error quotes, and
	// messageBytes how much of an Error body's message it keeps.
	snippetBytes = 256
	messageBytes = 1024
)

// newAPIError describes a non-2xx response, the last of a call that sent
// tokens over its attempts. The body is used when it is an Error document,
// and quoted otherwise; a redirect without a body names its target.
func newAPIError(op string, resp *http.Response, data []byte, tokens []string, attempts int, maybeCreated, retryDenied bool) *APIError {
	e := &APIError{
		StatusCode:   resp.StatusCode,
		op:           op,
		attempts:     attempts,
		maybeCreated: maybeCreated,
		retryDenied:  retryDenied,
	}
	if d, ok := retryAfter(resp); ok {
		e.RetryAfter = d
	}
	var body struct {
		Code    *int32  `json:"error"`
		Message *string `json:"message"`
	}
	// The token is redacted from the body as the server wrote it, and from
	// the message as JSON decoded it: decoding can turn a form redact knows
	// (an HTML escape written into JSON by hand, say) into one it does not.
	data = redact(data, tokens)
	if json.Unmarshal(data, &body) == nil && body.Code != nil && body.Message != nil {
		e.Code, e.Message = *body.Code, printable(redact(*body.Message, tokens), messageBytes)
	} else {
		e.Message = snippet(data)
	}
	if loc := resp.Header.Get("Location"); e.Message == "" && loc != "" && resp.StatusCode/100 == 3 {
		e.Message = "redirect to " + printable(redact(loc, tokens), snippetBytes)
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
// line: valid UTF-8, control characters (newlines included) as spaces, no
// surrounding space, and at most limit bytes, cut at a character boundary
// and marked with "…".
func printable(s string, limit int) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
