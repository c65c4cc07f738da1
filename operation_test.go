package plantstore

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// opGetPlantForTest is an operation the service specification does not
// show, so it is not exported: a GET with no body that cannot store
// anything. It proves that a second operation goes through the same code
// as CreatePlant and gets its own behaviour from its descriptor alone.
var opGetPlantForTest = operation{
	name: "GetPlant", text: "get plant",
	method: http.MethodGet, path: "plants/7",
}

// getPlantForTest is what a Client method for opGetPlantForTest would be.
func (c *Client) getPlantForTest(ctx context.Context, opts ...CallOption) (*Plant, error) {
	var out Plant
	err := c.do(ctx, opGetPlantForTest, opts, nil, func(data []byte) error { return json.Unmarshal(data, &out) })
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// TestOperationWithoutBodyThatCannotCreate checks that what an operation
// sends and what its failures say follow from its descriptor: a GET sends
// no body and no Content-Type, and no failure of it, not even one that
// would leave a create in doubt, says the plant "may have been created".
func TestOperationWithoutBodyThatCannotCreate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		script   []reply
		wantErr  string // the start of the error's text; "" for success
		attempts int
	}{
		{"success", []reply{{status: 200, body: `{"name":"Monstera"}`}}, "", 1},
		{"503 until retries run out", []reply{{status: 503}}, "plantstore: get plant: 503 Service Unavailable", 3},
		{"dropped after sending, every time", []reply{{drop: true}}, "plantstore: get plant: Get ", 3},
		{"500", []reply{{status: 500}}, "plantstore: get plant: 500 Internal Server Error", 1},
		{"unreadable 200", []reply{{status: 200, body: `[]`}}, "plantstore: get plant: decode response: ", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.script...)
			var info CallInfo
			p, err := newTestClient(t, srv.URL).getPlantForTest(context.Background(), WithCallInfo(&info))
			if tt.wantErr == "" {
				if err != nil || p.Name != "Monstera" {
					t.Fatalf("getPlantForTest() = %+v, %v, want Monstera", p, err)
				}
			} else {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("getPlantForTest() error = %v, want it to start with %q", err, tt.wantErr)
				}
				if errors.Is(err, ErrMaybeCreated) || strings.Contains(err.Error(), "may have been created") {
					t.Errorf("getPlantForTest() error = %q matches ErrMaybeCreated, want not: a GET stores nothing", err)
				}
			}
			if info.Operation != "GetPlant" || info.Method != http.MethodGet || info.URL != srv.URL+"/plants/7" || info.Attempts != tt.attempts {
				t.Errorf("CallInfo = %+v, want GetPlant GET %s/plants/7 after %d attempts", info, srv.URL, tt.attempts)
			}
			reqs := srv.requests()
			if len(reqs) != tt.attempts {
				t.Fatalf("server saw %d requests, want %d", len(reqs), tt.attempts)
			}
			for i, r := range reqs {
				got := map[string]string{
					"method": r.method, "path": r.path, "body": r.body,
					"Content-Type":   r.header.Get("Content-Type"),
					"Content-Length": r.header.Get("Content-Length"),
					"Accept":         r.header.Get("Accept"),
					"Authorization":  r.header.Get("Authorization"),
					"X-Retry-Count":  r.header.Get("X-Retry-Count"),
				}
				want := map[string]string{
					"method": "GET", "path": "/plants/7", "body": "",
					"Content-Type":   "",
					"Content-Length": "",
					"Accept":         "application/json",
					"Authorization":  "Bearer " + testToken,
					"X-Retry-Count":  string(rune('0' + i)),
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("attempt %d request mismatch (-want +got):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestCreatePlantFailureMayHaveCreated is the same failures through
// CreatePlant, whose descriptor says it may create: the contrast that
// shows the GET's answers come from its descriptor.
func TestCreatePlantFailureMayHaveCreated(t *testing.T) {
	t.Parallel()
	for _, script := range [][]reply{{{status: 503}}, {{drop: true}}, {{status: 200, body: `[]`}}} {
		srv := newStubServer(t, script...)
		_, err := newTestClient(t, srv.URL).CreatePlant(context.Background(), monstera)
		if !errors.Is(err, ErrMaybeCreated) || !strings.HasSuffix(err.Error(), maybeCreatedNote) {
			t.Errorf("CreatePlant after %+v: error = %v, want it to match ErrMaybeCreated", script[0], err)
		}
		if got := srv.requests()[0].header.Get("Content-Type"); got != "application/json" {
			t.Errorf("CreatePlant sent Content-Type %q, want application/json", got)
		}
	}
}
