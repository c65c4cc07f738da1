// Command quickstart creates one plant with the Plant Store SDK and prints it.
//
// It talks to the server at PLANTSTORE_BASE_URL with the bearer token in
// PLANTSTORE_TOKEN. When PLANTSTORE_BASE_URL is not set, it starts the fake
// from package plantstoretest in-process, says so, and uses that instead, so
//
//	go run ./examples/quickstart
//
// works on a fresh machine with nothing else running.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	baseURL, token := os.Getenv("PLANTSTORE_BASE_URL"), os.Getenv("PLANTSTORE_TOKEN")
	if baseURL == "" {
		if token == "" {
			token = plantstoretest.DefaultToken
		}
		fake := plantstoretest.NewHandler(plantstoretest.WithToken(token))
		srv := httptest.NewServer(fake)
		defer srv.Close()
		defer fake.Close()
		baseURL = srv.URL
		fmt.Fprintf(out, "PLANTSTORE_BASE_URL is not set: using plantstoretest's fake, in-process, at %s\n", baseURL)
	}
	if token == "" {
		return errors.New("PLANTSTORE_TOKEN is not set")
	}

	client, err := plantstore.NewClient(baseURL, plantstore.WithToken(token))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	// NewID's ids are random, so no two writers share one; the ID makes a
	// create safe to repeat: keep it until the create succeeds.
	p := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Monstera deliciosa", Tag: "indoor"}
	plant, err := client.CreatePlant(ctx, p)
	if err != nil {
		// If errors.Is(err, plantstore.ErrMaybeCreated), p may be stored:
		// settle it with the same ID, never a new one (see Exactly-once creates).
		return err
	}
	fmt.Fprintf(out, "created plant: name=%q tag=%q\n", plant.Name, plant.Tag)
	return nil
}
