package plantstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestCorrelationHeaders(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503}, reply{drop: true}, reply{status: 200, body: `{"name":"Monstera"}`})
	c := newTestClient(t, srv.URL)
	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	reqs := srv.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(reqs))
	}
	id := reqs[0].header.Get("X-Request-Id")
	if !hexID.MatchString(id) {
		t.Errorf("X-Request-Id = %q, want 32 lower-case hex digits", id)
	}
	for i, r := range reqs {
		if got := r.header.Values("X-Request-Id"); !cmp.Equal(got, []string{id}) {
			t.Errorf("attempt %d X-Request-Id = %q, want [%q] as on the first", i, got, id)
		}
		if got := r.header.Values("X-Retry-Count"); !cmp.Equal(got, []string{strconv.Itoa(i)}) {
			t.Errorf("attempt %d X-Retry-Count = %q, want [%d]", i, got, i)
		}
	}

	if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
		t.Fatalf("second CreatePlant(%+v) error: %v", monstera, err)
	}
	if next := srv.lastRequestID(t); next == id || !hexID.MatchString(next) {
		t.Errorf("second call's X-Request-Id = %q, want a new id (first was %q)", next, id)
	}
}

func TestWithRequestID(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 502}, reply{status: 200, body: `{"name":"Monstera"}`})
	if _, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera, WithRequestID("order-42/a")); err != nil {
		t.Fatalf("CreatePlant(%+v, WithRequestID) error: %v", monstera, err)
	}
	for i, r := range srv.requests() {
		if got := r.header.Get("X-Request-Id"); got != "order-42/a" {
			t.Errorf("attempt %d X-Request-Id = %q, want %q", i, got, "order-42/a")
		}
	}
}

// TestHooksSeeTheSentRequestID checks that every hook of a call sees, as
// CallInfo.RequestID, the id the call sends, also once a response brought
// an id of the server's: AttemptStart of a retry must see what that retry
// carries on the wire. The server's id is ServerRequestID.
func TestHooksSeeTheSentRequestID(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503, header: map[string]string{"X-Request-Id": "srv-1"}},
		reply{status: 200, body: `{"name":"Monstera"}`})
	var seen []string
	record := func(hook string, call *CallInfo) {
		seen = append(seen, hook+" "+call.RequestID+" "+call.ServerRequestID)
	}
	c := newTestClient(t, srv.URL, WithHooks(Hooks{
		CallStart: func(ctx context.Context, call *CallInfo) context.Context { record("CallStart", call); return ctx },
		AttemptStart: func(ctx context.Context, call *CallInfo, a Attempt) context.Context {
			record(fmt.Sprint("AttemptStart ", a.Number), call)
			return ctx
		},
		AttemptEnd: func(_ context.Context, call *CallInfo, a Attempt) { record(fmt.Sprint("AttemptEnd ", a.Number), call) },
		CallEnd:    func(_ context.Context, call *CallInfo, _ error) { record("CallEnd", call) },
	}))
	if _, err := c.CreatePlant(context.Background(), monstera, WithRequestID("mine")); err != nil {
		t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
	}
	// The second answer carries no id: ServerRequestID is the last
	// answer's, not the last id an answer carried.
	want := []string{"CallStart mine ", "AttemptStart 1 mine ", "AttemptEnd 1 mine srv-1",
		"AttemptStart 2 mine srv-1", "AttemptEnd 2 mine ", "CallEnd mine "}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("CallInfo.RequestID and ServerRequestID as the hooks saw them (-want +got):\n%s", diff)
	}
	for i, r := range srv.requests() {
		if got := r.header.Get("X-Request-Id"); got != "mine" {
			t.Errorf("attempt %d sent X-Request-Id %q, want %q", i+1, got, "mine")
		}
	}
}

