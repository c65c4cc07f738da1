package plantstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func ExampleNewClient() {
	// A stand-in for the real service; use your base URL and token.
	srv := httptest.NewServer(plantstoretest.NewHandler(plantstoretest.WithToken("my-token")))
	defer srv.Close()

	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken("my-token"),
		plantstore.WithMaxRetries(3),
		plantstore.WithMaxRetryAfter(10*time.Second),
	)
	if err != nil {
		log.Fatal(err)
	}
	plant, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plant.Name)
	// Output: Fern
}

func ExampleNewClient_invalid() {
	_, err := plantstore.NewClient("http://plants.example.com", plantstore.WithToken("my-token"))
	fmt.Println(err)
	// Output: plantstore: refusing to send a bearer token over plain http to "plants.example.com": use https, or WithInsecureHTTP to allow it
}

func ExampleClient_CreatePlant() {
	fake := plantstoretest.NewHandler()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	plant, err := client.CreatePlant(ctx, plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %s (%s)\n", plant.Name, plant.Tag)
	fmt.Printf("the server stored %+v\n", fake.Plants())
	// Output:
	// created Monstera (indoor)
	// the server stored [{ID:7 Name:Monstera Tag:indoor}]
}

func ExampleAPIError() {
	srv := httptest.NewServer(plantstoretest.NewHandler())
	defer srv.Close()
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken("not-the-token"))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"})
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("status:", apiErr.StatusCode)
		fmt.Println("message:", apiErr.Message)
	}
	// Branch on the status.
	switch {
	case apiErr == nil:
	case apiErr.StatusCode == http.StatusUnauthorized:
		fmt.Println("check the token")
	case apiErr.StatusCode == http.StatusTooManyRequests, apiErr.StatusCode >= 500:
		fmt.Println("try again later")
	}
	// Output:
	// status: 401
	// message: invalid token
	// check the token
}

func ExampleValidationError() {
	client, err := plantstore.NewClient("https://plants.example.com", plantstore.WithToken("my-token"))
	if err != nil {
		log.Fatal(err)
	}
	// Nothing is sent: the plant has no name.
	_, err = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7})
	var invalid *plantstore.ValidationError
	if errors.As(err, &invalid) {
		fmt.Println("field:", invalid.Field)
	}
	fmt.Println(err)
	// Output:
	// field: name
	// plantstore: invalid plant: name is required
}

func ExampleClient_CreatePlant_retries() {
	fake := plantstoretest.NewHandler()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	// The service is briefly unavailable: two 503s, then it recovers.
	fake.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Times: 2})

	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken(plantstoretest.DefaultToken),
		plantstore.WithRetryBackoff(10*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	plant, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plant.Name, "after", len(fake.Requests()), "attempts")
	// Output: Monstera after 3 attempts
}

// A create whose outcome is unknown is settled by creating the same plant
// again: the ID is the caller's, so a server that rejects repeated IDs
// recognises it.
func ExampleErrMaybeCreated() {
	fake := plantstoretest.NewHandler()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	// The plant is stored, then the connection drops before the answer.
	fake.Inject(plantstoretest.Fault{Store: true, Drop: true})

	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken(plantstoretest.DefaultToken), plantstore.WithMaxRetries(0),
		// How the deployment answers a repeated id: the fake's answer here;
		// a conformance run prints your deployment's.
		plantstore.WithAlreadyExists(http.StatusBadRequest, plantstoretest.CodeDuplicateID))
	if err != nil {
		log.Fatal(err)
	}
	monstera := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Monstera"}
	_, err = client.CreatePlant(context.Background(), monstera)
	fmt.Println("may exist:", errors.Is(err, plantstore.ErrMaybeCreated))

	// Ask again with the same id: the answer that it is stored settles it.
	_, err = client.CreatePlant(context.Background(), monstera)
	fmt.Println("already stored:", errors.Is(err, plantstore.ErrAlreadyExists))
	fmt.Println("stored:", len(fake.Plants()))
	// Output:
	// may exist: true
	// already stored: true
	// stored: 1
}

