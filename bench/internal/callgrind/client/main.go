// Command client makes N sequential create-plant calls against a server, by
// hand or through the oapi-codegen client (package internal/baseline) or
// through the plantstore SDK, and exits.
// bench/bench.sh runs it under valgrind's callgrind for two values of N:
// the difference in instructions divided by the difference in N is the cost
// of one call, free of start-up costs and of the machine's load.
//
// With -proto h2c every mode speaks h2c (HTTP/2 with prior knowledge, Go
// 1.24+) instead of HTTP/1.1: the hand-written calls and oapi on
// [baseline.NewHTTPClient]'s transport made to speak it, the SDK on the same
// transport through plantstore.WithHTTPClient, so that the SDK and the
// hand-written call share one transport. The server must serve h2c at -url.
// With -proto h1, the default, each mode uses its own transport.
//
// Usage:
//
//	client -mode raw|rawsix|oapi|sdk|sdk-traffic [-proto h1|h2c] -n N -url http://127.0.0.1:port
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/bench/internal/baseline"
	"github.com/plantstore/plantstore-go/internal/h2c"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("callgrind client: ")
	mode := flag.String("mode", "sdk", "the `implementation`: raw or rawsix for the hand-written call with four or six headers, oapi for the oapi-codegen client, sdk for plantstore.Client, sdk-traffic for it recording with a traffic.Recorder")
	proto := flag.String("proto", "h1", "the `protocol`: h1 for HTTP/1.1, h2c for HTTP/2 with prior knowledge")
	n := flag.Int("n", 1000, "number of sequential creates")
	url := flag.String("url", "", "base `URL` of the server, e.g. http://127.0.0.1:8080")
	flag.Parse()
	if *url == "" || *n < 0 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}

	var opts []plantstore.Option
	switch *proto {
	case "h1":
	case "h2c":
		if !h2c.Supported {
			log.Fatal("-proto h2c needs Go 1.24 or later")
		}
		// baseline.NewHTTPClient clones the default transport.
		h2c.Speak(http.DefaultTransport.(*http.Transport))
		opts = append(opts, plantstore.WithHTTPClient(baseline.NewHTTPClient()))
	default:
		log.Fatalf("-proto %q: want h1 or h2c", *proto)
	}
	create, _, err := baseline.NewCreate(*mode, *url, opts...)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < *n; i++ {
		if err := create(ctx, baseline.Plant(int64(i))); err != nil {
			log.Fatalf("create %d: %v", i, err)
		}
	}
	// bench.sh counts a run only with this line: a run valgrind cut short
	// (a SIGILL it cannot emulate) has no figure.
	fmt.Printf("created %d plants\n", *n)
}
