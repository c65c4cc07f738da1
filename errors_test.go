package plantstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestCreatePlantAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   reply
		want    *APIError
		wantMsg string
		is      []error
		isNot   []error
	}{
		{
			name:    "400 Error body",
			reply:   reply{status: 400, body: `{"error":3,"message":"name is required"}`},
			want:    &APIError{StatusCode: 400, Code: 3, Message: "name is required", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: name is required (error 3)",
			isNot:   []error{ErrUnauthorized, ErrServer, ErrMaybeCreated, ErrRateLimited},
		},
		{
			name:    "401",
			reply:   reply{status: 401, body: `{"error":16,"message":"bad token"}`},
			want:    &APIError{StatusCode: 401, Code: 16, Message: "bad token", Attempts: 1},
			wantMsg: "plantstore: create plant: 401 Unauthorized: bad token (error 16)",
			is:      []error{ErrUnauthorized},
			isNot:   []error{ErrForbidden, ErrMaybeCreated},
		},
		{
			name:    "403 empty body",
			reply:   reply{status: 403},
			want:    &APIError{StatusCode: 403, Attempts: 1},
			wantMsg: "plantstore: create plant: 403 Forbidden",
			is:      []error{ErrForbidden},
		},
		{
			name:    "404 HTML from a proxy",
			reply:   reply{status: 404, header: map[string]string{"Content-Type": "text/html"}, body: "<h1>Not Found</h1>\n"},
			want:    &APIError{StatusCode: 404, Message: "<h1>Not Found</h1>", Attempts: 1},
			wantMsg: "plantstore: create plant: 404 Not Found: <h1>Not Found</h1>",
			is:      []error{ErrNotFound},
		},
		{
			name: "problem+json",
			reply: reply{status: 422, header: map[string]string{"Content-Type": "application/problem+json"},
				body: `{"title":"Unprocessable","status":422}`},
			want:    &APIError{StatusCode: 422, Message: `{"title":"Unprocessable","status":422}`, Attempts: 1},
			wantMsg: `plantstore: create plant: 422 Unprocessable Entity: {"title":"Unprocessable","status":422}`,
		},
		{
			name:    "500 is not retried",
			reply:   reply{status: 500, body: `{"error":1,"message":"boom"}`},
			want:    &APIError{StatusCode: 500, Code: 1, Message: "boom", Attempts: 1},
			wantMsg: "plantstore: create plant: 500 Internal Server Error: boom (error 1)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "Error body missing message is quoted",
			reply:   reply{status: 400, body: `{"error":3}`},
			want:    &APIError{StatusCode: 400, Message: `{"error":3}`, Attempts: 1},
			wantMsg: `plantstore: create plant: 400 Bad Request: {"error":3}`,
		},
		{
			name:    "non-UTF-8 body is made valid",
			reply:   reply{status: 400, body: "bad \xff byte"},
			want:    &APIError{StatusCode: 400, Message: "bad \uFFFD byte", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: bad \uFFFD byte",
		},
		{
			name:    "control characters become spaces",
			reply:   reply{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: "<html>\n<body>bad gateway\nlevel=ERROR msg=forged</body>\r\n"},
			want:    &APIError{StatusCode: 502, Message: "<html> <body>bad gateway level=ERROR msg=forged</body>", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: <html> <body>bad gateway level=ERROR msg=forged</body> (after 3 attempts)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "long Error message is cut",
			reply:   reply{status: 400, body: `{"error":2,"message":"` + strings.Repeat("é", 600) + `"}`},
			want:    &APIError{StatusCode: 400, Code: 2, Message: strings.Repeat("é", messageBytes/2) + "…", Attempts: 1},
			wantMsg: "plantstore: create plant: 400 Bad Request: ééé",
		},
		{
			name:    "text after many blank lines is kept",
			reply:   reply{status: 502, body: strings.Repeat("\r\n", 300) + "<h1>Bad Gateway</h1>"},
			want:    &APIError{StatusCode: 502, Message: "<h1>Bad Gateway</h1>", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: <h1>Bad Gateway</h1> (after 3 attempts)",
			is:      []error{ErrServer, ErrMaybeCreated},
		},
		{
			name:    "oversized body is cut to a snippet",
			reply:   reply{status: 502, body: strings.Repeat("y", 2<<20)},
			want:    &APIError{StatusCode: 502, Message: strings.Repeat("y", snippetBytes) + "…", Attempts: 3},
			wantMsg: "plantstore: create plant: 502 Bad Gateway: yyy",
			is:      []error{ErrServer, ErrMaybeCreated},
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
			tt.want.RequestID = srv.lastRequestID(t)
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
// as a proxy's debug page might, does not reach the error.
func TestErrorsRedactEchoedToken(t *testing.T) {
	t.Parallel()
	// echo writes a reply that quotes the request's token, given raw and
	// JSON-escaped.
	type echo func(w http.ResponseWriter, token, jsonToken string)
	cases := []struct {
		name string
		echo echo
	}{
		{"Error message", func(w http.ResponseWriter, _, jsonToken string) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"token `+jsonToken+` is not allowed here"}`)
		}},
		{"HTML page", func(w http.ResponseWriter, token, _ string) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "<pre>Authorization: Bearer "+token+"</pre>")
		}},
		{"200 that is not a Plant", func(w http.ResponseWriter, token, _ string) {
			io.WriteString(w, "debug: Bearer "+token)
		}},
		{"redirect target", func(w http.ResponseWriter, token, _ string) {
			w.Header().Set("Location", "https://elsewhere.example/login?t="+url.QueryEscape(token)+"&raw="+token)
			w.WriteHeader(http.StatusFound)
		}},
	}
	tokens := []string{testToken, `quote"and\backslash`}
	for _, tc := range cases {
		for _, token := range tokens {
			for _, fromFunc := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/func=%v", tc.name, token, fromFunc), func(t *testing.T) {
					t.Parallel()
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
						quoted, _ := json.Marshal(got)
						tc.echo(w, got, string(quoted[1:len(quoted)-1]))
					}))
					t.Cleanup(srv.Close)
					opt := WithToken(token)
					if fromFunc {
						opt = WithTokenFunc(func(context.Context) (string, error) { return token, nil })
					}
					_, err := newTestClient(t, srv.URL, opt).CreatePlant(context.Background(), monstera)
					if err == nil {
						t.Fatal("CreatePlant succeeded, want an error")
					}
					if msg := err.Error(); strings.Contains(msg, token) || !strings.Contains(msg, "REDACTED") {
						t.Errorf("error %q: want the token replaced by REDACTED", msg)
					}
					var apiErr *APIError
					if errors.As(err, &apiErr) && strings.Contains(apiErr.Message, token) {
						t.Errorf("APIError.Message = %q, contains the token", apiErr.Message)
					}
				})
			}
		}
	}
	t.Run("short token left alone", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: http.StatusBadRequest, body: `{"error":1,"message":"invalid device"}`})
		_, err := newTestClient(t, srv.URL, WithToken("dev")).CreatePlant(context.Background(), monstera)
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != "invalid device" {
			t.Errorf("CreatePlant error = %v, want an *APIError with the message unchanged", err)
		}
	})
}
