package plantstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// chainLeaks walks every error reachable from err by Unwrap() error and
// Unwrap() []error, err included, and returns a line for each one whose
// text, or whose formatting with %v, %+v or %#v, holds one of tokens in a
// form wire.Redact knows (as written, JSON-escaped, percent-encoded,
// HTML-escaped): what an error reporter that records every cause, or a
// wrapping library's %+v, would store.
func chainLeaks(err error, tokens []string) []string {
	var leaks []string
	var walk func(e error, path string)
	walk = func(e error, path string) {
		path += fmt.Sprintf("%T", e)
		for _, verb := range []string{"Error()", "%v", "%+v", "%#v"} {
			s := e.Error()
			if verb != "Error()" {
				s = fmt.Sprintf(verb, e)
			}
			if wire.Redact(s, tokens) != s {
				leaks = append(leaks, fmt.Sprintf("%s, %s: %s", path, verb, s))
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() error }:
			if c := u.Unwrap(); c != nil {
				walk(c, path+" → ")
			}
		case interface{ Unwrap() []error }:
			for i, c := range u.Unwrap() {
				if c != nil {
					walk(c, fmt.Sprintf("%s →[%d] ", path, i))
				}
			}
		}
	}
	if err != nil {
		walk(err, "")
	}
	return leaks
}

func TestChainLeaksFindsEveryForm(t *testing.T) {
	t.Parallel()
	tokens := []string{testToken}
	for _, err := range []error{
		errors.New("x " + testToken),
		fmt.Errorf("clean: %w", errors.New(url.QueryEscape(`"`)+jsonEscapeAll(testToken, `\u%04x`))),
		errors.Join(errors.New("clean"), &url.Error{Op: "Get", URL: "http://h/?t=" + testToken, Err: errors.New("x")}),
		&redirectError{err: fmt.Errorf("%w", &hiddenError{testToken})},
	} {
		if leaks := chainLeaks(err, tokens); len(leaks) == 0 {
			t.Errorf("chainLeaks(%v) found nothing, want the token", err)
		}
	}
	if leaks := chainLeaks(fmt.Errorf("a: %w", errors.New("REDACTED")), tokens); len(leaks) != 0 {
		t.Errorf("chainLeaks of a clean chain = %q, want none", leaks)
	}
}

// hiddenError holds text that its Error does not show, but %#v does.
type hiddenError struct{ text string }

func (e *hiddenError) Error() string { return "hidden" }

