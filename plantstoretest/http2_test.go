package plantstoretest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	h2cpkg "github.com/plantstore/plantstore-go/internal/h2c"
)

// wireProtocol is a protocol NewServer serves.
type wireProtocol struct {
	name  string
	opts  []Option
	proto string // the Proto of every response the Server's clients get
	h2c   bool
}

// wireProtocols are the protocols NewServer serves: HTTP/1.1 by default,
// and with WithHTTP2, h2 over TLS and h2c in clear text.
var wireProtocols = []wireProtocol{
	{"HTTP/1.1", nil, "HTTP/1.1", false},
	{"h2", []Option{WithTLS(), WithHTTP2()}, "HTTP/2.0", false},
	{"h2c", []Option{WithHTTP2()}, "HTTP/2.0", true},
}

// onEachProtocol runs f in a parallel subtest for each of wireProtocols,
// named after it and suffix, with a new Server that speaks it, made with
// opts too. It skips h2c on a Go that has none (before 1.24).
func onEachProtocol(t *testing.T, suffix string, opts []Option, f func(t *testing.T, p wireProtocol, s *Server)) {
	t.Helper()
	for _, p := range wireProtocols {
		t.Run(strings.TrimSpace(p.name+" "+suffix), func(t *testing.T) {
			t.Parallel()
			if p.h2c && !h2cpkg.Supported {
				t.Skip("h2c needs Go 1.24 or later (http.Protocols)")
			}
			f(t, p, NewServer(t, append(append([]Option{}, p.opts...), opts...)...))
		})
	}
}

// protoRecorder is a transport that records the Proto of each response.
type protoRecorder struct {
	rt     http.RoundTripper
	mu     sync.Mutex
	protos []string
}

func (p *protoRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.rt.RoundTrip(req)
	if err == nil {
		p.mu.Lock()
		p.protos = append(p.protos, resp.Proto)
		p.mu.Unlock()
	}
	return resp, err
}

// TestHTTP2JournalsEveryRequest checks that WithHTTP2 serves HTTP/2, over
// TLS and as h2c, on loopback and on the in-memory network: the Server's
// clients get every answer over HTTP/2, concurrent creates multiplexed on
// its connections all reach the fake and the journal, and a client that
// speaks only HTTP/1.1 is still served, on the same address.
func TestHTTP2JournalsEveryRequest(t *testing.T) {
	t.Parallel()
	const n = 20
	for _, network := range []struct {
		name string
		opts []Option
	}{{"loopback", nil}, {"in memory", []Option{WithInMemoryNetwork()}}} {
		onEachProtocol(t, network.name, network.opts, func(t *testing.T, p wireProtocol, s *Server) {
			rec := &protoRecorder{rt: s.HTTPClient().Transport}
			c := s.Client(plantstore.WithHTTPClient(&http.Client{Transport: rec}))
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for i := 1; i <= n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i), Name: "Fern"}); err != nil {
						errs <- fmt.Errorf("create %d: %w", i, err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			want := make([]string, n)
			for i := range want {
				want[i] = p.proto
			}
			if diff := cmp.Diff(want, rec.protos); diff != "" {
				t.Errorf("responses' Proto (-want +got):\n%s", diff)
			}
			reqs := s.Requests()
			if len(reqs) != n || len(s.Plants()) != n {
				t.Fatalf("%d requests journaled, %d plants stored, want %d of each", len(reqs), len(s.Plants()), n)
			}
			for _, r := range reqs {
				if r.Outcome != OutcomeSent || r.Status != http.StatusOK || r.Invalid != nil || r.RetryCount != 0 || r.Proto != p.proto {
					t.Errorf("request %d: outcome %s, status %d, invalid %v, retry count %d, proto %s; want sent, 200, valid, 0, %s",
						r.Seq, r.Outcome, r.Status, r.Invalid, r.RetryCount, r.Proto, p.proto)
				}
			}

			h1 := s.HTTPClient().Transport.(*http.Transport).Clone()
			forceHTTP1(h1)
			resp, err := (&http.Client{Transport: h1}).Get(s.URL + "/plants")
			if err != nil {
				t.Fatalf("GET over HTTP/1.1: %v", err)
			}
			resp.Body.Close()
			h1.CloseIdleConnections()
			if resp.Proto != "HTTP/1.1" || resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET over HTTP/1.1: %s %d, want HTTP/1.1 405", resp.Proto, resp.StatusCode)
			}
			if all := s.Requests(); all[len(all)-1].Proto != "HTTP/1.1" {
				t.Errorf("the GET over HTTP/1.1 is journaled as %s, want HTTP/1.1", all[len(all)-1].Proto)
			}
		})
	}
}

// postOn sends a create to s over client, as plantstore does (a body that
// can be sent again), and reports whether it went on a connection used
// before.
func postOn(t *testing.T, s *Server, client *http.Client, id int) (resp *http.Response, reused bool, err error) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id)
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/plants", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err = client.Do(req)
	if err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, reused, err
}