// EnsurePlant makes the settle decision: here the plant is stored and its
// answer lost twice, and EnsurePlant reports it stored, once.
func ExampleClient_EnsurePlant() {
	fake := plantstoretest.NewHandler()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.Inject(plantstoretest.Fault{Store: true, Drop: true, Times: 2})

	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken(plantstoretest.DefaultToken), plantstore.WithMaxRetries(0),
		plantstore.WithAlreadyExists(http.StatusBadRequest, plantstoretest.CodeDuplicateID))
	if err != nil {
		log.Fatal(err)
	}
	err = client.EnsurePlant(context.Background(), plantstore.NewPlant{ID: plantstore.NewID(), Name: "Monstera"})
	fmt.Println("error:", err)
	fmt.Println("stored:", len(fake.Plants()))
	// Output:
	// error: <nil>
	// stored: 1
}

// A production client takes its deployment's answer to a repeated id, as a
// conformance run printed it, derives the plant's id from the work's own
// key, and acts on EnsurePlant's three outcomes.
func ExampleClient_EnsurePlant_production() {
	ctx, baseURL, token := context.Background(), "https://plants.example.com", os.Getenv("PLANTSTORE_TOKEN")
	client, err := plantstore.NewClient(baseURL, plantstore.WithToken(token),
		plantstore.WithAlreadyExists(409, 1009)) // your deployment's answer to a repeated id
	if err != nil {
		log.Fatal(err)
	}
	key := "orders/17"                                                // the work's own key, which a redelivery after a restart brings again
	p := plantstore.NewPlant{ID: plantstore.IDFor(key), Name: "Fern"} // the same id in every process
	err = client.EnsurePlant(ctx, p)
	switch {
	case err == nil: // stored, once
	case errors.Is(err, plantstore.ErrMaybeCreated): // not known yet: EnsurePlant(ctx, p) again later
	default: // not stored by this call (a 401, an outage): again later if one before sent p; a 400 never stores it
	}
}

// headerTransport adds a header to every request, as an instrumented
// transport such as otelhttp adds trace context.
type headerTransport struct{ next http.RoundTripper }

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Request-Source", "inventory-service")
	return t.next.RoundTrip(r)
}

func ExampleWithHTTPClient() {
	fake := plantstoretest.NewHandler()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// With OpenTelemetry: &http.Client{Transport: otelhttp.NewTransport(http.DefaultTransport)}.
	hc := &http.Client{Transport: headerTransport{next: http.DefaultTransport}}
	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken(plantstoretest.DefaultToken), plantstore.WithHTTPClient(hc))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(fake.Requests()[0].Header.Get("X-Request-Source"))
	// Output: inventory-service
}

func ExampleWithTokenFunc() {
	srv := httptest.NewServer(plantstoretest.NewHandler(plantstoretest.WithToken("rotated-token")))
	defer srv.Close()

	// Ask a credential store for the current token on every attempt.
	current := func(ctx context.Context) (string, error) { return "rotated-token", nil }
	client, err := plantstore.NewClient(srv.URL, plantstore.WithTokenFunc(current))
	if err != nil {
		log.Fatal(err)
	}
	plant, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plant.Name)
	// Output: Monstera
}

func ExampleWithCallInfo() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", r.Header.Get("X-Request-Id")) // servers often echo it
		w.WriteHeader(http.StatusConflict)
		w.Write([]byte(`{"error":1002,"message":"plant 7 already exists"}`))
	}))
	defer srv.Close()
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken("my-token"))
	if err != nil {
		log.Fatal(err)
	}

	var info plantstore.CallInfo
	_, err = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"},
		plantstore.WithRequestID("order-42"),
		plantstore.WithHeader("X-Tenant", "greenhouse"),
		plantstore.WithCallRetries(0),
		plantstore.WithAttemptTimeout(5*time.Second),
		plantstore.WithCallInfo(&info))
	fmt.Println(err)
	fmt.Println(info.StatusCode, info.RequestID, info.Attempts)
	// Output:
	// plantstore: create plant: 409 Conflict: plant 7 already exists (error 1002)
	// 409 order-42 1
}

func ExampleCallError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "srv-7f3a")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken("my-token"),
		plantstore.WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}

	_, err = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"},
		plantstore.WithRequestID("order-42"))
	var callErr *plantstore.CallError
	if errors.As(err, &callErr) {
		// Quote the request id sent to the service's operators, and the
		// server's own when it answered with another.
		fmt.Printf("request %s (server's id %s) failed after %d attempts\n",
			callErr.Call.RequestID, callErr.Call.ServerRequestID, callErr.Call.Attempts)
	}
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode)
	}
	// Output:
	// request order-42 (server's id srv-7f3a) failed after 3 attempts
	// 503
}

