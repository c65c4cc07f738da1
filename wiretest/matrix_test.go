package wiretest

import (
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"golang.org/x/net/http2"
)

// serverTLS is the servers' TLS configuration. TestMain makes the
// process trust its certificate through SSL_CERT_FILE, so that the
// client's default transport, which offers h2, is the one under test.
var serverTLS *tls.Config

func TestMain(m *testing.M) {
	ts := httptest.NewUnstartedServer(nil)
	ts.StartTLS()
	serverTLS = &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"h2"}}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	ts.Close()
	dir, err := os.MkdirTemp("", "wiretest")
	if err != nil {
		panic(err)
	}
	path := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(path, certPEM, 0o600); err != nil {
		panic(err)
	}
	os.Setenv("SSL_CERT_FILE", path)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A protocol is a way the client reaches a server: how to start the
// server, and the client options that make the client speak it.
type protocol struct {
	name  string
	start func(t *testing.T, plan ...fault) *wireServer
	opts  func() []plantstore.Option
	// h2 says whether the server speaks HTTP/2, and knows its faults. Its
	// server reads nothing but HTTP/2 frames, so that a request it read
	// proves the client spoke HTTP/2.
	h2 bool
}

// protocols are the protocols under test; h2c joins them where the Go
// version has it (h2c_go124_test.go).
var protocols = []protocol{
	{name: "h1", start: startH1, opts: func() []plantstore.Option { return nil }},
	{name: "h2", h2: true, start: startTLSH2, opts: func() []plantstore.Option { return nil }},
	// The transports a user may give through WithHTTPClient must read the
	// same: net/http's own, made to attempt HTTP/2, and x/net's.
	{name: "h2-forced", h2: true, start: startTLSH2, opts: func() []plantstore.Option {
		return []plantstore.Option{plantstore.WithHTTPClient(&http.Client{Transport: &http.Transport{ForceAttemptHTTP2: true}})}
	}},
	{name: "h2-xnet", h2: true, start: startTLSH2, opts: func() []plantstore.Option {
		return []plantstore.Option{plantstore.WithHTTPClient(&http.Client{Transport: &http2.Transport{}})}
	}},
}

// startTLSH2 starts an HTTP/2 server over TLS that applies plan.
func startTLSH2(t *testing.T, plan ...fault) *wireServer { return startH2(t, serverTLS, plan...) }

// A matrixCase is a fault plan and what the client must make of it.
type matrixCase struct {
	name       string
	plan       []fault
	maxRetries int
	h2Only     bool
	wantErr    bool
	// wantMaybe: the error matches ErrMaybeCreated.
	wantMaybe bool
	// h2Text is in the error's text over HTTP/2: the signal, in the
	// user's terms.
	h2Text string
	// wantAttempts is both the attempts the client counts and the
	// requests the server must have read.
	wantAttempts int
}

