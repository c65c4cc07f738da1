// Command client makes N sequential create-plant calls against a server, by
// hand (package internal/baseline) or through the plantstore SDK, and exits.
// scripts/bench.sh runs it under valgrind's callgrind for two values of N:
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
	"fmt"
	"log"
	"os"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/baseline"
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

	create, err := newCreate(*mode, *url)
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

func newCreate(mode, baseURL string) (func(context.Context, plantstore.NewPlant) error, error) {
	switch mode {
	case "raw":
		hc := baseline.NewHTTPClient()
		url := baseURL + "/plants"
		return func(ctx context.Context, p plantstore.NewPlant) error {
			_, err := baseline.CreatePlant(ctx, hc, url, p)
			return err
		}, nil
	case "sdk":
		c, err := plantstore.NewClient(baseURL, plantstore.WithToken(baseline.Token))
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, p plantstore.NewPlant) error {
			_, err := c.CreatePlant(ctx, p)
			return err
		}, nil
	}
	return nil, fmt.Errorf("unknown -mode %q: want raw or sdk", mode)
}
