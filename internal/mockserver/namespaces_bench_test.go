package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// BenchmarkNamespaces measures creates per second through the mock with
// namespaces: ns=1 sends every create to one namespace, ns=64 spreads the
// same load over 64 (issue 23: at least 0.9× the creates of one alone).
// Each namespace's fake has the command's defaults: journal of
// DefaultJournal requests, bodies cut at JournalBodyLimit,
// plantstoretest.DefaultMaxPlants.
func BenchmarkNamespaces(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("ns=%d", n), func(b *testing.B) {
			h := plantstoretest.NewHandler(plantstoretest.WithToken(apiToken))
			s, err := New(h, Config{Loopback: true, ListenAddr: "127.0.0.1:0", Namespaces: NamespaceConfig{
				Max: n,
				Options: []plantstoretest.Option{
					plantstoretest.WithJournalLimit(DefaultJournal),
					plantstoretest.WithJournalBodyLimit(JournalBodyLimit),
				},
				APIToken:  apiToken,
				MaxPlants: plantstoretest.DefaultMaxPlants,
			}})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(s)
			defer srv.Close()
			defer h.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
			defer client.CloseIdleConnections()
			var urls, tokens []string
			for i := 0; i < n; i++ {
				resp, err := client.Post(srv.URL+namespacesPath, "", nil)
				if err != nil {
					b.Fatal(err)
				}
				var nb namespaceBody
				err = json.NewDecoder(resp.Body).Decode(&nb)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated || err != nil {
					b.Fatalf("create a namespace: %d, %v", resp.StatusCode, err)
				}
				urls, tokens = append(urls, nb.BaseURL+"/plants"), append(tokens, "Bearer "+nb.Token)
			}
			var next, worker, failed atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				w := int(worker.Add(1)) % n
				for pb.Next() {
					id := next.Add(1)
					req, _ := http.NewRequest("POST", urls[w], bytes.NewReader(fmt.Appendf(nil, `{"id":%d,"name":"p"}`, id)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", tokens[w])
					resp, err := client.Do(req)
					if err != nil || resp.StatusCode != 200 {
						failed.Add(1)
					}
					if err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			})
			b.StopTimer()
			if f := failed.Load(); f > 0 {
				b.Fatalf("%d of %d creates failed", f, b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// BenchmarkNamespaceLifecycle measures what the lifecycle costs a request
// to a namespace, apart from HTTP and the fake: the lookup of its id, and
// the enter and leave around it, from 16 goroutines a core spread over 64
// namespaces, as BenchmarkNamespaces spreads its load.
func BenchmarkNamespaceLifecycle(b *testing.B) {
	s := nsServer(b, setups[0].c)
	var paths, ids []string
	for i := 0; i < 64; i++ {
		nb := decode[namespaceBody](b, serveWithHost(s, "POST", namespacesPath, "localhost", ""))
		ids, paths = append(ids, nb.Namespace), append(paths, nsPrefix+nb.Namespace+"/plants")
	}
	var worker atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := int(worker.Add(1)) % len(ids)
		for pb.Next() {
			ns := s.ns.lookup(nsPrefix, ids[w], paths[w])
			if ns == nil || !s.ns.enter(ns) {
				b.Error("a live namespace was not found")
				return
			}
			s.ns.leave(ns)
		}
	})
}
