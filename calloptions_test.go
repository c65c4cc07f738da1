package plantstore

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestWithHeader(t *testing.T) {
	t.Parallel()
	srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
	_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera,
		WithHeader("x-tenant", "a"), WithHeader("X-Flags", "x\ty"), WithHeader("X-TENANT", "b"))
	if err != nil {
		t.Fatalf("CreatePlant(%+v, WithHeader…) error: %v", monstera, err)
	}
	for i, r := range srv.requests() {
		got := map[string][]string{"X-Tenant": r.header.Values("X-Tenant"), "X-Flags": r.header.Values("X-Flags")}
		want := map[string][]string{"X-Tenant": {"b"}, "X-Flags": {"x\ty"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("attempt %d headers mismatch (-want +got):\n%s", i, diff)
		}
	}
}

func TestInvalidCallOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     CallOption
		wantErr string
	}{
		{"nil option", nil, "plantstore: nil call option"},
		{"Authorization", WithHeader("authorization", "Bearer x"), "plantstore: header Authorization is set by the client: use WithToken or WithTokenFunc"},
		{"Content-Type", WithHeader("Content-Type", "text/plain"), "plantstore: header Content-Type is set by the client"},
		{"Accept", WithHeader("Accept", "*/*"), "plantstore: header Accept is set by the client"},
		{"User-Agent", WithHeader("User-Agent", "x"), "plantstore: header User-Agent is set by the client: use WithUserAgent"},
		{"X-Request-Id", WithHeader("x-request-id", "x"), "plantstore: header X-Request-Id is set by the client: use WithRequestID"},
		{"X-Retry-Count", WithHeader("X-Retry-Count", "9"), "plantstore: header X-Retry-Count is set by the client"},
		{"Host", WithHeader("Host", "evil.example"), "plantstore: header Host is set by the client"},
		{"Transfer-Encoding", WithHeader("Transfer-Encoding", "chunked"), "plantstore: header Transfer-Encoding is set by the client"},
		{"empty name", WithHeader("", "x"), `plantstore: header name "" is not a valid token`},
		{"name with a colon", WithHeader("X-A:b", "x"), `plantstore: header name "X-A:b" is not a valid token`},
		{"value with a newline", WithHeader("X-A", "x\r\nX-B: y"), "plantstore: header X-A: value has a control character at byte 1"},
		{"value too long", WithHeader("X-A", strings.Repeat("v", 4097)), "plantstore: header X-A: value is longer than 4096 bytes"},
		{"negative retries", WithCallRetries(-1), "plantstore: call retries must not be negative, got -1"},
		{"negative attempt timeout", WithAttemptTimeout(-time.Second), "plantstore: attempt timeout must not be negative, got -1s"},
		{"empty request id", WithRequestID(""), "plantstore: request id must not be empty"},
		{"request id with a space", WithRequestID("a b"), "plantstore: request id has an invalid character (want visible ASCII)"},
		{"nil call info", WithCallInfo(nil), "plantstore: call info destination must not be nil"},
	}
	srv := newStubServer(t)
	c := newTestClient(t, srv.URL)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.CreatePlant(context.Background(), monstera, tt.opt)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("CreatePlant with %s: error = %v, want %q", tt.name, err, tt.wantErr)
			}
			var callErr *CallError
			if !errors.As(err, &callErr) || callErr.Call.Attempts != 0 {
				t.Fatalf("CreatePlant with %s: error = %#v, want a *CallError with no attempts", tt.name, err)
			}
			// CallError.Call documents the call, but no request id: none
			// was chosen before the option was refused.
			if callErr.Call.Operation != "CreatePlant" || callErr.Call.RequestID != "" {
				t.Errorf("CreatePlant with %s: CallError.Call = %+v, want Operation CreatePlant and no RequestID", tt.name, callErr.Call)
			}
		})
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("server saw %d requests, want none for invalid options", n)
	}
}

func TestWithCallRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		clientMax    int
		opts         []CallOption
		wantAttempts int
	}{
		{"client default", 2, nil, 3},
		{"zero for this call", 2, []CallOption{WithCallRetries(0)}, 1},
		{"more than the client allows", 1, []CallOption{WithCallRetries(4)}, 5},
		{"last one wins", 2, []CallOption{WithCallRetries(0), WithCallRetries(1)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, reply{status: 503})
			c := newTestClient(t, srv.URL, WithMaxRetries(tt.clientMax), WithRetryBackoff(0, 0))
			_, err := c.CreatePlant(context.Background(), monstera, tt.opts...)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || attemptsOf(err) != tt.wantAttempts {
				t.Fatalf("CreatePlant error = %v, want a 503 after %d attempts", err, tt.wantAttempts)
			}
			if n := len(srv.requests()); n != tt.wantAttempts {
				t.Errorf("server saw %d requests, want %d", n, tt.wantAttempts)
			}
		})
	}
}