// TestNoErrorInTheChainHoldsTheToken checks CallError's promise on every
// error a call returns or its hooks see, and on every error below it: on
// each failure path that can carry the server's text or a URL it chose,
// with the token written by the server as written, JSON-escaped or
// percent-encoded, no error reachable by Unwrap holds it, and errors.Is
// and errors.As still find what the client promises (context errors,
// net.Error, *url.Error, *APIError).
func TestNoErrorInTheChainHoldsTheToken(t *testing.T) {
	t.Parallel()
	forms := []struct {
		name   string
		encode func(string) string
	}{
		{"raw", func(s string) string { return s }},
		{"percent", url.QueryEscape},
		{"JSON", func(s string) string { return jsonEscapeAll(s, `\u%04x`) }},
	}
	closed := closedAddr(t)
	// A path is a failure a server can cause: serve answers the call's
	// first request (and any that follow) with the token as encoded, and
	// check says what errors.Is and errors.As must still find.
	type path struct {
		name     string
		forms    []string // the forms this path can carry; all when nil
		serve    func(w http.ResponseWriter, r *http.Request, encoded string, call callControl)
		opts     []Option
		callOpts []CallOption
		check    func(t *testing.T, err error)
	}
	isURLError := func(t *testing.T, err error) {
		t.Helper()
		var urlErr *url.Error
		var netErr net.Error
		if !errors.As(err, &urlErr) || !errors.As(err, &netErr) {
			t.Errorf("error %v: errors.As finds no *url.Error or net.Error", err)
		}
	}
	isAPIError := func(status int) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			t.Helper()
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Errorf("error %v: want an *APIError with status %d", err, status)
			}
		}
	}
	redirectThen := func(then func(w http.ResponseWriter, r *http.Request, call callControl)) func(http.ResponseWriter, *http.Request, string, callControl) {
		return func(w http.ResponseWriter, r *http.Request, encoded string, call callControl) {
			if r.URL.RawQuery == "" {
				w.Header().Set("Location", "/plants?t="+encoded)
				w.WriteHeader(http.StatusTemporaryRedirect)
				return
			}
			then(w, r, call)
		}
	}
	paths := []path{
		{
			name:  "Location net/http cannot parse",
			forms: []string{"raw", "percent"},
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				w.Header().Set("Location", "http://[bad host/"+encoded)
				w.WriteHeader(http.StatusTemporaryRedirect)
			},
			check: isURLError,
		},
		{
			name:  "redirect loop through a URL holding it",
			forms: []string{"raw", "percent"},
			serve: func(w http.ResponseWriter, r *http.Request, encoded string, _ callControl) {
				http.Redirect(w, r, "/plants?t="+encoded, http.StatusTemporaryRedirect)
			},
			check: isURLError,
		},
		{
			name:  "redirect, then the connection drops",
			forms: []string{"raw", "percent"},
			serve: redirectThen(func(http.ResponseWriter, *http.Request, callControl) {
				panic(http.ErrAbortHandler)
			}),
			check: isURLError,
		},
		{
			name:  "redirect to a closed port",
			forms: []string{"raw", "percent"},
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				w.Header().Set("Location", "http://"+closed+"/plants?t="+encoded)
				w.WriteHeader(http.StatusTemporaryRedirect)
			},
			check: func(t *testing.T, err error) {
				isURLError(t, err)
				var opErr *net.OpError
				if !errors.As(err, &opErr) || opErr.Op != "dial" {
					t.Errorf("error %v: errors.As finds no dial *net.OpError", err)
				}
			},
		},
		{
			name:  "redirect refused by the caller's CheckRedirect, which quotes the URL",
			forms: []string{"raw", "percent"},
			serve: redirectThen(func(http.ResponseWriter, *http.Request, callControl) {}),
			opts: []Option{WithHTTPClient(&http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
				return fmt.Errorf("refusing %s", req.URL)
			}})},
			check: isURLError,
		},
		{
			name:  "redirect, then the attempt times out",
			forms: []string{"raw", "percent"},
			serve: redirectThen(func(_ http.ResponseWriter, _ *http.Request, call callControl) {
				<-call.done
			}),
			callOpts: []CallOption{WithAttemptTimeout(50 * time.Millisecond)},
			check: func(t *testing.T, err error) {
				isURLError(t, err)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error %v: want one that matches context.DeadlineExceeded", err)
				}
			},
		},
		{
			name:  "redirect, then the call's context is cancelled",
			forms: []string{"raw", "percent"},
			serve: redirectThen(func(_ http.ResponseWriter, _ *http.Request, call callControl) {
				call.cancel()
				<-call.done
			}),
			check: func(t *testing.T, err error) {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error %v: want one that matches context.Canceled", err)
				}
			},
		},
		{
			name: "malformed status line",
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				conn, buf, err := http.NewResponseController(w).Hijack()
				if err != nil {
					panic(err)
				}
				defer conn.Close()
				buf.WriteString(encoded + "\r\n\r\n")
				buf.Flush()
			},
			check: isURLError,
		},
		{
			name: "4xx Error body",
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":1,"message":"token %s"}`, strings.ReplaceAll(encoded, `"`, `\"`))
			},
			check: isAPIError(http.StatusBadRequest),
		},
		{
			name: "5xx page",
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, "<pre>Authorization: Bearer %s</pre>", encoded)
			},
			check: isAPIError(http.StatusInternalServerError),
		},
		{
			name: "request id echoing it",
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				w.Header().Set("X-Request-Id", encoded)
				w.Header().Set("X-Debug", "Bearer "+encoded)
				w.WriteHeader(http.StatusBadRequest)
			},
			check: isAPIError(http.StatusBadRequest),
		},
		{
			name: "200 that is not a Plant",
			serve: func(w http.ResponseWriter, _ *http.Request, encoded string, _ callControl) {
				fmt.Fprintf(w, "debug: Bearer %s", encoded)
			},
		},
	}
	tokens := []string{testToken, `tok+en&"q"-1234567`}
	for _, p := range paths {
		for _, form := range forms {
			if p.forms != nil && !strings.Contains(" "+strings.Join(p.forms, " ")+" ", " "+form.name+" ") {
				continue
			}
			for _, token := range tokens {
				t.Run(fmt.Sprintf("%s/%s/%s", p.name, form.name, token), func(t *testing.T) {
					t.Parallel()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					call := callControl{cancel: cancel, done: make(chan struct{})}
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						p.serve(w, r, form.encode(token), call)
					}))
					t.Cleanup(srv.Close)
					var mu sync.Mutex
					var seen []error
					hooks := WithHooks(Hooks{
						AttemptEnd: func(_ context.Context, _ *CallInfo, a Attempt) {
							mu.Lock()
							defer mu.Unlock()
							seen = append(seen, a.Err)
						},
						CallEnd: func(_ context.Context, _ *CallInfo, err error) {
							mu.Lock()
							defer mu.Unlock()
							seen = append(seen, err)
						},
					})
					opts := append([]Option{WithToken(token), WithMaxRetries(0), hooks}, p.opts...)
					_, err := newTestClient(t, srv.URL, opts...).CreatePlant(ctx, monstera, p.callOpts...)
					close(call.done)
					if err == nil {
						t.Fatal("CreatePlant succeeded, want an error")
					}
					mu.Lock()
					defer mu.Unlock()
					for i, e := range append([]error{err}, seen...) {
						for _, leak := range chainLeaks(e, []string{token}) {
							t.Errorf("error %d (0 is the one returned, then the hooks'): the token shows at %s", i, leak)
						}
					}
					if p.check != nil {
						p.check(t, err)
					}
				})
			}
		}
	}
}

