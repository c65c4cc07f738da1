package plantstoreotel_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/plantstore/plantstore-go"
	plantstoreotel "github.com/plantstore/plantstore-go/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func ExampleNewHooks() {
	// A stand-in for the Plant Store; use your own base URL.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"id":7,"name":"Monstera","tag":"indoor"}`))
	}))
	defer srv.Close()

	// In production, leave out WithTracerProvider to use the global one.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	hooks, err := plantstoreotel.NewHooks(plantstoreotel.WithTracerProvider(tp))
	if err != nil {
		log.Fatal(err)
	}
	c, err := plantstore.NewClient(srv.URL, plantstore.WithToken("s3cr3t"), plantstore.WithHooks(hooks))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"}); err != nil {
		log.Fatal(err)
	}
	for _, s := range spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind())
	}
	// Output:
	// POST client
	// plantstore.CreatePlant client
}

// In production: the global tracer and meter providers, which the
// application's OpenTelemetry setup installs.
func ExampleNewHooks_global() {
	_ = func(baseURL, token string) (*plantstore.Client, error) {
		hooks, err := plantstoreotel.NewHooks() // the global tracer and meter providers
		if err != nil {
			return nil, err
		}
		client, err := plantstore.NewClient(baseURL, plantstore.WithToken(token), plantstore.WithHooks(hooks))
		return client, err
	}
}
