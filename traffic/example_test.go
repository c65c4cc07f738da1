package traffic_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/traffic"
)

// A Recorder records a production client's attempts through its hooks;
// WriteTo saves them as a profile document, for plantstore-mock -profile
// and plantstore-mock drift.
func ExampleRecorder() {
	// A service that answers the second request 503, then 201s.
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n.Add(1) == 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id": 1, "name": "fern"}`)
	}))
	defer srv.Close()

	baseURL, opts := srv.URL, []plantstore.Option{plantstore.WithToken("token"), plantstore.WithRetryBackoff(0, 0)}

	rec := traffic.NewRecorder()
	client, err := plantstore.NewClient(baseURL, append(opts, plantstore.WithHooks(rec.Hooks()))...)
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{Name: "fern"}); err != nil {
			log.Fatal(err)
		}
	}
	f := new(bytes.Buffer) // in a service, an *os.File
	// Now and then, and at shutdown: the profile document your tests replay.
	_, err = rec.WriteTo(f)
	if err != nil {
		log.Fatal(err)
	}

	recording, err := traffic.Read(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("attempts:", recording.Attempts)
	for _, o := range recording.Outcomes {
		fmt.Println(o.Kind, o.Status, o.Count)
	}
	fmt.Println("failure runs:", recording.FailureRuns.Runs)
	// Output:
	// attempts: 4
	// 2xx 201 3
	// 5xx 503 1
	// failure runs: 1
}
