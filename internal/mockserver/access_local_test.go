package mockserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
)

// TestOpenControlAPIRefusesWebPages: without an admin token, the control
// API is reachable from any web page a browser on this machine shows,
// unless it refuses what only a browser sends: a foreign Host (DNS
// rebinding), a foreign Origin, Sec-Fetch-Site cross-site or same-site, and
// a body that is not application/json (a CORS-simple request). Each refusal
// changes nothing.
func TestOpenControlAPIRefusesWebPages(t *testing.T) {
	t.Parallel()
	const fault = `{"status": 503}`
	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		header     map[string]string
		host       string // "" keeps the server's
		wantStatus int
		wantCode   int32
	}{
		{"simple cross-site fault", "POST", "/__plantstore/faults", fault,
			map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, "", 403, CodeForeignRequest},
		{"cross-site fault as JSON", "POST", "/__plantstore/faults", fault,
			map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, "", 403, CodeForeignRequest},
		{"opaque origin", "POST", "/__plantstore/reset", "",
			map[string]string{"Origin": "null"}, "", 403, CodeForeignRequest},
		{"another port on localhost", "POST", "/__plantstore/reset", "",
			map[string]string{"Origin": "http://localhost:3000"}, "", 403, CodeForeignRequest},
		{"cross-site fetch metadata", "DELETE", "/__plantstore/faults", "",
			map[string]string{"Sec-Fetch-Site": "cross-site"}, "", 403, CodeForeignRequest},
		{"same-site fetch metadata", "DELETE", "/__plantstore/requests", "",
			map[string]string{"Sec-Fetch-Site": "same-site"}, "", 403, CodeForeignRequest},
		{"DNS rebinding reset", "POST", "/__plantstore/reset", "", nil, "rebind.evil.example", 403, CodeForeignRequest},
		{"DNS rebinding with a port", "GET", "/__plantstore/requests", "", nil, "rebind.evil.example:8080", 403, CodeForeignRequest},
		{"a LAN address", "POST", "/__plantstore/reset", "", nil, "192.168.1.10:8080", 403, CodeForeignRequest},
		{"text/plain from curl", "POST", "/__plantstore/faults", fault,
			map[string]string{"Content-Type": "text/plain"}, "", 415, 3},
		{"form from curl -d", "POST", "/__plantstore/plants", `[]`,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "", 415, 3},
		{"no content type", "POST", "/__plantstore/faults", fault, nil, "", 415, 3},
		// What tools send passes.
		{"JSON with a charset", "POST", "/__plantstore/faults", fault,
			map[string]string{"Content-Type": "application/json; charset=utf-8"}, "", 201, 0},
		{"localhost", "POST", "/__plantstore/reset", "", nil, "localhost:8080", 204, 0},
		{"LOCALHOST without a port", "POST", "/__plantstore/reset", "", nil, "LOCALHOST", 204, 0},
		{"127.1.2.3", "POST", "/__plantstore/reset", "", nil, "127.1.2.3:9", 204, 0},
		{"::1", "POST", "/__plantstore/reset", "", nil, "[::1]:8080", 204, 0},
		{"the mock's own origin", "POST", "/__plantstore/reset", "",
			map[string]string{"Origin": "http://localhost:8080", "Sec-Fetch-Site": "same-origin"}, "localhost:8080", 204, 0},
		{"health from anywhere", "GET", "/__plantstore/health", "",
			map[string]string{"Origin": "http://evil.example"}, "rebind.evil.example", 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, h := openMock(t)
			create(t, srv, plantstore.NewPlant{ID: 1, Name: "Fern"})
			before := snapshot(h)
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tt.method, tt.path, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			rep := reply{status: resp.StatusCode, header: resp.Header, body: b}
			if tt.wantStatus >= 400 {
				wantError(t, tt.name, rep, tt.wantStatus, tt.wantCode)
				if diff := cmp.Diff(before, snapshot(h)); diff != "" {
					t.Errorf("state changed (-before +after):\n%s", diff)
				}
			} else if rep.status != tt.wantStatus {
				t.Errorf("%s %s = %d %s, want %d", tt.method, tt.path, rep.status, rep.body, tt.wantStatus)
			}
		})
	}
}

// TestAdminTokenAllowsAnyHost: with an admin token, other containers reach
// the control API by their own host names; bodies must still be JSON.
func TestAdminTokenAllowsAnyHost(t *testing.T) {
	t.Parallel()
	srv, _ := newMock(t, Config{AdminToken: adminToken, ListenAddr: "0.0.0.0:8080"})
	for _, tt := range []struct {
		ctype string
		want  int
	}{{"application/json", 201}, {"text/plain", 415}} {
		req, _ := http.NewRequest("POST", srv.URL+"/__plantstore/faults", strings.NewReader(`{"status": 503}`))
		req.Host = "plantstore:8080"
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", tt.ctype)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("POST faults with Host plantstore:8080, the admin token and %s = %d, want %d", tt.ctype, resp.StatusCode, tt.want)
		}
	}
}
