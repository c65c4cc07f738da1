package plantstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
)

func TestCreatePlantAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reply    reply
		want     *APIError
		attempts int
		wantMsg  string
		is       []error
		isNot    []error
	}{
		{
			name:     "400 Error body",
			reply:    reply{status: 400, body: `{"error":3,"message":"name is required"}`},
			want:     &APIError{StatusCode: 400, Code: 3, Message: "name is required"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 400 Bad Request: name is required (error 3)",
			isNot:    []error{ErrMaybeCreated},
		},
		{
			name:     "401",
			reply:    reply{status: 401, body: `{"error":16,"message":"bad token"}`},
			want:     &APIError{StatusCode: 401, Code: 16, Message: "bad token"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 401 Unauthorized: bad token (error 16)",
			isNot:    []error{ErrMaybeCreated},
		},
		{
			name:     "403 empty body",
			reply:    reply{status: 403},
			want:     &APIError{StatusCode: 403},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 403 Forbidden",
		},
		{
			name:     "404 HTML from a proxy",
			reply:    reply{status: 404, header: map[string]string{"Content-Type": "text/html"}, body: "<h1>Not Found</h1>\n"},
			want:     &APIError{StatusCode: 404, Message: "<h1>Not Found</h1>"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 404 Not Found: <h1>Not Found</h1>",
		},
		{
			name: "problem+json",
			reply: reply{status: 422, header: map[string]string{"Content-Type": "application/problem+json"},
				body: `{"title":"Unprocessable","status":422}`},
			want:     &APIError{StatusCode: 422, Message: `{"title":"Unprocessable","status":422}`},
			attempts: 1,
			wantMsg:  `plantstore: create plant: 422 Unprocessable Entity: {"title":"Unprocessable","status":422}`,
		},
		{
			name:     "500 is not retried",
			reply:    reply{status: 500, body: `{"error":1,"message":"boom"}`},
			want:     &APIError{StatusCode: 500, Code: 1, Message: "boom"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 500 Internal Server Error: boom (error 1)",
			is:       []error{ErrMaybeCreated},
		},
		{
			name:     "Error body missing message: its code, the body quoted",
			reply:    reply{status: 409, body: `{"error":1009}`},
			want:     &APIError{StatusCode: 409, Code: 1009, Message: `{"error":1009}`},
			attempts: 1,
			wantMsg:  `plantstore: create plant: 409 Conflict: {"error":1009} (error 1009)`,
		},
		{
			name:     "Error body with a null message: its code, the body quoted",
			reply:    reply{status: 409, body: `{"error":1009,"message":null}`},
			want:     &APIError{StatusCode: 409, Code: 1009, Message: `{"error":1009,"message":null}`},
			attempts: 1,
			wantMsg:  `plantstore: create plant: 409 Conflict: {"error":1009,"message":null} (error 1009)`,
		},
		{
			name:     "an error that is not an int32 is no code",
			reply:    reply{status: 400, body: `{"error":1.5,"message":"x"}`},
			want:     &APIError{StatusCode: 400, Message: `{"error":1.5,"message":"x"}`},
			attempts: 1,
			wantMsg:  `plantstore: create plant: 400 Bad Request: {"error":1.5,"message":"x"}`,
		},
		{
			name:     "non-UTF-8 body is made valid",
			reply:    reply{status: 400, body: "bad \xff byte"},
			want:     &APIError{StatusCode: 400, Message: "bad \uFFFD byte"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 400 Bad Request: bad \uFFFD byte",
		},
		{
			name:     "control characters become spaces",
			reply:    reply{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>\n<body>bad gateway\nlevel=ERROR msg=forged</body>\r\n"},
			want:     &APIError{StatusCode: 502, Message: "<html> <body>bad gateway level=ERROR msg=forged</body>"},
			attempts: 3,
			wantMsg:  "plantstore: create plant: 502 Bad Gateway: <html> <body>bad gateway level=ERROR msg=forged</body> (after 3 attempts)",
			is:       []error{ErrMaybeCreated},
		},
		{
			name:     "bidi controls and other unprintable characters become spaces",
			reply:    reply{status: 400, body: `{"error":1,"message":"name \u202eevil\u2066 is\u00a0taken\u2028"}`},
			want:     &APIError{StatusCode: 400, Code: 1, Message: "name  evil  is taken"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 400 Bad Request: name  evil  is taken (error 1)",
		},
		{
			name:     "long Error message is cut",
			reply:    reply{status: 400, body: `{"error":2,"message":"` + strings.Repeat("é", 600) + `"}`},
			want:     &APIError{StatusCode: 400, Code: 2, Message: strings.Repeat("é", messageBytes/2) + "…"},
			attempts: 1,
			wantMsg:  "plantstore: create plant: 400 Bad Request: ééé",
		},
		{
			name:     "text after many blank lines is kept",
			reply:    reply{status: 502, body: strings.Repeat("\r\n", 300) + "<h1>Bad Gateway</h1>"},
			want:     &APIError{StatusCode: 502, Message: "<h1>Bad Gateway</h1>"},
			attempts: 3,
			wantMsg:  "plantstore: create plant: 502 Bad Gateway: <h1>Bad Gateway</h1> (after 3 attempts)",
			is:       []error{ErrMaybeCreated},
		},
		{
			name:     "oversized body is cut to a snippet",
			reply:    reply{status: 502, body: strings.Repeat("y", 2<<20)},
			want:     &APIError{StatusCode: 502, Message: strings.Repeat("y", snippetBytes) + "…"},
			attempts: 3,
			wantMsg:  "plantstore: create plant: 502 Bad Gateway: yyy",
			is:       []error{ErrMaybeCreated},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply)
			_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			var got *APIError
			if !errors.As(err, &got) {
				t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", monstera, err)
			}
			var callErr *CallError
			if !errors.As(err, &callErr) || callErr.Call.Attempts != tt.attempts || callErr.Call.RequestID != srv.lastRequestID(t) {
				t.Errorf("CreatePlant(%+v) error = %#v, want a *CallError with %d attempts and the request id sent", monstera, err, tt.attempts)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(APIError{})); diff != "" {
				t.Errorf("CreatePlant(%+v) error mismatch (-want +got):\n%s", monstera, diff)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, tt.wantMsg) {
				t.Errorf("CreatePlant(%+v) error = %q, want it to start with %q", monstera, msg, tt.wantMsg)
			}
			for _, target := range tt.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, target)
				}
			}
			for _, target := range tt.isNot {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", err, target)
				}
			}
		})
	}
}