func ExampleWithHooks() {
	srv := httptest.NewServer(plantstoretest.NewHandler())
	defer srv.Close()

	hooks := plantstore.Hooks{
		AttemptEnd: func(_ context.Context, call *plantstore.CallInfo, a plantstore.Attempt) {
			fmt.Printf("%s attempt %d: %d\n", call.Operation, a.Number, a.StatusCode)
		},
		CallEnd: func(_ context.Context, call *plantstore.CallInfo, err error) {
			fmt.Printf("%s done after %d attempt(s), error: %v\n", call.Operation, call.Attempts, err)
		},
	}
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken(plantstoretest.DefaultToken),
		plantstore.WithHooks(hooks), plantstore.WithUserAgent("inventory-sync/1.4"))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// CreatePlant attempt 1: 200
	// CreatePlant done after 1 attempt(s), error: <nil>
}

func ExampleWithRetryBudget() {
	// A service that fails every request.
	h := plantstoretest.NewHandler(plantstoretest.WithToken("my-token"))
	h.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Times: 1000})
	srv := httptest.NewServer(h)
	defer srv.Close()

	client, err := plantstore.NewClient(srv.URL,
		plantstore.WithToken("my-token"),
		plantstore.WithRetryBackoff(0, 0),
		// At most 10 retries in any 10 s, however many calls are made.
		plantstore.WithRetryBudget(0, 1),
	)
	if err != nil {
		log.Fatal(err)
	}
	for id := range int64(6) {
		_, err = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: id, Name: "Fern"})
		fmt.Println(errors.Is(err, plantstore.ErrRetryBudgetExhausted))
	}
	// The sixth call was not retried: its error is still the 503, and says why.
	var apiErr *plantstore.APIError
	var callErr *plantstore.CallError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode, errors.As(err, &callErr), callErr.Call.Attempts)
	fmt.Println(err)
	// Output:
	// false
	// false
	// false
	// false
	// false
	// true
	// true 503 true 1
	// plantstore: create plant: 503 Service Unavailable: inject#1: 503 Service Unavailable (error 9) (not retried: the client's retry budget is exhausted) (the plant may have been created)
}

// attemptCancel is the context key under which the hooks below keep each
// attempt's cancel function, from AttemptStart to AttemptEnd.
type attemptCancel struct{}

// An AttemptStart hook may give each attempt a context of its own, here a
// deadline (WithAttemptTimeout does the same as a call option). It bounds
// that attempt only: the retry and the wait before it go by the call's
// context. Keep the cancel function in the context, and call it in
// AttemptEnd, once the client is done with the attempt.
func ExampleHooks_attemptDeadline() {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server sees the client hang up
		if calls.Add(1) == 1 {
			<-r.Context().Done() // the first attempt gets no answer
			return
		}
		io.WriteString(w, `{"name":"Monstera"}`)
	}))
	defer srv.Close()

	hooks := plantstore.Hooks{
		AttemptStart: func(ctx context.Context, _ *plantstore.CallInfo, a plantstore.Attempt) context.Context {
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			return context.WithValue(ctx, attemptCancel{}, cancel)
		},
		AttemptEnd: func(ctx context.Context, _ *plantstore.CallInfo, a plantstore.Attempt) {
			ctx.Value(attemptCancel{}).(context.CancelFunc)()
			fmt.Printf("attempt %d: status %d, timed out %v, retry %v\n",
				a.Number, a.StatusCode, errors.Is(a.Err, context.DeadlineExceeded), a.WillRetry)
		},
	}
	client, err := plantstore.NewClient(srv.URL, plantstore.WithToken("my-token"), plantstore.WithHooks(hooks),
		plantstore.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	plant, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plant.Name)
	// Output:
	// attempt 1: status 0, timed out true, retry true
	// attempt 2: status 200, timed out false, retry false
	// Monstera
}

// An id from NewID names one plant you mean to create: keep it across
// every retry and every settle of that create.
func ExampleNewID() {
	p := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Monstera deliciosa"}
	fmt.Println(p.ID > 0)
	// Output: true
}
