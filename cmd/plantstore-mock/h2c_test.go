//go:build go1.24

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go"
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
			Status int    `json:"status"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&journal); err != nil {
			t.Fatalf("the journal over h2c: %v", err)
		}
		if resp.Proto != "HTTP/2.0" || len(journal) != 1 || journal[0].Method != http.MethodPost || journal[0].Status != http.StatusOK {
			t.Errorf("the journal over h2c: %s, %+v; want HTTP/2.0, the create answered 200", resp.Proto, journal)
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