// TestErrorsRedactEchoedToken checks that a token the server echoes back,
// as a proxy's debug page might, raw or escaped in any of the ways a server
// writes text, does not reach the error from any of the places an error
// quotes the server: an Error message, a body snippet, the snippet of a 200
// that is not a Plant, a redirect's target, and the URL of a redirect that
// was followed.
func TestErrorsRedactEchoedToken(t *testing.T) {
	t.Parallel()
	// forms are the ways a server may write the token.
	forms := []struct {
		name   string
		encode func(string) string
	}{
		{"raw", func(s string) string { return s }},
		{"JSON", func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }},
		{"JSON with \\/", func(s string) string {
			b, _ := json.Marshal(s)
			return strings.ReplaceAll(string(b[1:len(b)-1]), "/", `\/`)
		}},
		{"JSON \\u", func(s string) string { return jsonEscapeAll(s, `\u%04X`) }},
		{"query", url.QueryEscape},
		{"query, lower case", func(s string) string { return strings.ToLower(url.QueryEscape(s)) }},
		{"HTML", html.EscapeString},
	}
	// places write a reply that quotes the token as encoded.
	type place func(w http.ResponseWriter, r *http.Request, encoded string)
	places := []struct {
		name  string
		place place
	}{
		{"Error message", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": 1, "message": "token " + encoded + " is not allowed here"})
		}},
		{"Error message, hand-written JSON", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"token `+encoded+` is not allowed here"}`)
		}},
		{"HTML page", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<pre>Authorization: Bearer "+encoded+"</pre>")
		}},
		{"200 that is not a Plant", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			io.WriteString(w, "debug: Bearer "+encoded)
		}},
		{"redirect target", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			w.Header().Set("Location", "https://elsewhere.example/login?t="+encoded)
			w.WriteHeader(http.StatusFound)
		}},
		{"redirect followed", func(w http.ResponseWriter, r *http.Request, encoded string) {
			// A loop on the same origin, which the client follows until it
			// gives up; the error names the last URL.
			http.Redirect(w, r, "/plants?t="+encoded, http.StatusTemporaryRedirect)
		}},
		{"redirect target net/http cannot parse", func(w http.ResponseWriter, _ *http.Request, encoded string) {
			// net/http quotes the Location it failed to parse in its
			// error, and the retry log and hooks quote that error.
			w.Header().Set("Location", "/login/"+encoded+"%zz")
			w.WriteHeader(http.StatusTemporaryRedirect)
		}},
		{"redirect followed, then dropped", func(w http.ResponseWriter, r *http.Request, encoded string) {
			// The error names the URL, and so does the retry log.
			if r.URL.RawQuery == "" {
				http.Redirect(w, r, "/plants?t="+encoded, http.StatusTemporaryRedirect)
				return
			}
			panic(http.ErrAbortHandler)
		}},
	}
	tokens := []string{testToken, `quote"and\backslash`, "sl/ash&amp+plus=eq<lt>%25"}
	for _, pl := range places {
		for _, form := range forms {
			for i, token := range tokens {
				if strings.HasPrefix(pl.name, "redirect followed") && form.name != "query" {
					continue // a URL holds the token only URL-encoded
				}
				if strings.HasPrefix(pl.name, "redirect target net/http") && form.name != "query" && form.name != "raw" {
					continue // a Location header holds the token as written or URL-encoded
				}
				fromFunc := i == 1 // a token from a token func is redacted too
				t.Run(fmt.Sprintf("%s/%s/%s", pl.name, form.name, token), func(t *testing.T) {
					t.Parallel()
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						pl.place(w, r, form.encode(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
					}))
					t.Cleanup(srv.Close)
					opt := WithToken(token)
					if fromFunc {
						opt = WithTokenFunc(func(context.Context) (string, error) { return token, nil })
					}
					var log syncbuf.Buffer
					logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
					var hookErrs syncbuf.Buffer
					hooks := WithHooks(Hooks{AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) {
						if a.Err != nil {
							fmt.Fprintln(&hookErrs, a.Err)
						}
					}})
					_, err := newTestClient(t, srv.URL, opt, WithLogger(logger), hooks).CreatePlant(context.Background(), monstera)
					if err == nil {
						t.Fatal("CreatePlant succeeded, want an error")
					}
					if out := hookErrs.String(); strings.Contains(out, token) || strings.Contains(out, form.encode(token)) {
						t.Errorf("an attempt's error, as hooks see it, contains the token (%s):\n%s", form.name, out)
					}
					if out := log.String(); strings.Contains(out, token) || strings.Contains(out, form.encode(token)) {
						t.Errorf("the log contains the token (%s):\n%s", form.name, out)
					}
					msg := err.Error()
					if enc := form.encode(token); strings.Contains(msg, token) || strings.Contains(msg, enc) || !strings.Contains(msg, "REDACTED") {
						t.Errorf("error %q: want the token (%s: %q) replaced by REDACTED", msg, form.name, enc)
					}
					var apiErr *APIError
					if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, token) {
						t.Errorf("APIError.Message = %q, contains the token", apiErr.Message)
					}
					// A caller that looks into a transport error, as net/http's
					// *url.Error, reads its text too.
					var urlErr *url.Error
					if errors.As(err, &urlErr) {
						if s := urlErr.Error(); strings.Contains(s, token) || strings.Contains(s, form.encode(token)) {
							t.Errorf("the *url.Error in the chain reads %q, contains the token (%s)", s, form.name)
						}
					}
				})
			}
		}
	}
	// A token under 8 bytes is looked for only after the bearer scheme.
	for _, tt := range []struct{ message, want string }{
		{"invalid device", "invalid device"},
		{`refused Bearer dev`, "refused Bearer REDACTED"},
		{`refused \"Bearer dev\"`, `refused "Bearer REDACTED"`},
		{`refused Bearer%20dev`, "refused Bearer REDACTED"},
	} {
		t.Run("short token/"+tt.message, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: http.StatusBadRequest, body: `{"error":1,"message":"` + tt.message + `"}`})
			_, err := newTestClient(t, srv.URL, WithToken("dev")).CreatePlant(context.Background(), monstera)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Message != tt.want {
				t.Errorf("CreatePlant error = %v, want an *APIError with the message %q", err, tt.want)
			}
		})
	}
}

