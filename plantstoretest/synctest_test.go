//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestInMemoryRetryAfterInFakeTime is the case that took a real minute on a
// loopback server: two 503s with "Retry-After: 30", retried with the SDK's
// production settings, inside a synctest bubble, where the minute is fake;
// on HTTP/1.1, and on HTTP/2 over TLS and as h2c.
func TestInMemoryRetryAfterInFakeTime(t *testing.T) {
	bubble.OneProcUnderRace(t)
	for _, tt := range []struct {
		name string
		opts []plantstoretest.Option
	}{
		{"HTTP/1.1", nil},
		{"h2", []plantstoretest.Option{plantstoretest.WithTLS(), plantstoretest.WithHTTP2()}},
		{"h2c", []plantstoretest.Option{plantstoretest.WithHTTP2()}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts != nil && !bubble.HTTP2 {
				t.Skip("HTTP/2 in a bubble needs Go 1.26 (NewServer refuses it before)")
			}
			synctest.Test(t, func(t *testing.T) {
				srv := plantstoretest.NewServer(t, append(tt.opts, plantstoretest.WithInMemoryNetwork())...)
				srv.Inject(plantstoretest.Fault{Status: 503, Header: http.Header{"Retry-After": {"30"}}, Times: 2})
				start := time.Now()
				p, err := srv.ProductionClient().CreatePlant(context.Background(), plantstore.NewPlant{Name: "Monstera"})
				if err != nil {
					t.Fatalf("CreatePlant: %v", err)
				}
				if p.Name != "Monstera" {
					t.Errorf("CreatePlant returned %+v, want Monstera", p)
				}
				if got, want := time.Since(start), time.Minute; got != want {
					t.Errorf("the call took %v of fake time, want exactly %v (two Retry-After: 30)", got, want)
				}
				reqs := srv.Requests()
				if len(reqs) != 3 {
					t.Fatalf("got %d requests, want 3", len(reqs))
				}
				for i, want := range []time.Duration{0, 30 * time.Second, time.Minute} {
					if got := reqs[i].Time.Sub(start); got != want {
						t.Errorf("attempt %d arrived at +%v, want +%v", i, got, want)
					}
				}
			})
		})
	}
}

// memoryAddr is the address WithInMemoryNetwork documents.
const memoryAddr = "127.0.0.1:1"

// TestInMemoryDialsOnlyItsAddress checks that a client of the in-memory
// network reaches nothing but the Server's address, and that once the
// Server is closed a dial fails as a refused connection does.
func TestInMemoryDialsOnlyItsAddress(t *testing.T) {
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		if srv.URL != "http://"+memoryAddr {
			t.Errorf("URL = %q, want http://%s", srv.URL, memoryAddr)
		}
		hc := srv.HTTPClient()
		resp, err := hc.Get("http://127.0.0.1:2/plants")
		if err == nil {
			resp.Body.Close()
			t.Fatal("GET of another address succeeded, want a dial error")
		}
		var opErr *net.OpError
		if !errors.As(err, &opErr) || opErr.Op != "dial" || !strings.Contains(err.Error(), "the in-memory network has only "+memoryAddr) {
			t.Errorf("GET of another address: %v, want a *net.OpError from dial that names %s", err, memoryAddr)
		}
		srv.Close()
		_, err = srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{Name: "x"})
		var ce *plantstore.CallError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "connection refused: the in-memory server is closed") ||
			strings.Contains(err.Error(), "may have been created") {
			t.Errorf("CreatePlant after Close: %v, want a refused connection, known to have sent nothing", err)
		}
	})
}

// TestInMemoryWithTLS checks that WithTLS works on the in-memory network:
// the Server speaks TLS there, and its clients trust its certificate.
func TestInMemoryWithTLS(t *testing.T) {
	bubble.OneProcUnderRace(t)
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork(), plantstoretest.WithTLS())
		if want := "https://" + memoryAddr; srv.URL != want {
			t.Errorf("URL = %q, want %q", srv.URL, want)
		}
		for i, c := range []*plantstore.Client{srv.Client(), srv.ProductionClient()} {
			name := [...]string{"Client", "ProductionClient"}[i]
			if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i), Name: name}); err != nil {
				t.Errorf("%s: CreatePlant over TLS in memory: %v", name, err)
			}
		}
		resp, err := srv.HTTPClient().Get(srv.URL + "/plants")
		if err != nil {
			t.Fatalf("GET over TLS in memory: %v", err)
		}
		resp.Body.Close()
		if resp.TLS == nil {
			t.Error("the response came without TLS")
		}
		if got := len(srv.Plants()); got != 2 {
			t.Errorf("stored %d plants, want 2", got)
		}
	})
}
