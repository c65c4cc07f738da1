//go:build go1.25

package plantstoretest

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/memnet"
)

// TestInMemoryConnectionsEnd checks, plain and with TLS, inside a synctest
// bubble, what ends a connection on the in-memory network that one side
// holds: its waits must count as durably blocked, its deadlines run on fake
// time, and a net.Pipe, which buffers nothing, must not hold up the end. A
// Hang ends exactly at the client's deadline; Server.Close ends, at once
// (no fake time passes), a Hang, a request whose body stalled, and a
// connection whose client holds a response's body unread, which under TLS
// would wait 5 seconds for a close_notify to be read (see memListener).
func TestInMemoryConnectionsEnd(t *testing.T) {
	t.Parallel()
	bubble.OneProcUnderRace(t)
	for _, tt := range []struct {
		name string
		test func(t *testing.T, s *Server)
	}{
		{"Hang until the client's deadline", func(t *testing.T, s *Server) {
			s.Inject(Fault{Hang: true})
			ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
			defer cancel()
			start := time.Now()
			_, err := s.Client(plantstore.WithMaxRetries(0)).CreatePlant(ctx, fern)
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 7*time.Second {
				t.Errorf("CreatePlant held by a Hang: %v after %v, want context.DeadlineExceeded after exactly 7s", err, time.Since(start))
			}
			synctest.Wait() // the handler sees the connection go
			if r := s.Requests(); len(r) != 1 || r[0].Outcome != OutcomeDropped {
				t.Errorf("journal: %+v, want one request, dropped", r)
			}
		}},
		{"Hang until Close", func(t *testing.T, s *Server) {
			s.Inject(Fault{Hang: true, Store: true})
			errc := createAsync(context.Background(), s.Client(plantstore.WithMaxRetries(0)), fern)
			synctest.Wait() // the request is held
			start := time.Now()
			s.Close()
			if err := <-errc; !errors.Is(err, plantstore.ErrMaybeCreated) || time.Since(start) != 0 {
				t.Errorf("CreatePlant held by a Hang when the Server closed: %v after %v, want ErrMaybeCreated at once", err, time.Since(start))
			}
		}},
		{"a stalled body until Close", func(t *testing.T, s *Server) {
			// A connection of its own, as in TestServerCloseDoesNotWaitForStalledBody:
			// an http.Client would wait for its body's reader instead.
			conn, err := s.transport.DialContext(context.Background(), "tcp", memnet.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if strings.HasPrefix(s.URL, "https:") {
				cfg := s.transport.TLSClientConfig.Clone()
				cfg.ServerName = "127.0.0.1"
				conn = tls.Client(conn, cfg)
			}
			head := "POST /plants HTTP/1.1\r\nHost: plantstore\r\nAuthorization: Bearer " + DefaultToken +
				"\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n" + `{"id":1` // 7 of the 30 bytes
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the server waits for the rest of the body
			start := time.Now()
			s.Close()
			// At once, but for the half second (rstAvoidanceDelay) that
			// Go 1.27's net/http lingers on the failed body, as on a socket.
			if rest, err := io.ReadAll(conn); len(rest) != 0 || time.Since(start) > 500*time.Millisecond {
				t.Errorf("a stalled body when the Server closed: read %q, %v after %v; want the connection dropped at once", rest, err, time.Since(start))
			}
			if got := s.Plants(); len(got) != 0 {
				t.Errorf("Plants() = %+v, want none", got)
			}
		}},
		{"a body unread at Close", func(t *testing.T, s *Server) {
			req, err := http.NewRequest(http.MethodPost, s.URL+"/plants", strings.NewReader(`{"id":1,"name":"Fern"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header = validHeader(string(s.cfg.token))
			resp, err := s.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			synctest.Wait() // the server's end is idle, the client's waits for its body to be read
			start := time.Now()
			s.Close()
			if elapsed := time.Since(start); elapsed != 0 {
				t.Errorf("Close with a response's body unread took %v, want no time", elapsed)
			}
			if body, err := io.ReadAll(resp.Body); string(body) != `{"name":"Fern"}` || err != nil {
				t.Errorf("the body read after Close: %q, %v; want the plant", body, err)
			}
		}},
	} {
		for _, mode := range []struct {
			name string
			opts []Option
		}{{"plain", nil}, {"TLS", []Option{WithTLS()}}} {
			t.Run(mode.name+", "+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					tt.test(t, NewServer(t, append(mode.opts, WithInMemoryNetwork())...))
				})
			})
		}
	}
}
