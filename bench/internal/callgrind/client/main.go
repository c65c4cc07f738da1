// Command client makes N sequential create-plant calls against a server, by
// hand (package internal/baseline) or through the plantstore SDK, and exits.
// bench/bench.sh runs it under valgrind's callgrind for two values of N:
// the difference in instructions divided by the difference in N is the cost
// of one call, free of start-up costs and of the machine's load.
//
// Usage:
//
//	client -mode raw|sdk -n N -url http://127.0.0.1:port
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/plantstore/plantstore-go/bench/internal/baseline"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("callgrind client: ")
	mode := flag.String("mode", "sdk", "`raw` for the hand-written call, sdk for plantstore.Client")
	n := flag.Int("n", 1000, "number of sequential creates")
	url := flag.String("url", "", "base `URL` of the server, e.g. http://127.0.0.1:8080")
	flag.Parse()
	if *url == "" || *n < 0 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}

	create, _, err := baseline.NewCreate(*mode, *url)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < *n; i++ {
		if err := create(ctx, baseline.Plant(int64(i))); err != nil {
			log.Fatalf("create %d: %v", i, err)
		}
	}
}
