package plantstoretest

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// retryCount parses an X-Retry-Count header; see [Request.RetryCount]. A
// value longer than the largest count (19 digits) is refused unread, as
// strconv's error would copy it.
func retryCount(header http.Header) int {
	values := header.Values("X-Retry-Count")
	if len(values) == 1 && len(values[0]) <= 19 {
		if n, err := strconv.ParseUint(values[0], 10, strconv.IntSize-1); err == nil {
			return int(n)
		}
	}
	return -1
}

// arrival returns r's journal entry as it arrives, not yet numbered, and
// r's body as [readBody] reads it.
func (h *Handler) arrival(r *http.Request) (req Request, body []byte, readErr error) {
	req = Request{
		Time:       h.now(),
		Header:     redact(r.Header),
		RequestID:  r.Header.Get("X-Request-Id"),
		RetryCount: retryCount(r.Header),
	}
	req.Method, req.Path = h.methodAndPath(r)
	req.Proto = protoOf(r)
	body, readErr = readBody(r)
	req.Body, req.BodyTruncated = h.journal.keep(body, readErr)
	return req, body, readErr
}

// protoOf returns r's protocol as a constant, which keeps nothing of r
// alive.
func protoOf(r *http.Request) string {
	switch {
	case r.ProtoMajor == 2:
		return "HTTP/2.0"
	case r.ProtoMajor == 1 && r.ProtoMinor == 1:
		return "HTTP/1.1"
	case r.ProtoMajor == 1 && r.ProtoMinor == 0:
		return "HTTP/1.0"
	}
	return strings.Clone(r.Proto)
}

// methodAndPath returns r's method and path as the journal keeps them: a
// route's own strings where equal (no allocation for the requests the fake
// serves), else copies, which keep no request line alive.
func (h *Handler) methodAndPath(r *http.Request) (method, path string) {
	for _, rt := range h.routes {
		if rt.method == r.Method {
			method = rt.method
		}
		if rt.pattern == r.URL.Path {
			path = rt.pattern
		}
	}
	if method == "" {
		method = strings.Clone(r.Method)
	}
	if path == "" {
		path = strings.Clone(r.URL.Path)
	}
	return method, path
}

// readBody reads r's body with [wire.ReadBody], into a buffer of the
// announced length and a byte to spare when that is short. Unlike
// http.MaxBytesReader, it lets net/http keep the connection after a body a
// little too long.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var buf []byte
	if r.ContentLength >= 0 && r.ContentLength < wire.FirstBufferSize {
		buf = make([]byte, 0, r.ContentLength+1)
	}
	return wire.ReadBody(buf, r.Body)
}

// redact returns a copy of header with the credentials of Authorization and
// Proxy-Authorization replaced by "REDACTED", the scheme kept.
func redact(header http.Header) http.Header {
	out := header.Clone()
	if out == nil {
		out = http.Header{}
	}
	for _, name := range []string{"Authorization", "Proxy-Authorization"} {
		values := out.Values(name)
		for i, v := range values {
			values[i] = wire.RedactCredentials(v)
		}
	}
	return out
}
