// Package baseline holds the yardsticks the plantstore client is measured
// against: the create-plant call a careful user writes by hand with net/http
// (with the SDK's four headers of today and with the six it sends once it
// sends the correlation pair), the client oapi-codegen generates for
// openapi.yaml, and a server that answers them all as cheaply as possible. The benchmarks in
// bench_test.go and the callgrind programs under internal/callgrind share it,
// so that every measurement compares the SDK with the same hand-written code.
package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/traffic"
)

// Token is the bearer token the benchmarks send. The servers here do not
// check it.
const Token = "bench-token"

// PlantBody is the fixed response of [Handler]: the Plant the benchmarks
// create.
const PlantBody = `{"name":"Monstera","tag":"indoor"}`

// Plant returns the plant the benchmarks create with the given id; the
// server's answer to it is [PlantBody].
func Plant(id int64) plantstore.NewPlant {
	return plantstore.NewPlant{ID: id, Name: "Monstera", Tag: "indoor"}
}

// NewHTTPClient returns what a careful user would build for many goroutines:
// the default transport's settings (proxy from the environment, dial, TLS
// and idle timeouts) with enough idle connections per host for every
// goroutine the benchmarks run, so that none has to dial again.
func NewHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 64
	t.ResponseHeaderTimeout = 30 * time.Second
	return &http.Client{Transport: t}
}

// maxResponseBytes caps the response body, as the SDK does.
const maxResponseBytes = 1 << 20

// StatusError is a non-200 answer to [CreatePlant].
type StatusError struct{ StatusCode int }

func (e *StatusError) Error() string {
	return fmt.Sprintf("create plant: unexpected status %d", e.StatusCode)
}

// UserAgent is the User-Agent every hand-written call sends.
const UserAgent = "plantstore-baseline/1"

// CreatePlant is the hand-written call: encode p, POST it to url with the
// JSON, Accept, Authorization and User-Agent headers, check the status,
// decode the Plant through a size cap, then drain (bounded) and close the
// body so the connection goes back to the pool. A non-200 status is a
// *StatusError.
func CreatePlant(ctx context.Context, hc *http.Client, url string, p plantstore.NewPlant) (*plantstore.Plant, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("create plant: encode: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("create plant: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+Token)
	req.Header.Set("User-Agent", UserAgent)
	return do(hc, req)
}

// do sends req and reads the answer as [CreatePlant] describes.
func do(hc *http.Client, req *http.Request) (*plantstore.Plant, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("create plant: %w", err)
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) //nolint:errcheck // best-effort drain for reuse
		resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return nil, &StatusError{StatusCode: resp.StatusCode}
	}
	var out plantstore.Plant
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(&out); err != nil {
		return nil, fmt.Errorf("create plant: decode: %w", err)
	}
	return &out, nil
}

var (
	plantBody   = []byte(PlantBody)
	contentType = []string{"application/json"}
)

// Handler answers every request with 200 and [PlantBody] after reading the
// request body: the cheapest server there is, so that a benchmark's time
// goes to the client.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a client that went away gets nothing either way
		w.Header()["Content-Type"] = contentType
		w.Write(plantBody) //nolint:errcheck // as above
	})
}

// Create is one create-plant call, by hand or through the SDK.
type Create func(ctx context.Context, p plantstore.NewPlant) error

// Impls are the implementations [NewCreate] knows, in the order the
// benchmarks run them.
var Impls = []string{"raw", "rawsix", "oapi", "sdk"}

// NewCreate returns impl's create-plant call against the API at baseURL, and
// a function that releases its idle connections. impl is one of [Impls]:
//
//   - "raw", [CreatePlant] on a [NewHTTPClient]: four headers;
//   - "rawsix", [CreatePlantSixHeaders] on a [NewHTTPClient]: the six
//     headers the SDK sends once it sends the correlation pair;
//   - "oapi", the client oapi-codegen generates for openapi.yaml (package
//     internal/oapi) on a [NewHTTPClient], sending the same six headers
//     through its request editor (see [NewOAPICreate]);
//   - "sdk", a plantstore.Client with the default options and opts;
//   - "sdk-traffic", the same recording its attempts with a
//     traffic.Recorder (issue 29), whose cost is measured against "sdk".
//
// opts apply to "sdk" and "sdk-traffic" only.
func NewCreate(impl, baseURL string, opts ...plantstore.Option) (Create, func(), error) {
	switch impl {
	case "raw":
		hc := NewHTTPClient()
		url := baseURL + "/plants"
		return func(ctx context.Context, p plantstore.NewPlant) error {
			_, err := CreatePlant(ctx, hc, url, p)
			return err
		}, hc.CloseIdleConnections, nil
	case "rawsix":
		hc := NewHTTPClient()
		url := baseURL + "/plants"
		return func(ctx context.Context, p plantstore.NewPlant) error {
			_, err := CreatePlantSixHeaders(ctx, hc, url, p)
			return err
		}, hc.CloseIdleConnections, nil
	case "oapi":
		return NewOAPICreate(baseURL)
	case "sdk", "sdk-traffic":
		if impl == "sdk-traffic" {
			opts = append(opts, plantstore.WithHooks(traffic.NewRecorder().Hooks()))
		}
		c, err := plantstore.NewClient(baseURL, append([]plantstore.Option{plantstore.WithToken(Token)}, opts...)...)
		if err != nil {
			return nil, nil, err
		}
		return func(ctx context.Context, p plantstore.NewPlant) error {
			_, err := c.CreatePlant(ctx, p)
			return err
		}, c.CloseIdleConnections, nil
	}
	return nil, nil, fmt.Errorf("unknown implementation %q: want one of %q or \"sdk-traffic\"", impl, Impls)
}
