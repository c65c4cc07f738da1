package plantstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/h2signal"
)

// TestH2Signal reads the HTTP/2 errors as net/http words them; wiretest
// holds the words to every Go version with a frame-level server.
func TestH2Signal(t *testing.T) {
	t.Parallel()
	noResend := func(quoted string) error {
		return fmt.Errorf("http2: Transport: cannot retry err [%v] after Request.Body was written; define Request.GetBody to avoid this error", quoted)
	}
	tests := []struct {
		name string
		err  error
		want string // the error's text; "" for err unchanged
	}{
		{"refused, not re-sent", noResend("stream error: stream ID 3; REFUSED_STREAM; received from peer"),
			"the server did not process the request (HTTP/2 REFUSED_STREAM)"},
		{"GOAWAY below, not re-sent", noResend("http2: Transport received Server's graceful shutdown GOAWAY"),
			"the server did not process the request (HTTP/2 GOAWAY)"},
		{"GOAWAY below", errors.New("http2: Transport received Server's graceful shutdown GOAWAY"),
			"the server did not process the request (HTTP/2 GOAWAY)"},
		{"PROTOCOL_ERROR from the server, not re-sent", noResend("stream error: stream ID 1; PROTOCOL_ERROR; received from peer"),
			"the server reset the request (HTTP/2 PROTOCOL_ERROR)"},
		{"the client's own PROTOCOL_ERROR", noResend("stream error: stream ID 1; PROTOCOL_ERROR"), ""},
		{"a code from the future", noResend("stream error: stream ID 1; unknown error code 0x77; received from peer"), ""},
		{"a stream error from the server", h2signal.StreamError{StreamID: 1, Code: 0x8, Cause: errors.New("received from peer")},
			"the server reset the request (HTTP/2 CANCEL)"},
		{"a refusal from the server", h2signal.StreamError{StreamID: 1, Code: 0x7, Cause: errors.New("received from peer")},
			"the server did not process the request (HTTP/2 REFUSED_STREAM)"},
		{"a code from the future, from the server", h2signal.StreamError{StreamID: 1, Code: 0x77, Cause: errors.New("received from peer")},
			"the server reset the request (HTTP/2 error code 0x77)"},
		{"the client's own stream error", h2signal.StreamError{StreamID: 1, Code: 0x1}, ""},
		// x/net's transport's stream error, which has no As method.
		{"a stream error's text alone", errors.New("stream error: stream ID 1; REFUSED_STREAM; received from peer"),
			"the server did not process the request (HTTP/2 REFUSED_STREAM)"},
		{"a stream error's text and more", errors.New("stream error: stream ID 1; REFUSED_STREAM; received from peer; and more"), ""},
		{"the GOAWAY text and more", errors.New("http2: Transport received Server's graceful shutdown GOAWAY; and more"), ""},
		{"GOAWAY with an error code, above it", errors.New("http2: Transport received GOAWAY from server ErrCode:ENHANCE_YOUR_CALM"),
			"the server did not process the request (HTTP/2 GOAWAY)"},
		{"the client's connection error", errors.New("connection error: PROTOCOL_ERROR"), "connection error: PROTOCOL_ERROR"},
		{"the client's connection error, not re-sent", noResend("connection error: COMPRESSION_ERROR"),
			noResend("connection error: COMPRESSION_ERROR").Error()},
		// A GOAWAY's debug data, which the server chooses, is quoted in the
		// error of a stream at or below it: it must not decide anything.
		{"GOAWAY debug data quoting a connection error", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug="connection error: PROTOCOL_ERROR"`), ""},
		{"GOAWAY debug data quoting the error-code GOAWAY", errors.New(`http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=NO_ERROR, debug="http2: Transport received GOAWAY from server ErrCode:NO_ERROR"`), ""},
		{"not HTTP/2", io.ErrUnexpectedEOF, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h2signal.Of(tt.err)
			want := tt.want
			if want == "" {
				want = tt.err.Error()
			}
			if got.Error() != want {
				t.Errorf("h2signal.Of(%q) reads %q, want %q", tt.err, got, want)
			}
			// The client's connection errors are final; nothing else is.
			wantFinal := strings.Contains(tt.name, "the client's connection error")
			if final := !retryableError(got); final != wantFinal {
				t.Errorf("h2signal.Of(%q) is final: %v, want %v", tt.err, final, wantFinal)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("h2signal.Of(%q) does not wrap it", tt.err)
			}
		})
	}
}

// TestH2ResetByStdlibServer resets a create's stream from net/http's own
// HTTP/2 server (a handler's http.ErrAbortHandler is RST_STREAM
// INTERNAL_ERROR), so that net/http's stream error is read through its
// As method on whatever Go runs the test: maybe created, and each request
// the server read is an attempt the call counted.
func TestH2ResetByStdlibServer(t *testing.T) {
	t.Parallel()
	var (
		mu          sync.Mutex
		retryCounts []string
	)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		retryCounts = append(retryCounts, r.Proto+" "+r.Header.Get(headerRetryCount))
		mu.Unlock()
		panic(http.ErrAbortHandler)
	}))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = nil
	srv.StartTLS()
	t.Cleanup(srv.Close)

	var info CallInfo
	_, err := newTestClient(t, srv.URL, WithHTTPClient(srv.Client()), WithMaxRetries(1)).
		CreatePlant(context.Background(), monstera, WithCallInfo(&info))
	if !errors.Is(err, ErrMaybeCreated) || !strings.Contains(fmt.Sprint(err), "the server reset the request (HTTP/2 INTERNAL_ERROR)") {
		t.Errorf("CreatePlant error: %v, want a reset that may have created the plant", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if info.Attempts != 2 {
		t.Errorf("%d attempts counted, want 2", info.Attempts)
	}
	if diff := cmp.Diff([]string{"HTTP/2.0 0", "HTTP/2.0 1"}, retryCounts); diff != "" {
		t.Errorf("protocol and X-Retry-Count of the requests the server read (-want +got):\n%s", diff)
	}
}

// TestTransportNeverSeesGetBody checks what takes re-sends away from the
// transport: it never gets Request.GetBody, yet each retry sends the
// whole body again.
func TestTransportNeverSeesGetBody(t *testing.T) {
	t.Parallel()
	var bodies []string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.GetBody != nil {
			t.Error("the transport got the request's GetBody")
		}
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		return nil, io.ErrUnexpectedEOF
	})
	_, err := newTestClient(t, "http://127.0.0.1:1", WithHTTPClient(&http.Client{Transport: rt}), WithMaxRetries(2)).
		CreatePlant(context.Background(), monstera)
	if err == nil {
		t.Fatal("CreatePlant succeeded over a failing transport")
	}
	body := `{"id":7,"name":"Monstera","tag":"indoor"}`
	if diff := cmp.Diff([]string{body, body, body}, bodies); diff != "" {
		t.Errorf("bodies the transport read (-want +got):\n%s", diff)
	}
}
