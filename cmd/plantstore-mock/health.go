package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/plantstore/plantstore-go/internal/mockserver"
)

// healthTimeout bounds the whole health check: connect, request and reply.
const healthTimeout = time.Second

// healthcheck asks the mock listening at addr (a -addr value) for its
// health, and returns 0 if it answers 200 {"status":"ok"} within
// healthTimeout, else 1 with the reason on stderr. An unspecified host
// (":8080", "0.0.0.0:8080") is asked on loopback, as a container's health
// check runs beside the server, by the rule the mock's own "listening on"
// line follows (mockserver.ClientURL).
func healthcheck(ctx context.Context, addr string, stderr io.Writer) int {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fail(stderr, 1, "plantstore-mock: healthcheck: -addr %q: %v", addr, err)
	}
	url := mockserver.ClientURL(addr) + mockserver.Prefix + "health"
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fail(stderr, 1, "plantstore-mock: healthcheck: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return fail(stderr, 1, "plantstore-mock: healthcheck: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 4<<10)).Decode(&body)
	if resp.StatusCode != http.StatusOK || err != nil || body.Status != "ok" {
		return fail(stderr, 1, "plantstore-mock: healthcheck: GET %s: status %d, body status %q, want 200 and \"ok\"", url, resp.StatusCode, body.Status)
	}
	return 0
}