// TestErrorTextSaysMaybeCreated checks that every error that matches
// ErrMaybeCreated says so in its text, and no other does: a log line must
// not tell a different story from errors.Is.
func TestErrorTextSaysMaybeCreated(t *testing.T) {
	t.Parallel()
	const note = " (the plant may have been created)"
	duplicate := reply{status: http.StatusBadRequest, body: `{"error":5,"message":"plant 7 already exists"}`}
	tests := []struct {
		name  string
		reply []reply
		want  string // the whole error text
	}{
		{"duplicate ID after a dropped attempt", []reply{{drop: true}, duplicate},
			"plantstore: create plant: 400 Bad Request: plant 7 already exists (error 5) (after 2 attempts)" + note},
		{"duplicate ID at once", []reply{duplicate},
			"plantstore: create plant: 400 Bad Request: plant 7 already exists (error 5)"},
		{"500", []reply{{status: http.StatusInternalServerError, body: `{"error":1,"message":"boom"}`}},
			"plantstore: create plant: 500 Internal Server Error: boom (error 1)" + note},
		{"503 to every attempt", []reply{{status: http.StatusServiceUnavailable}},
			"plantstore: create plant: 503 Service Unavailable (after 3 attempts)" + note},
		{"dropped every time", []reply{{drop: true}}, ""}, // a transport error: text checked below
		{"429 to every attempt", []reply{{status: http.StatusTooManyRequests}},
			"plantstore: create plant: 429 Too Many Requests (after 3 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.reply...)
			_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
			if err == nil {
				t.Fatalf("CreatePlant(%+v) succeeded, want an error", monstera)
			}
			msg := err.Error()
			if tt.want != "" && msg != tt.want {
				t.Errorf("CreatePlant(%+v) error = %q, want %q", monstera, msg, tt.want)
			}
			if is, says := errors.Is(err, ErrMaybeCreated), strings.HasSuffix(msg, note); is != says {
				t.Errorf("CreatePlant(%+v) error %q: errors.Is(err, ErrMaybeCreated) = %v, but the text says it may have been created = %v", monstera, msg, is, says)
			}
		})
	}
}

// TestAPIErrorIsTheAnswerAlone checks where the facts of a failed call
// live: the *APIError holds the server's answer, and the *CallError around
// it the operation, the attempts and what errors.Is reports.
func TestAPIErrorIsTheAnswerAlone(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: http.StatusServiceUnavailable})
	_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("CreatePlant(%+v) error = %v, want an *APIError", monstera, err)
	}
	got := []any{apiErr.Error(), errors.Is(apiErr, ErrMaybeCreated), err.Error(), errors.Is(err, ErrMaybeCreated)}
	want := []any{"503 Service Unavailable", false,
		"plantstore: create plant: 503 Service Unavailable (after 3 attempts) (the plant may have been created)", true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("APIError text and Is, then CallError's (-want +got):\n%s", diff)
	}
}

// jsonEscapeAll writes every byte of s as a \u escape in format.
func jsonEscapeAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}
