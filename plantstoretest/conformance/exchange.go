package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// Exchange is one request the kit sent and what came back, as a report
// shows it: the token is redacted, and bodies are cut to a snippet.
type Exchange struct {
	Method string `json:"method"`
	// URL is the request's URL.
	URL string `json:"url"`
	// Header holds the request's headers, the credentials of Authorization
	// replaced by "REDACTED".
	Header map[string]string `json:"header,omitempty"`
	// Body is the start of the request body, BodyBytes its length.
	Body      string `json:"body,omitempty"`
	BodyBytes int    `json:"body_bytes"`

	// Status is the response's status, 0 when none came (see Error).
	Status int `json:"status"`
	// ResponseHeader holds the response headers a check looks at, and a
	// redirect's Location (redirects are not followed).
	ResponseHeader map[string]string `json:"response_header,omitempty"`
	// ResponseBody is the start of the response body.
	ResponseBody string `json:"response_body,omitempty"`
	// Error says why no response came, or why it could not be read.
	Error string `json:"error,omitempty"`

	body     []byte // the response body, up to maxResponseBody
	cut      bool   // body is cut at the read limit
	timedOut bool   // the request or the reading of its answer timed out
}

// Snippet lengths and the most of a response body the kit reads.
const (
	requestSnippet  = 300
	responseSnippet = 600
	maxResponseBody = 64 << 10
)

// responseHeaders are the response headers an Exchange keeps.
var responseHeaders = []string{"Content-Type", "WWW-Authenticate", "Allow", "Retry-After", "Location"}

// String shows e as the failure message of a check shows it, what the
// target sent quoted or escaped (see the package doc).
func (e *Exchange) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "    > %s %s\n", e.Method, e.URL)
	for _, k := range slices.Sorted(maps.Keys(e.Header)) {
		fmt.Fprintf(&b, "    > %s: %s\n", k, e.Header[k])
	}
	if e.BodyBytes > 0 { // the kit's own
		fmt.Fprintf(&b, "    > %s%s\n", e.Body, more(len(e.Body), e.BodyBytes))
	}
	if e.Status == 0 {
		fmt.Fprintf(&b, "    < no response: %s\n", printable(e.Error))
		return b.String()
	}
	fmt.Fprintf(&b, "    < %d %s\n", e.Status, http.StatusText(e.Status))
	for _, k := range slices.Sorted(maps.Keys(e.ResponseHeader)) {
		fmt.Fprintf(&b, "    < %s: %q\n", k, e.ResponseHeader[k])
	}
	fmt.Fprintf(&b, "    < %q%s\n", e.ResponseBody, more(len(e.ResponseBody), len(e.body)))
	if e.Error != "" {
		fmt.Fprintf(&b, "    < (%s)\n", printable(e.Error))
	}
	return b.String()
}

// more returns "… (n bytes)" for a body of n bytes of which only the first
// shown bytes show, and "" for one shown whole.
func more(shown, n int) string {
	if shown < n {
		return fmt.Sprintf("… (%d bytes)", n)
	}
	return ""
}

func snippet(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) { // do not cut a character in two
			b = b[:len(b)-1]
		}
	}
	return string(b)
}

// readAll reads r to its end, or to limit bytes, cut set, and an error.
func readAll(r io.Reader, limit int) (b []byte, cut bool, err error) {
	b, err = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err == nil && len(b) > limit {
		return b[:limit], true, fmt.Errorf("body cut at %d bytes", limit)
	}
	return b, false, err
}

// do sends one request and reads at most limit bytes of the answer, with
// secrets taken out of everything it keeps of it, in every form
// [wire.Redact] knows; a body cut at limit also loses any start of a token
// the cut left at its end ([wire.RedactCut]).
func do(ctx context.Context, client *http.Client, secrets []string, method, url string, header http.Header, body []byte, limit int) *Exchange {
	e := roundTrip(ctx, client, method, url, header, body, limit)
	for k, v := range e.ResponseHeader {
		e.ResponseHeader[k] = wire.Redact(v, secrets)
	}
	e.Error = wire.Redact(e.Error, secrets)
	if e.cut {
		e.body = wire.RedactCut(e.body, secrets)
	} else {
		e.body = wire.Redact(e.body, secrets)
	}
	e.ResponseBody = snippet(e.body, responseSnippet)
	return e
}

// roundTrip is do without the redaction.
func roundTrip(ctx context.Context, client *http.Client, method, url string, header http.Header, body []byte, limit int) *Exchange {
	e := &Exchange{Method: method, URL: url, BodyBytes: len(body), Body: snippet(body, requestSnippet)}
	if len(header) > 0 {
		e.Header = make(map[string]string, len(header))
		for k, vs := range header {
			e.Header[k] = strings.Join(vs, ", ")
		}
		if v, ok := e.Header["Authorization"]; ok {
			e.Header["Authorization"] = wire.RedactCredentials(v) // sent as given, shown redacted
		}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		e.Error = err.Error()
		return e
	}
	maps.Copy(req.Header, header)
	resp, err := client.Do(req)
	if err != nil {
		e.Error = err.Error()
		e.timedOut = isTimeout(err)
		return e
	}
	defer resp.Body.Close()
	e.Status = resp.StatusCode
	for _, k := range responseHeaders {
		if vs := resp.Header.Values(k); len(vs) > 0 {
			if e.ResponseHeader == nil {
				e.ResponseHeader = map[string]string{}
			}
			e.ResponseHeader[k] = strings.Join(vs, ", ")
		}
	}
	b, cut, err := readAll(resp.Body, limit)
	e.cut = cut
	if err != nil {
		e.Error = "reading the body: " + err.Error()
		e.timedOut = isTimeout(err)
	}
	e.body = b // do redacts it, then keeps its snippet
	return e
}

// isTimeout reports whether err says a request or its body timed out:
// Client.Timeout, or the context's deadline (requestTimeout).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
