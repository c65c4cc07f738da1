package mockserver

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

func TestJournal(t *testing.T) {
	t.Parallel()
	srv, _ := openMock(t, plantstoretest.WithJournalBodyLimit(JournalBodyLimit))
	before := time.Now()
	call(t, srv, "POST", "/__plantstore/faults", []byte(`{"status": 503, "headers": {"Retry-After": "1"}}`), "")

	send := func(body []byte, header map[string]string) {
		req, _ := http.NewRequest("POST", srv.URL+"/plants", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+apiToken)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatalf("POST /plants: %v", err)
		}
		resp.Body.Close()
	}
	send([]byte(`{"id": 1, "name": "Fern"}`), map[string]string{"X-Request-Id": "r1", "X-Retry-Count": "0"})
	send([]byte(`{"id": 1, "name": "Fern"}`), map[string]string{"X-Request-Id": "r1", "X-Retry-Count": "1"})
	send([]byte("\xff\xfe not UTF-8"), map[string]string{"X-Retry-Count": "-3"})
	long := `{"id": 2, "name": "` + strings.Repeat("a", JournalBodyLimit) + `"}`
	send([]byte(long), nil)

	got := decode[[]journalEntry](t, call(t, srv, "GET", "/__plantstore/requests", nil, ""))
	if len(got) != 4 {
		t.Fatalf("GET requests = %d entries, want 4: %+v", len(got), got)
	}
	r1, f1, zero, one := "r1", "", 0, 1
	f1 = got[0].deref()
	want := []journalEntry{
		{Seq: 1, Method: "POST", Path: "/plants", Proto: "HTTP/1.1", Body: `{"id": 1, "name": "Fern"}`, BodyEncoding: "utf-8",
			Outcome: "sent", Status: 503, Fault: &f1, RequestID: &r1, RetryCount: &zero},
		{Seq: 2, Method: "POST", Path: "/plants", Proto: "HTTP/1.1", Body: `{"id": 1, "name": "Fern"}`, BodyEncoding: "utf-8",
			Outcome: "sent", Status: 200, RequestID: &r1, RetryCount: &one},
		{Seq: 3, Method: "POST", Path: "/plants", Proto: "HTTP/1.1", Body: base64.StdEncoding.EncodeToString([]byte("\xff\xfe not UTF-8")), BodyEncoding: "base64",
			Outcome: "sent", Status: 400, Invalid: &plantstoretest.ErrorBody{Code: plantstoretest.CodeInvalidJSON}},
		{Seq: 4, Method: "POST", Path: "/plants", Proto: "HTTP/1.1", Body: long[:JournalBodyLimit], BodyEncoding: "utf-8", BodyTruncated: true,
			Outcome: "sent", Status: 200},
	}
	opts := cmp.Options{
		cmpopts.IgnoreFields(journalEntry{}, "Time", "Headers", "DurationMS"),
		cmpopts.IgnoreFields(plantstoretest.ErrorBody{}, "Message"),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("GET requests mismatch (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(f1, "inject#1 ") {
		t.Errorf("entry 1 fault = %q, want it to name fault #1", f1)
	}
	for _, e := range got {
		at, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil || at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("entry %d time = %q (%v), want an RFC 3339 time of this test", e.Seq, e.Time, err)
		}
		if e.DurationMS < 0 {
			t.Errorf("entry %d duration_ms = %v, want 0 or more", e.Seq, e.DurationMS)
		}
		if diff := cmp.Diff([]string{"Bearer REDACTED"}, e.Headers["Authorization"]); diff != "" {
			t.Errorf("entry %d Authorization mismatch (-want +got):\n%s", e.Seq, diff)
		}
	}

	since := decode[[]journalEntry](t, call(t, srv, "GET", "/__plantstore/requests?since=2", nil, ""))
	if seqs := seqsOf(since); !cmp.Equal(seqs, []uint64{3, 4}) {
		t.Errorf("GET requests?since=2 seqs = %v, want [3 4]", seqs)
	}
	if got := decode[[]journalEntry](t, call(t, srv, "GET", "/__plantstore/requests?since=4", nil, "")); len(got) != 0 {
		t.Errorf("GET requests?since=4 = %d entries, want none", len(got))
	}
	for _, bad := range []string{"-1", "x", "1.5", "", "18446744073709551616"} {
		rep := call(t, srv, "GET", "/__plantstore/requests?since="+bad, nil, "")
		wantError(t, "GET requests?since="+bad, rep, 400, CodeBadControlRequest, fmt.Sprintf("since must be a journal seq (an integer from 0), got %q", bad))
	}

	if rep := call(t, srv, "DELETE", "/__plantstore/requests", nil, ""); rep.status != 204 {
		t.Errorf("DELETE requests = %d, want 204", rep.status)
	}
	send([]byte(`{"id": 3, "name": "Ivy"}`), nil)
	if seqs := seqsOf(decode[[]journalEntry](t, call(t, srv, "GET", "/__plantstore/requests", nil, ""))); !cmp.Equal(seqs, []uint64{5}) {
		t.Errorf("seqs after DELETE requests and one create = %v, want [5]: seq keeps counting", seqs)
	}
}

// deref returns the entry's fault, or "" when null.
func (e journalEntry) deref() string {
	if e.Fault == nil {
		return ""
	}
	return *e.Fault
}

func seqsOf(entries []journalEntry) []uint64 {
	seqs := []uint64{}
	for _, e := range entries {
		seqs = append(seqs, e.Seq)
	}
	return seqs
}

func TestJournalEntryOfAHeldRequest(t *testing.T) {
	t.Parallel()
	e := newJournalEntry(&plantstoretest.Request{Seq: 9, Outcome: plantstoretest.OutcomeHeld, RetryCount: -1})
	if e.Status != 0 || e.Outcome != "held" || e.RetryCount != nil || e.RequestID != nil || e.Fault != nil || e.Headers == nil {
		t.Errorf("newJournalEntry(held) = %+v, want status 0, outcome held, nulls, and headers {}", e)
	}
}

// TestJournalRedactsProxyCredentials checks that the journal, which the
// control API serves to anyone who may use it, keeps no credentials: a
// client behind a proxy, or one that sends its token there by mistake,
// puts them in Proxy-Authorization.
func TestJournalRedactsProxyCredentials(t *testing.T) {
	t.Parallel()
	srv, _ := openMock(t)
	req, _ := http.NewRequest("POST", srv.URL+"/plants", strings.NewReader(`{"id": 1, "name": "Fern"}`))
	req.Header.Set("Authorization", "Bearer "+apiToken)
	req.Header.Set("Proxy-Authorization", "Basic cHJveHk6c2VjcmV0")
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST /plants: %v", err)
	}
	resp.Body.Close()
	rep := call(t, srv, "GET", "/__plantstore/requests", nil, "")
	got := decode[[]journalEntry](t, rep)
	if len(got) != 1 {
		t.Fatalf("GET requests = %d entries, want 1", len(got))
	}
	if diff := cmp.Diff([]string{"Basic REDACTED"}, got[0].Headers["Proxy-Authorization"]); diff != "" {
		t.Errorf("journaled Proxy-Authorization mismatch (-want +got):\n%s", diff)
	}
	if strings.Contains(string(rep.body), "cHJveHk6c2VjcmV0") {
		t.Errorf("GET requests = %s, holds the proxy credentials", rep.body)
	}
}
