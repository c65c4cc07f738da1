//go:build go1.25

package plantstoretest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestInMemoryRetryAfterInFakeTime is the case that took a real minute on a
// loopback server: two 503s with "Retry-After: 30", retried with the SDK's
// production settings, inside a synctest bubble, where the minute is fake.
func TestInMemoryRetryAfterInFakeTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
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
}

// TestInMemoryDialsOnlyItsAddress checks that a client of the in-memory
// network reaches nothing but the Server's address, and that once the
// Server is closed a dial fails as a refused connection does.
func TestInMemoryDialsOnlyItsAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork())
		if srv.URL != "http://"+plantstoretest.MemoryAddr {
			t.Errorf("URL = %q, want http://%s", srv.URL, plantstoretest.MemoryAddr)
		}
		hc := srv.HTTPClient()
		resp, err := hc.Get("http://127.0.0.1:2/plants")
		if err == nil {
			resp.Body.Close()
			t.Fatal("GET of another address succeeded, want a dial error")
		}
		var opErr interface{ Unwrap() error }
		if !errors.As(err, &opErr) {
			t.Errorf("error %v, want a wrapped dial error", err)
		}
		srv.Close()
		_, err = srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{Name: "x"}, plantstore.WithCallRetries(0))
		if err == nil {
			t.Fatal("CreatePlant after Close succeeded")
		}
	})
}
