package plantstore

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// opGetPlant is GET /plants/{id}, an operation the service specification
// does not show, so the Client does not export it: a GET with no body and a
// path parameter that cannot store anything. It and getPlant are the whole
// of what a second operation costs; everything else is do's.
var opGetPlant = operation{
	name: "GetPlant", text: "get plant",
	method: http.MethodGet, path: "plants/{id}",
}

// getPlant returns the plant stored under id.
func (c *Client) getPlant(ctx context.Context, id int64, opts ...CallOption) (*Plant, error) {
	var out Plant
	err := c.do(ctx, opGetPlant, []string{strconv.FormatInt(id, 10)}, opts, nil,
		func(data []byte) error { return decodePlant(data, &out) })
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
		{"404", []reply{{status: 404, body: `{"error":5,"message":"no plant has id \"7\""}`}}, `plantstore: get plant: 404 Not Found: no plant has id "7" (error 5)`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t, tt.script...)
			var info CallInfo
			p, err := newTestClient(t, srv.URL).getPlant(context.Background(), 7, WithCallInfo(&info))
			if tt.wantErr == "" {
				if err != nil || p.Name != "Monstera" {
					t.Fatalf("getPlant(7) = %+v, %v, want Monstera", p, err)
				}
			} else {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("getPlant(7) error = %v, want it to start with %q", err, tt.wantErr)
				}
				if errors.Is(err, ErrMaybeCreated) || strings.Contains(err.Error(), "may have been created") {
					t.Errorf("getPlant(7) error = %q matches ErrMaybeCreated, want not: a GET stores nothing", err)
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

// TestOperationPathValues checks how do fills in an operation's path
// parameters: each value is one path segment, escaped as one, and a value
// that would name another path whatever its escaping is refused before
// anything is sent.
func TestOperationPathValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		values   []string
		wantPath string // as sent, escaped; "" when nothing may be sent
		wantErr  string
	}{
		{"digits", []string{"7"}, "/plants/7", ""},
		{"a slash stays in its segment", []string{"a/b"}, "/plants/a%2Fb", ""},
		{"a percent sign is escaped, not decoded", []string{"%2F"}, "/plants/%252F", ""},
		{"query and fragment characters", []string{"a?b#c d"}, "/plants/a%3Fb%23c%20d", ""},
		{"a dot among others", []string{".x."}, "/plants/.x.", ""},
		{"empty", []string{""}, "", `plantstore: get plant: path value {id} is "", which is not a path segment`},
		{"dot", []string{"."}, "", `plantstore: get plant: path value {id} is ".", which is not a path segment`},
		{"dot dot", []string{".."}, "", `plantstore: get plant: path value {id} is "..", which is not a path segment`},
		{"too few", nil, "", "plantstore: get plant: 0 path values for plants/{id}, which has 1"},
		{"too many", []string{"1", "2"}, "", "plantstore: get plant: 2 path values for plants/{id}, which has 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			var info CallInfo
			err := newTestClient(t, srv.URL+"/api/").do(context.Background(), opGetPlant, tt.values,
				[]CallOption{WithCallInfo(&info)}, nil, func([]byte) error { return nil })
			var sent []string
			for _, r := range srv.requests() {
				sent = append(sent, r.path)
			}
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("do(%q) error = %v, want %q", tt.values, err, tt.wantErr)
				}
				if len(sent) != 0 {
					t.Errorf("do(%q) sent %q, want nothing sent", tt.values, sent)
				}
				return
			}
			if err != nil {
				t.Fatalf("do(%q) error: %v", tt.values, err)
			}
			if diff := cmp.Diff([]string{"/api" + tt.wantPath}, sent); diff != "" {
				t.Errorf("do(%q) paths sent (-want +got):\n%s", tt.values, diff)
			}
			if want := srv.URL + "/api" + tt.wantPath; info.URL != want {
				t.Errorf("do(%q) CallInfo.URL = %q, want %q", tt.values, info.URL, want)
			}
		})
	}
}