var matrix = []matrixCase{
	{name: "answered", plan: []fault{answer}, maxRetries: 2, wantAttempts: 1},

	// A request the server did not process (RFC 9113 §8.7): a failure
	// before sending, retried by the client as its own attempt.
	{name: "refused/no retries", plan: []fault{refuse, answer}, h2Only: true, wantErr: true, h2Text: "the server did not process the request (HTTP/2 REFUSED_STREAM)", wantAttempts: 1},
	{name: "refused/retried", plan: []fault{refuse, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},
	{name: "every stream refused", plan: []fault{refuse}, maxRetries: 3, h2Only: true, wantErr: true, h2Text: "(HTTP/2 REFUSED_STREAM) (after 4 attempts)", wantAttempts: 4},
	{name: "GOAWAY below/no retries", plan: []fault{goAwayBelow, answer}, h2Only: true, wantErr: true, h2Text: "the server did not process the request (HTTP/2 GOAWAY)", wantAttempts: 1},
	{name: "GOAWAY below/retried", plan: []fault{goAwayBelow, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},
	{name: "GOAWAY ENHANCE_YOUR_CALM below/no retries", plan: []fault{goAwayCalm, answer}, h2Only: true, wantErr: true, h2Text: "the server did not process the request (HTTP/2 GOAWAY)", wantAttempts: 1},
	{name: "GOAWAY ENHANCE_YOUR_CALM below/retried", plan: []fault{goAwayCalm, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},

	// A request the server may have processed.
	{name: "PROTOCOL_ERROR/no retries", plan: []fault{resetProtocol, answer}, h2Only: true, wantErr: true, h2Text: "the server reset the request (HTTP/2 PROTOCOL_ERROR) (the plant may have been created)", wantMaybe: true, wantAttempts: 1},
	{name: "PROTOCOL_ERROR/retried", plan: []fault{resetProtocol, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},
	{name: "INTERNAL_ERROR", plan: []fault{resetInternal, answer}, h2Only: true, wantErr: true, h2Text: "the server reset the request (HTTP/2 INTERNAL_ERROR)", wantMaybe: true, wantAttempts: 1},
	{name: "INTERNAL_ERROR/retried", plan: []fault{resetInternal, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},
	{name: "CANCEL", plan: []fault{resetCancel, answer}, h2Only: true, wantErr: true, h2Text: "the server reset the request (HTTP/2 CANCEL)", wantMaybe: true, wantAttempts: 1},
	{name: "GOAWAY at the stream", plan: []fault{goAwayAt, answer}, h2Only: true, wantErr: true, wantMaybe: true, wantAttempts: 1},
	// A server's words cannot make a processed request read as not processed.
	{name: "GOAWAY at the stream, debug data quoting net/http", plan: []fault{goAwayAtQuoting, answer}, h2Only: true, wantErr: true, wantMaybe: true, wantAttempts: 1},
	{name: "GOAWAY at the stream, debug data quoting net/http's cannot-retry", plan: []fault{goAwayAtQuotingRetry, answer}, h2Only: true, wantErr: true, wantMaybe: true, wantAttempts: 1},
	{name: "GOAWAY at the stream/retried", plan: []fault{goAwayAt, answer}, maxRetries: 2, h2Only: true, wantAttempts: 2},
	{name: "broken body", plan: []fault{brokenBody, answer}, maxRetries: 2, wantErr: true, wantMaybe: true, wantAttempts: 1},
	{name: "every attempt reset", plan: []fault{resetProtocol}, maxRetries: 2, h2Only: true, wantErr: true, h2Text: "(HTTP/2 PROTOCOL_ERROR) (after 3 attempts)", wantMaybe: true, wantAttempts: 3},

	// HTTP/1.1's counterpart of a reset after the body.
	{name: "closed after body/no retries", plan: []fault{closeAfterBody, answer}, wantErr: true, wantMaybe: true, wantAttempts: 1},
	{name: "closed after body/retried", plan: []fault{closeAfterBody, answer}, maxRetries: 2, wantAttempts: 2},
}

// TestFaultMatrix holds the client to its promise over every fault and
// protocol: the requests the server read are exactly the attempts the
// client counted, numbered 0, 1, … by X-Retry-Count under one request id,
// and the verdict is exact.
func TestFaultMatrix(t *testing.T) {
	for _, p := range protocols {
		for _, tc := range matrix {
			if tc.h2Only && !p.h2 {
				continue
			}
			plan := tc.plan
			if !p.h2 {
				plan = h1Plan(plan)
			}
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := p.start(t, plan...)
				var last plantstore.Attempt // the last attempt, as the hooks see it
				opts := append(p.opts(),
					plantstore.WithHooks(plantstore.Hooks{AttemptEnd: func(_ context.Context, _ *plantstore.CallInfo, a plantstore.Attempt) { last = a }}),
					plantstore.WithToken("t0ken"),
					plantstore.WithMaxRetries(tc.maxRetries),
					plantstore.WithRetryBackoff(time.Millisecond, time.Millisecond),
					plantstore.WithoutRetryBudget())
				c, err := plantstore.NewClient(srv.URL, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer c.CloseIdleConnections()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				var info plantstore.CallInfo
				_, err = c.CreatePlant(ctx, plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"}, plantstore.WithCallInfo(&info))
				if (err != nil) != tc.wantErr {
					t.Fatalf("CreatePlant: err = %v, want an error: %v", err, tc.wantErr)
				}
				if got := errors.Is(err, plantstore.ErrMaybeCreated); got != tc.wantMaybe {
					t.Errorf("errors.Is(%v, ErrMaybeCreated) = %v, want %v", err, got, tc.wantMaybe)
				}
				if last.Err != nil && last.StatusCode == 0 && last.MaybeSent != tc.wantMaybe {
					t.Errorf("the last attempt's MaybeSent = %v, want %v (err: %v)", last.MaybeSent, tc.wantMaybe, err)
				}
				if err != nil && strings.Contains(err.Error(), "GetBody") {
					t.Errorf("error speaks of net/http's internals: %v", err)
				}
				if p.h2 && !strings.Contains(fmt.Sprint(err), tc.h2Text) {
					t.Errorf("error %q does not say %q", err, tc.h2Text)
				}
				if info.Attempts != tc.wantAttempts {
					t.Errorf("client counted %d attempts, want %d (err: %v)", info.Attempts, tc.wantAttempts, err)
				}
				var want []received
				for i := range tc.wantAttempts {
					want = append(want, received{retryCount: strconv.Itoa(i), requestID: info.RequestID})
				}
				if diff := cmp.Diff(want, srv.received(), cmp.AllowUnexported(received{})); diff != "" {
					t.Errorf("requests the server read (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// h1Plan maps an HTTP/2 fault plan onto HTTP/1.1: a reset after the body
// is a connection closed without an answer.
func h1Plan(plan []fault) []fault {
	out := make([]fault, len(plan))
	for i, f := range plan {
		switch f {
		case answer, brokenBody, closeAfterBody:
			out[i] = f
		default:
			out[i] = closeAfterBody
		}
	}
	return out
}
