package conformance_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// BenchmarkRunReport measures a whole run against the fake, the run
// against the in-process reference included (issue 17 asks for under 1 s),
// next to a baseline: the same requests (method, path and body size, the
// reference's too) sent with a plain http.Client to the same fake, in a
// loop with nothing checked; each body a valid plant of the same size, so
// that the fake does the same work. The ratio is what the kit adds to the traffic
// it needs.
func BenchmarkRunReport(b *testing.B) {
	h := plantstoretest.NewHandler(plantstoretest.WithJournalLimit(0))
	defer h.Close()
	srv := serve(b, h)
	target := conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken}
	b.Run("kit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rep, err := conformance.RunReport(context.Background(), target)
			if err != nil || !rep.Passed {
				b.Fatalf("RunReport: %v (passed %v)", err, rep != nil && rep.Passed)
			}
			h.Reset() // the searches store names of up to 1 MiB each run
		}
	})
	b.Run("baseline", func(b *testing.B) {
		rep, err := conformance.RunReport(context.Background(), target)
		if err != nil {
			b.Fatal(err)
		}
		var reqs []*conformance.Exchange
		for _, c := range rep.Checks {
			reqs = append(reqs, c.Exchanges...)
		}
		reqs = append(reqs, reqs...) // the reference's run sends as many
		client := srv.Client()
		id := int64(1)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for _, e := range reqs {
				// A valid plant of the same size, so that the fake does
				// the same work as for the kit's bodies.
				body := []byte(fmt.Sprintf(`{"id":%d,"name":"`, id))
				id++
				if pad := e.BodyBytes - len(body) - 2; pad > 0 {
					body = append(body, bytes.Repeat([]byte{'n'}, pad)...)
				}
				body = append(body, '"', '}')
				path := "/plants"
				if strings.HasSuffix(e.URL, "/plants/conformance") {
					path = "/plants/conformance"
				}
				req, _ := http.NewRequest(e.Method, srv.URL+path, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			h.Reset()
		}
	})
}

// BenchmarkRunNewServer measures what a test that runs the kit against a
// NewServer of its own pays: the server started, the whole run (the
// in-process reference included) and the server closed, as its cleanup
// closes it. Issue 21 asks for under 100 ms.
func BenchmarkRunNewServer(b *testing.B) {
	for i := 0; i < b.N; i++ {
		srv := plantstoretest.NewServer(b)
		rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken})
		if err != nil || !rep.Passed {
			b.Fatalf("RunReport: %v (passed %v)", err, rep != nil && rep.Passed)
		}
		srv.Close()
	}
}
