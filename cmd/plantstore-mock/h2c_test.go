//go:build go1.24

package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/testenv"
)

// TestRunServesH2C checks that the mock serves h2c (HTTP/2 with prior
// knowledge) and HTTP/1.1 on the same port: a plantstore client whose
// transport speaks only h2c creates a plant and the journal has it, an
// HTTP/1.1 client is still served, and h2c advertises the bound on a
// request's headers.
func TestRunServesH2C(t *testing.T) {
	t.Parallel()
	runToEnd(t, func(t *testing.T, ctx context.Context, url string) {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		h2c := &http.Transport{Protocols: &p}
		defer h2c.CloseIdleConnections()
		h1 := &http.Transport{}
		defer h1.CloseIdleConnections()

		var protos []string
		c, err := plantstore.NewClient(url, plantstore.WithToken("h2c-token"),
			plantstore.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				resp, err := h2c.RoundTrip(r)
				if err == nil {
					protos = append(protos, resp.Proto)
				}
				return resp, err
			})}))
		if err != nil {
			t.Fatalf("NewClient(%q): %v", url, err)
		}
		if _, err := c.CreatePlant(ctx, plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
			t.Fatalf("CreatePlant over h2c: %v", err)
		}
		if len(protos) != 1 || protos[0] != "HTTP/2.0" {
			t.Errorf("the create's responses came over %q, want one over HTTP/2.0", protos)
		}

		try := func(tr http.RoundTripper, path string, header http.Header) (*http.Response, error) {
			t.Helper()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range header {
				req.Header[k] = v
			}
			resp, err := tr.RoundTrip(req)
			if err == nil {
				t.Cleanup(func() { resp.Body.Close() })
			}
			return resp, err
		}
		get := func(tr http.RoundTripper, path string) *http.Response {
			t.Helper()
			resp, err := try(tr, path, nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			return resp
		}
		resp := get(h2c, "/__plantstore/requests")
		var journal []struct {
			Method string `json:"method"`
			Proto  string `json:"proto"`
			Status int    `json:"status"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&journal); err != nil {
			t.Fatalf("the journal over h2c: %v", err)
		}
		if resp.Proto != "HTTP/2.0" || len(journal) != 1 || journal[0].Method != http.MethodPost || journal[0].Status != http.StatusOK ||
			journal[0].Proto != "HTTP/2.0" {
			t.Errorf("the journal over h2c: %s, %+v; want HTTP/2.0, the create answered 200 and journaled as HTTP/2.0", resp.Proto, journal)
		}
		if resp := get(h1, "/__plantstore/health"); resp.Proto != "HTTP/1.1" || resp.StatusCode != http.StatusOK {
			t.Errorf("health over HTTP/1.1 on the same port: %s %d, want HTTP/1.1 200", resp.Proto, resp.StatusCode)
		}
		big := http.Header{"X-Padding": {strings.Repeat("x", maxHeaderBytes+8<<10)}}
		// The server advertises its bound (SETTINGS_MAX_HEADER_LIST_SIZE), so
		// Go's transport refuses before sending; curl in scripts/e2e-mock.sh
		// sends it anyway and gets the 431.
		if resp, err := try(h2c, "/__plantstore/health", big); err == nil || !strings.Contains(err.Error(), "advertised limit") {
			t.Errorf("h2c GET with a %d-byte header: %v, %v; want an error: the request is over the peer's advertised limit", maxHeaderBytes+8<<10, resp, err)
		}
	}, "-addr", "127.0.0.1:0", "-token", "h2c-token")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestH2CUnfinishedPrefaceIsBounded connects to the mock and sends half of
// HTTP/2's client preface, then nothing: the mock must close the
// connection within its 10 s header timeout (net/http before Go 1.26.6
// waited for such a client forever), so that -max-conns such clients
// cannot hold the mock. A long test: it waits for the timeout.
func TestH2CUnfinishedPrefaceIsBounded(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	m := startMock(t, buildMock(t), "-token", "T", "-max-conns", "1")
	conn, err := net.Dial("tcp", strings.TrimPrefix(m.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nS"); err != nil { // of "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
		t.Fatal(err)
	}
	conn.SetReadDeadline(start.Add(30 * time.Second))
	_, err = io.Copy(io.Discard, conn)
	if took := time.Since(start); err != nil || took > 15*time.Second {
		t.Errorf("a client that never finished its preface was held %v (read: %v), want the connection closed within the 10 s header timeout", took.Round(time.Second), err)
	}
}