func TestErrorsCarryRequestID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		reply        reply
		fromServer   string // the X-Request-Id the server answers with
		wantAttempts int
		wantAPIError bool
	}{
		{"API error, server sends its id", reply{status: 409, header: map[string]string{"X-Request-Id": "srv-1"}}, "srv-1", 1, true},
		{"API error, server sends none", reply{status: 409}, "", 1, true},
		{"transport failure", reply{drop: true}, "", 3, false},
		{"undecodable 200", reply{status: 200, body: `[]`}, "", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply)
			_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			var callErr *CallError
			if !errors.As(err, &callErr) {
				t.Fatalf("CreatePlant(%+v) error = %v, want a *CallError", monstera, err)
			}
			got := [3]any{callErr.Call.RequestID, callErr.Call.ServerRequestID, callErr.Call.Attempts}
			if want := [3]any{srv.lastRequestID(t), tt.fromServer, tt.wantAttempts}; got != want {
				t.Errorf("CallError.Call {RequestID, ServerRequestID, Attempts} = %q, want %q", got, want)
			}
			// The Call is as WithCallInfo records it, though the call had
			// neither that nor hooks.
			if callErr.Call.Duration <= 0 {
				t.Errorf("CallError.Call.Duration = %v, want > 0", callErr.Call.Duration)
			}
			var apiErr *APIError
			if got := errors.As(err, &apiErr); got != tt.wantAPIError {
				t.Fatalf("errors.As(%v, *APIError) = %v, want %v", err, got, tt.wantAPIError)
			}
			// The CallError says the call; its cause, the failure alone.
			if want := "plantstore: create plant: " + callErr.Err.Error(); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("CallError.Error() = %q, want it to start with %q", err, want)
			}
		})
	}
}

func TestValidationErrorIsCallError(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, "http://127.0.0.1:1")
	_, err := c.CreatePlant(context.Background(), NewPlant{ID: 1})
	var callErr *CallError
	if !errors.As(err, &callErr) || callErr.Call.Attempts != 0 || !hexID.MatchString(callErr.Call.RequestID) {
		t.Fatalf("CreatePlant(no name) error = %#v, want a *CallError with no attempts and the id it would have sent", err)
	}
	var valErr *ValidationError
	if !errors.As(err, &valErr) {
		t.Errorf("CreatePlant(no name) error = %v, want it to wrap a *ValidationError", err)
	}
}

func TestRequestIDProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want string
	}{
		{"a", ""},
		{string(make([]byte, 0, 1)) + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", ""},
		{"", "must not be empty"},
		{string(make([]byte, 129)), "is longer than 128 bytes"},
		{"a b", "has an invalid character (want visible ASCII)"},
		{"a\nb", "has an invalid character (want visible ASCII)"},
		{"é", "has an invalid character (want visible ASCII)"},
	}
	for _, tt := range tests {
		if got := requestIDProblem(tt.id); got != tt.want {
			t.Errorf("requestIDProblem(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestServerRequestID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    http.Header
		want string
	}{
		{"none from the server", http.Header{}, ""},
		{"empty from the server", http.Header{"X-Request-Id": {""}}, ""},
		{"the server's", http.Header{"X-Request-Id": {"srv-1"}}, "srv-1"},
		{"made printable", http.Header{"X-Request-Id": {"a\x01b"}}, "a b"},
		{"only spaces once printable", http.Header{"X-Request-Id": {"\x01 \x02"}}, ""},
		{"bidi override", http.Header{"X-Request-Id": {"req-\u202elive"}}, "req- live"},
		{"bidi marks and isolates", http.Header{"X-Request-Id": {"a\u200eb\u200fc\u061cd\u2066e\u2069f"}}, "a b c d e f"},
		{"C1 control, DEL, line separator", http.Header{"X-Request-Id": {"a\u009bb\x7fc\u2028d"}}, "a b c d"},
		{"invalid UTF-8", http.Header{"X-Request-Id": {"a\xffb"}}, "a\ufffdb"},
		{"token redacted", http.Header{"X-Request-Id": {"id-" + testToken}}, "id-REDACTED"},
	}
	for _, tt := range tests {
		if got := serverRequestID(tt.h, []string{testToken}); got != tt.want {
			t.Errorf("%s: serverRequestID(%q) = %q, want %q", tt.name, tt.h, got, tt.want)
		}
	}
}

func TestNewRequestIDUsesEveryDigit(t *testing.T) {
	t.Parallel()
	seen := map[rune]bool{}
	ids := map[string]bool{}
	for i := 0; i < 200; i++ {
		id := newRequestID()
		if !hexID.MatchString(id) {
			t.Fatalf("newRequestID() = %q, want 32 lower-case hex digits", id)
		}
		ids[id] = true
		for _, r := range id {
			seen[r] = true
		}
	}
	if len(ids) != 200 || len(seen) != 16 {
		t.Errorf("200 ids: %d distinct, %d distinct digits; want 200 and 16", len(ids), len(seen))
	}
}

// TestEchoedTokenAsRequestID checks that a server that answers with the
// call's bearer token as its X-Request-Id, as written or escaped the ways
// the error texts redact, gets it into no log record and no server request
// id the caller reads: not CallError's, WithCallInfo's nor the hooks'.
func TestEchoedTokenAsRequestID(t *testing.T) {
	t.Parallel()
	percent, html, jsonEsc := "", "", ""
	for i := 0; i < len(testToken); i++ {
		percent += fmt.Sprintf("%%%02X", testToken[i])
		html += fmt.Sprintf("&#x%x;", testToken[i])
		jsonEsc += fmt.Sprintf(`\u%04x`, testToken[i])
	}
	tests := []struct{ name, echoed, want string }{
		{"as written", testToken, "REDACTED"},
		{"inside an id", "req-" + testToken + "-1", "req-REDACTED-1"},
		{"percent-encoded", percent, "REDACTED"},
		{"HTML-escaped", html, "REDACTED"},
		{"JSON-escaped", jsonEsc, "REDACTED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			echo := map[string]string{"X-Request-Id": tt.echoed}
			srv := newStubServer(t, reply{status: 503, header: echo}, reply{status: 400, header: echo})
			var logs syncbuf.Buffer
			var hookIDs []string
			c := newTestClient(t, srv.URL, WithRetryBackoff(0, 0),
				WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
				WithHooks(Hooks{
					AttemptEnd: func(_ context.Context, call *CallInfo, _ Attempt) { hookIDs = append(hookIDs, call.ServerRequestID) },
					CallEnd:    func(_ context.Context, call *CallInfo, _ error) { hookIDs = append(hookIDs, call.ServerRequestID) },
				}))
			var info CallInfo
			_, err := c.CreatePlant(context.Background(), monstera, WithCallInfo(&info))
			var callErr *CallError
			var apiErr *APIError
			if !errors.As(err, &callErr) || !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
				t.Fatalf("CreatePlant(%+v) error = %v, want the 400 in a *CallError", monstera, err)
			}
			got := map[string]string{
				"CallError.Call.ServerRequestID": callErr.Call.ServerRequestID,
				"CallInfo.ServerRequestID":       info.ServerRequestID,
			}
			want := map[string]string{
				"CallError.Call.ServerRequestID": tt.want,
				"CallInfo.ServerRequestID":       tt.want,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request ids after an echoed token (-want +got):\n%s", diff)
			}
			for i, id := range hookIDs {
				if id != tt.want {
					t.Errorf("hook %d saw CallInfo.ServerRequestID %q, want %q", i, id, tt.want)
				}
			}
			for _, form := range []string{testToken, percent, html, jsonEsc} {
				if strings.Contains(logs.String(), form) {
					t.Errorf("log holds the token (as %q):\n%s", form, logs.String())
				}
			}
			if n := strings.Count(logs.String(), " server_request_id="+tt.want+"\n"); n != 2 {
				t.Errorf("log has %d records with server_request_id=%s, want 2 (two attempts):\n%s", n, tt.want, logs.String())
			}
			if n := strings.Count(logs.String(), " request_id="+info.RequestID+" "); n != 3 {
				t.Errorf("log has %d records with request_id=%s, the id sent, want 3 (two attempts, one retry):\n%s", n, info.RequestID, logs.String())
			}
		})
	}
}