// callControl is what a path's server may do to the call it answers:
// cancel its context, and wait until it is done.
type callControl struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the call has returned
}

// closedAddr returns the address of a TCP port on the loopback interface
// that nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// timeoutError is a net.Error that timed out, with text of its own.
type timeoutError struct{ text string }

func (e *timeoutError) Error() string   { return e.text }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

// TestRedactChain checks that the stand-ins redactChain puts in place of
// errors that held the token keep what errors.Is and errors.As promise:
// the causes they wrapped, one or several, the original's own Is, a
// net.Error's Timeout; and that a chain without the token comes back as it
// was.
func TestRedactChain(t *testing.T) {
	t.Parallel()
	tokens := []string{testToken}
	leak := errors.New("echo " + testToken)
	tests := []struct {
		name  string
		err   error
		check func(error) bool
	}{
		{"wraps a context error", fmt.Errorf("at %s: %w", testToken, context.Canceled),
			func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"several causes", errors.Join(leak, context.DeadlineExceeded),
			func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"several causes through %w", fmt.Errorf("%w, %w", context.Canceled, leak),
			func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"its own Is", &attemptTimeoutError{d: time.Second, err: leak},
			func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"a net.Error", fmt.Errorf("x: %w", &timeoutError{"read " + testToken}),
			func(err error) bool { var ne net.Error; return errors.As(err, &ne) && ne.Timeout() }},
		{"a *url.Error", &url.Error{Op: "Get", URL: "http://h/" + testToken, Err: &timeoutError{"t"}},
			func(err error) bool {
				var ue *url.Error
				return errors.As(err, &ue) && ue.Timeout() && ue.URL == "http://h/REDACTED"
			}},
		{"an *APIError below a leak", fmt.Errorf("%s: %w", testToken, &APIError{StatusCode: 400}),
			func(err error) bool { var ae *APIError; return errors.As(err, &ae) && ae.StatusCode == 400 }},
		{"text only %#v shows", fmt.Errorf("x: %w", &hiddenError{testToken}),
			func(err error) bool { return errors.Unwrap(err).Error() == "hidden" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(chainLeaks(tt.err, tokens)) == 0 {
				t.Fatalf("%v holds no token: the case checks nothing", tt.err)
			}
			got := redactChain(tt.err, tokens)
			for _, l := range chainLeaks(got, tokens) {
				t.Errorf("the token shows at %s", l)
			}
			if !tt.check(got) {
				t.Errorf("redactChain(%v) = %#v, lost what errors.Is or errors.As found", tt.err, got)
			}
			if want := wire.Redact(tt.err.Error(), tokens); got.Error() != want {
				t.Errorf("redactChain(%v) reads %q, want %q", tt.err, got.Error(), want)
			}
		})
	}
	clean := fmt.Errorf("x: %w", &url.Error{Op: "Get", URL: "http://h/", Err: context.Canceled})
	if got := redactChain(clean, tokens); got != clean {
		t.Errorf("redactChain(%v) = %#v, want the same error", clean, got)
	}
}

// TestRedactHeader checks CallInfo.Header's promise: a token of the
// call's in a header's name or value reads REDACTED, in a copy. A name
// reaches it canonical, as net/http hands names over, so the token there
// may have changed case ("X-Echo-S3cr3t-T0ken").
func TestRedactHeader(t *testing.T) {
	t.Parallel()
	const nameToken = "Echoed-Tok3n"
	echoed := http.CanonicalHeaderKey("X-Echo-" + testToken)
	h := http.Header{
		"Date":           {"today"},
		"X-Debug":        {"a", "Bearer " + url.QueryEscape(testToken)},
		"X-" + nameToken: {"b"},
		echoed:           {"c"},
	}
	want := http.Header{"Date": {"today"}, "X-Debug": {"a", "Bearer REDACTED"}, "X-REDACTED": {"b"}, "x-echo-REDACTED": {"c"}}
	if diff := cmp.Diff(want, redactHeader(h, []string{testToken, nameToken})); diff != "" {
		t.Errorf("redactHeader (-want +got):\n%s", diff)
	}
	if h["X-Debug"][1] == "Bearer REDACTED" || h["X-"+nameToken] == nil || h[echoed] == nil {
		t.Error("redactHeader changed the header it was given")
	}
}