func TestWithAttemptTimeout(t *testing.T) {
	t.Parallel()
	t.Run("a stalled attempt is retried", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{stall: true}, reply{status: 200, body: `{"name":"Monstera"}`})
		var info CallInfo
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera,
			WithAttemptTimeout(50*time.Millisecond), WithCallInfo(&info))
		if err != nil {
			t.Fatalf("CreatePlant(%+v, WithAttemptTimeout) error: %v", monstera, err)
		}
		if info.Attempts != 2 {
			t.Errorf("CallInfo.Attempts = %d, want 2", info.Attempts)
		}
	})
	t.Run("every attempt stalls", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{stall: true})
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera,
			WithAttemptTimeout(20*time.Millisecond), WithCallRetries(1))
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrMaybeCreated) {
			t.Errorf("CreatePlant error = %v, want it to match context.DeadlineExceeded and ErrMaybeCreated", err)
		}
		if want := "attempt timed out after 20ms"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CreatePlant error = %v, want it to say %q", err, want)
		}
	})
	t.Run("redirects share the attempt's time", func(t *testing.T) {
		t.Parallel()
		// Every hop of a redirect chain runs under the attempt's one
		// deadline, which a timeout per round trip would move on at each.
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/plants":
				http.Redirect(w, r, "/plants/1", http.StatusTemporaryRedirect)
			case "/plants/1":
				http.Redirect(w, r, "/plants/2", http.StatusTemporaryRedirect)
			default:
				io.WriteString(w, `{"name":"Monstera"}`)
			}
		}))
		t.Cleanup(srv.Close)
		var deadlines []time.Time // one round trip at a time: a redirect waits for the last
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			dl, _ := r.Context().Deadline()
			deadlines = append(deadlines, dl)
			return srv.Client().Transport.RoundTrip(r)
		})}
		if _, err := newTestClient(t, srv.URL, WithHTTPClient(hc)).CreatePlant(context.Background(), monstera,
			WithAttemptTimeout(time.Hour), WithCallRetries(0)); err != nil {
			t.Fatalf("CreatePlant: %v", err)
		}
		if len(deadlines) != 3 || deadlines[0].IsZero() || !deadlines[1].Equal(deadlines[0]) || !deadlines[2].Equal(deadlines[0]) {
			t.Errorf("deadlines of the three hops = %v, want one deadline, the attempt's, for all three", deadlines)
		}
	})
	t.Run("the body read counts", func(t *testing.T) {
		t.Parallel()
		srv := newStalledBodyServer(t, nil)
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera, WithAttemptTimeout(30*time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "attempt timed out") {
			t.Errorf("CreatePlant error = %v, want the attempt timeout while reading the body", err)
		}
	})
}

func TestWithCallInfo(t *testing.T) {
	t.Parallel()
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 503}, reply{status: 201, body: `{"name":"Monstera"}`, header: map[string]string{"X-Served-By": "a"}})
		var info CallInfo
		if _, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera, WithCallInfo(&info)); err != nil {
			t.Fatalf("CreatePlant error: %v", err)
		}
		want := CallInfo{Operation: "CreatePlant", Method: "POST", URL: srv.URL + "/plants", RequestID: srv.lastRequestID(t), Attempts: 2, StatusCode: 201}
		if diff := cmp.Diff(want, info, cmpopts.IgnoreFields(CallInfo{}, "Header", "Duration")); diff != "" {
			t.Errorf("CallInfo mismatch (-want +got):\n%s", diff)
		}
		if got := info.Header.Get("X-Served-By"); got != "a" {
			t.Errorf("CallInfo.Header X-Served-By = %q, want %q", got, "a")
		}
		if info.Duration <= 0 {
			t.Errorf("CallInfo.Duration = %v, want > 0", info.Duration)
		}
	})
	t.Run("failure with the server's id", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 400, header: map[string]string{"X-Request-Id": "srv-9"}})
		var info CallInfo
		if _, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera, WithCallInfo(&info)); err == nil {
			t.Fatal("CreatePlant error = nil, want the 400")
		}
		if info.RequestID != srv.lastRequestID(t) || info.ServerRequestID != "srv-9" || info.StatusCode != 400 || info.Attempts != 1 {
			t.Errorf("CallInfo = %+v, want RequestID %s (sent), ServerRequestID srv-9, StatusCode 400, Attempts 1", info, srv.lastRequestID(t))
		}
	})
	t.Run("transport failure", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{drop: true})
		var info CallInfo
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera, WithCallInfo(&info), WithRequestID("mine"))
		if err == nil {
			t.Fatal("CreatePlant error = nil, want the dropped connection")
		}
		if info.RequestID != "mine" || info.ServerRequestID != "" || info.StatusCode != 0 || info.Header != nil || info.Attempts != 3 {
			t.Errorf("CallInfo = %+v, want RequestID mine, no ServerRequestID, status or header, Attempts 3", info)
		}
	})
}