// TestDropPerProtocol checks what a Fault with Store and Drop does on each
// protocol: the plant is stored and no reply is sent; on HTTP/1.1 the
// connection is closed, and on HTTP/2 only the stream is reset, with
// RST_STREAM(INTERNAL_ERROR), and the connection serves the next request.
// Go's transport does not send the create again on its own: the journal
// holds one request.
func TestDropPerProtocol(t *testing.T) {
	t.Parallel()
	onEachProtocol(t, "", nil, func(t *testing.T, p wireProtocol, s *Server) {
		s.Inject(Fault{Store: true, Drop: true})
		client := s.HTTPClient()
		wantErr, wantReused := "EOF", false
		if p.proto == "HTTP/2.0" {
			wantErr, wantReused = "INTERNAL_ERROR", true
		}
		if _, _, err := postOn(t, s, client, 1); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("create answered by Store and Drop: error %v, want one that says %s", err, wantErr)
		}
		if diff := cmp.Diff([]plantstore.NewPlant{fern}, s.Plants()); diff != "" {
			t.Errorf("Plants() after Store and Drop (-want +got):\n%s", diff)
		}
		if r := s.Requests(); len(r) != 1 || r[0].Outcome != OutcomeDropped {
			t.Errorf("journal: %+v, want one request, dropped", r)
		}
		resp, reused, err := postOn(t, s, client, 2)
		if err != nil {
			t.Fatalf("the create after the drop: %v", err)
		}
		if resp.StatusCode != http.StatusOK || resp.Proto != p.proto || reused != wantReused {
			t.Errorf("the create after the drop: %s %d, on a connection used before: %v; want %s 200, %v",
				resp.Proto, resp.StatusCode, reused, p.proto, wantReused)
		}
	})
}

// TestGoAwayPerProtocol checks a Fault with GoAway on each protocol: the
// request gets its usual reply, and the connection serves no more
// requests (HTTP/2's GOAWAY, HTTP/1.1's Connection: close), so the next
// requests go on a new connection; each reaches the fake once.
func TestGoAwayPerProtocol(t *testing.T) {
	t.Parallel()
	onEachProtocol(t, "", nil, func(t *testing.T, p wireProtocol, s *Server) {
		s.Inject(Fault{GoAway: true})
		tr := s.HTTPClient().Transport.(*http.Transport).Clone()
		defer tr.CloseIdleConnections()
		var dials atomic.Int32
		dial := tr.DialContext
		if dial == nil { // httptest's before Go 1.24
			dial = (&net.Dialer{}).DialContext
		}
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return dial(ctx, network, addr)
		}
		client := &http.Client{Transport: tr}
		for id := 1; id <= 3; id++ {
			resp, _, err := postOn(t, s, client, id)
			if err != nil {
				t.Fatalf("create %d: %v", id, err)
			}
			if resp.StatusCode != http.StatusOK || resp.Proto != p.proto {
				t.Errorf("create %d: %s %d, want %s 200", id, resp.Proto, resp.StatusCode, p.proto)
			}
		}
		if got := dials.Load(); got != 2 {
			t.Errorf("connections dialled for 3 creates, the first answered with GoAway: %d, want 2", got)
		}
		var got []string
		for _, r := range s.Requests() {
			got = append(got, fmt.Sprintf("%s %d %q", r.Outcome, r.Status, r.Fault))
		}
		want := []string{`sent 200 "inject#1 1:goaway"`, `sent 200 ""`, `sent 200 ""`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("journal (-want +got):\n%s", diff)
		}
	})
}

// TestWithHTTP2NeedsGo124ForH2C checks that on a Go without h2c,
// WithHTTP2 without WithTLS fails the test and says why, rather than serve
// HTTP/1.1 that the test believes is HTTP/2.
func TestWithHTTP2NeedsGo124ForH2C(t *testing.T) {
	t.Parallel()
	if h2cpkg.Supported {
		t.Skip("this Go has h2c; the refusal is for Go 1.23")
	}
	tb := &fakeTB{}
	if runFatal(func() { NewServer(tb, WithHTTP2()) }) {
		t.Errorf("NewServer(WithHTTP2()) returned on a Go without h2c, want tb.Fatalf")
	}
	tb.cleanup()
	want := []string{errH2CNeedsGo124}
	if diff := cmp.Diff(want, tb.fatals); diff != "" {
		t.Errorf("Fatalf calls mismatch (-want +got):\n%s", diff)
	}
}

// TestCloseWaitsForEveryHandler checks that Server.Close returns only once
// every request's handler has returned, on each protocol and network: 40
// creates whose bodies stall, each read by its handler (the server's 100
// Continue proves it), are all in the journal, with their outcome, when
// Close returns. Over HTTP/2 the handlers run apart from the connection,
// which httptest.Server.Close waits for, so Close must wait for them itself.
func TestCloseWaitsForEveryHandler(t *testing.T) {
	t.Parallel()
	const n = 40
	for _, network := range []struct {
		name string
		opts []Option
	}{{"loopback", nil}, {"in memory", []Option{WithInMemoryNetwork()}}} {
		onEachProtocol(t, network.name, network.opts, func(t *testing.T, p wireProtocol, s *Server) {
			tr := s.transport.Clone()
			tr.ExpectContinueTimeout = waitTimeout
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			started := make(chan struct{}, n)
			var sent sync.WaitGroup
			stalls := make([]*io.PipeWriter, n)
			defer func() {
				for _, w := range stalls {
					w.Close() // so that a transport still sending the body gives up
				}
				sent.Wait()
			}()
			for i := range n {
				body, stall := io.Pipe()
				stalls[i] = stall
				trace := &httptrace.ClientTrace{Got100Continue: func() { started <- struct{}{} }}
				req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					http.MethodPost, s.URL+"/plants", body)
				if err != nil {
					t.Fatal(err)
				}
				req.ContentLength = 100
				req.Header.Set("Authorization", "Bearer "+DefaultToken)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Expect", "100-continue")
				sent.Add(1)
				go func() {
					defer sent.Done()
					if resp, err := c.Do(req); err == nil {
						resp.Body.Close()
					}
				}()
			}
			for range n {
				waitFor(t, "a handler to read its body", started)
			}
			s.Close()
			if got := len(s.Requests()); got != n {
				t.Errorf("%s: when Close returned, the journal held %d requests, want all %d", p.name, got, n)
			}
		})
	}
}
