package plantstoretest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The five-line setup: a fake server per test, a client wired to it, and
// the stored plants to check. The server closes when the test ends.
func ExampleNewServer() {
	_ = func(t *testing.T) {
		srv := plantstoretest.NewServer(t)                                      // closed by t.Cleanup
		srv.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable}) // optional: script a failure
		client := srv.Client()                                                  // wired to srv, fast retries
		// … exercise your code with client …
		if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"}); err != nil {
			t.Fatalf("CreatePlant: %v", err) // the 503 was retried
		}
		got := srv.Plants() // what was stored, in order
		if len(got) != 1 || got[0].Name != "Monstera" {
			t.Errorf("Plants() = %+v, want the Monstera", got)
		}
	}
}

// A Handler can be mounted in a server of your own.
func ExampleNewHandler() {
	h := plantstoretest.NewHandler(plantstoretest.WithToken("t0ken"))
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close() // runs first, releasing any scripted hangs

	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken("t0ken"))
	if err != nil {
		log.Fatal(err)
	}
	p, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera", Tag: "indoor"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %s (%s)\n", p.Name, p.Tag)
	fmt.Printf("stored %+v\n", h.Plants())
	// Output:
	// created Monstera (indoor)
	// stored [{ID:7 Name:Monstera Tag:indoor}]
}

// A 503 with Retry-After, answered once: the client retries and succeeds.
func ExampleHandler_Inject() {
	h := plantstoretest.NewHandler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	h.Inject(plantstoretest.Fault{
		Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"0"}},
	})
	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("requests:", len(h.Requests()), "plants:", len(h.Plants()), "pending faults:", len(h.Faults()))
	// Output:
	// requests: 2 plants: 1 pending faults: 0
}

// The plant is stored, then the connection drops before the response. The
// client retries, and the fake answers the retry as it answers any repeated
// id: with CodeDuplicateID. Code that creates plants should treat that
// answer to a retry as success.
func ExampleHandler_Inject_storedThenDropped() {
	h := plantstoretest.NewHandler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	h.Inject(plantstoretest.Fault{Store: true, Drop: true})
	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken),
		plantstore.WithRetryBackoff(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	var apiErr *plantstore.APIError
	if errors.As(err, &apiErr) && apiErr.Code == plantstoretest.CodeDuplicateID {
		fmt.Println("already stored:", apiErr.Message)
	}
	fmt.Printf("stored %+v\n", h.Plants())
	// Output:
	// already stored: plant 1 already exists
	// stored [{ID:1 Name:Fern Tag:}]
}

// A domain rule rejects plants the real service would refuse.
func ExampleWithRule() {
	h := plantstoretest.NewHandler(plantstoretest.WithRule(func(p plantstore.NewPlant) *plantstoretest.ErrorBody {
		if p.Tag == "" {
			return &plantstoretest.ErrorBody{Code: 1001, Message: "every plant needs a tag"}
		}
		return nil
	}))
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"})
	fmt.Println(err)
	// Output:
	// plantstore: create plant: 400 Bad Request: every plant needs a tag (error 1001)
}

// Requests shows what the client sent, with the token redacted.
func ExampleHandler_Requests() {
	h := plantstoretest.NewHandler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
		log.Fatal(err)
	}
	for _, r := range h.Requests() {
		fmt.Println(r.Method, r.Path, r.Header.Get("Authorization"), string(r.Body))
	}
	// Output:
	// POST /plants Bearer REDACTED {"id":1,"name":"Fern"}
}

// The journal tells what became of each request: here a 503 scripted with
// AddFault, then the retry that created the plant. A test can group a
// call's attempts by RequestID and RetryCount when its client sends them.
func ExampleHandler_Requests_outcomes() {
	h := plantstoretest.NewHandler()
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	if _, err := h.AddFault(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"0"}}}); err != nil {
		log.Fatal(err)
	}
	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
		log.Fatal(err)
	}
	for _, r := range h.Requests() {
		fmt.Printf("#%d %s %d fault=%q\n", r.Seq, r.Outcome, r.Status, r.Fault)
	}
	// Output:
	// #1 sent 503 fault="inject#1 1:503 retry-after=0"
	// #2 sent 200 fault=""
}

// AddFault is Inject for code that has no test to fail: it returns an error
// for a fault that cannot act as written, and the fault's ID otherwise.
func ExampleHandler_AddFault() {
	h := plantstoretest.NewHandler()
	defer h.Close()

	if _, err := h.AddFault(plantstoretest.Fault{Store: true}); err != nil {
		fmt.Println(err)
	}
	id, err := h.AddFault(plantstoretest.Fault{Status: http.StatusBadGateway, Times: 2})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range h.Faults() {
		fmt.Printf("fault #%d: %d replies left of %d\n", f.ID, f.Left, f.Times)
	}
	fmt.Println("added", id)
	// Output:
	// plantstoretest: invalid Fault: Store alone changes nothing; add Status, Header, Delay, Hang, Drop or GoAway
	// fault #1: 2 replies left of 2
	// added 1
}

// Seed stores plants as if they had been created, checked as POST /plants
// checks them: all of them, or none and an error naming the first bad one.
func ExampleHandler_Seed() {
	h := plantstoretest.NewHandler()
	defer h.Close()

	_, err := h.SeedJSON([]byte(`[{"id":1,"name":"Fern"},{"id":2,"name":"Ivy","tag":null}]`))
	fmt.Println(err)
	var seedErr *plantstoretest.SeedError
	if errors.As(err, &seedErr) {
		fmt.Println("index", seedErr.Index, "code", seedErr.Body.Code == plantstoretest.CodeInvalidPlant)
	}
	if err := h.Seed([]plantstore.NewPlant{{ID: 1, Name: "Fern"}, {ID: 2, Name: "Ivy"}}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("stored %+v\n", h.Plants())
	// Output:
	// plantstoretest: seed: plant 1: tag must be a string, got null
	// index 1 code true
	// stored [{ID:1 Name:Fern Tag:} {ID:2 Name:Ivy Tag:}]
}

// Over the rate, the fake answers 429 with a Retry-After that tells the
// truth: here one create per minute is allowed, so the second must wait.
func ExampleWithRateLimit() {
	h := plantstoretest.NewHandler(plantstoretest.WithRateLimit(1, time.Minute))
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	c, err := plantstore.NewClient(ts.URL, plantstore.WithToken(plantstoretest.DefaultToken), plantstore.WithMaxRetries(0))
	if err != nil {
		log.Fatal(err)
	}
	for id := int64(1); id <= 2; id++ {
		_, err := c.CreatePlant(context.Background(), plantstore.NewPlant{ID: id, Name: "Fern"})
		var apiErr *plantstore.APIError
		if errors.As(err, &apiErr) {
			fmt.Println(apiErr.StatusCode, apiErr.Code == plantstoretest.CodeRateLimited, apiErr.RetryAfter)
		}
	}
	fmt.Println("stored", len(h.Plants()), "journal:", h.Requests()[1].Fault)
	// Output:
	// 429 true 1m0s
	// stored 1 journal: rate-limit 2:429 retry-after=60
}
