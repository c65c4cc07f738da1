package mockserver

import (
	"encoding/base64"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// journalEntry is a [plantstoretest.Request] as GET /__plantstore/requests
// lists it. Absent values are null, never a made-up zero: request_id and
// retry_count when the client sent no such header (or, for retry_count, not
// a non-negative integer), fault when no fault answered, invalid when the
// request passed every check, duplicate when it was no refused repeat.
type journalEntry struct {
	Seq    uint64 `json:"seq"`
	Time   string `json:"time"` // arrival, RFC 3339 with nanoseconds, UTC
	Method string `json:"method"`
	Path   string `json:"path"`
	Proto  string `json:"proto"` // "HTTP/1.1", or "HTTP/2.0" over h2c
	// Headers are the request's, the credentials of Authorization and
	// Proxy-Authorization replaced by REDACTED.
	Headers http.Header `json:"headers"`
	// Body is the request body as text when it is valid UTF-8
	// (BodyEncoding "utf-8"), and in standard base64 otherwise
	// (BodyEncoding "base64"). It is cut at the journal's body limit;
	// BodyTruncated says when.
	Body          string `json:"body"`
	BodyEncoding  string `json:"body_encoding"`
	BodyTruncated bool   `json:"body_truncated"`
	// Outcome is "sent", "dropped" or "held" (no reply yet).
	Outcome    string                    `json:"outcome"`
	Status     int                       `json:"status"` // 0 when none was sent
	Fault      *string                   `json:"fault"`
	DurationMS float64                   `json:"duration_ms"`
	RequestID  *string                   `json:"request_id"`
	RetryCount *int                      `json:"retry_count"`
	Invalid    *plantstoretest.ErrorBody `json:"invalid"`
	Duplicate  *duplicateEntry           `json:"duplicate"`
}

// duplicateEntry is plantstoretest.Duplicate in the journal.
type duplicateEntry struct {
	StoredBy uint64 `json:"stored_by"`
	Same     bool   `json:"same"`
}

func newJournalEntry(r *plantstoretest.Request) journalEntry {
	e := journalEntry{
		Seq:           r.Seq,
		Time:          r.Time.UTC().Format(time.RFC3339Nano),
		Method:        r.Method,
		Path:          r.Path,
		Proto:         r.Proto,
		Headers:       r.Header,
		BodyTruncated: r.BodyTruncated,
		Outcome:       string(r.Outcome),
		Status:        r.Status,
		DurationMS:    float64(r.Duration) / float64(time.Millisecond),
		Invalid:       r.Invalid,
	}
	if e.Headers == nil {
		e.Headers = http.Header{}
	}
	if utf8.Valid(r.Body) {
		e.Body, e.BodyEncoding = string(r.Body), "utf-8"
	} else {
		e.Body, e.BodyEncoding = base64.StdEncoding.EncodeToString(r.Body), "base64"
	}
	if r.Fault != "" {
		e.Fault = &r.Fault
	}
	if r.RequestID != "" {
		e.RequestID = &r.RequestID
	}
	if r.RetryCount >= 0 {
		e.RetryCount = &r.RetryCount
	}
	if d := r.Duplicate; d != nil {
		e.Duplicate = &duplicateEntry{StoredBy: d.StoredBy, Same: d.Same}
	}
	return e
}
