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
		srv := plantstoretest.NewServer(t)
		_, err := srv.Client().CreatePlant(context.Background(), plantstore.NewPlant{ID: 7, Name: "Monstera"})
		if err != nil {
			t.Fatalf("CreatePlant: %v", err)
		}
		if got := srv.Plants(); len(got) != 1 || got[0].Name != "Monstera" {
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
	fmt.Println("requests:", len(h.Requests()), "plants:", len(h.Plants()), "pending faults:", h.Pending())
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
