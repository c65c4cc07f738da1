package plantstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTokenFunc(t *testing.T) {
	t.Parallel()
	t.Run("called for every attempt", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 503}, reply{status: 200, body: `{"name":"Monstera"}`})
		var n atomic.Int32
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) {
			return fmt.Sprintf("token-%d", n.Add(1)), nil
		}))
		if _, err := c.CreatePlant(context.Background(), monstera); err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
		}
		var got []string
		for _, r := range srv.requests() {
			got = append(got, r.header.Get("Authorization"))
		}
		if diff := cmp.Diff([]string{"Bearer token-1", "Bearer token-2"}, got); diff != "" {
			t.Errorf("Authorization per attempt mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("error on first attempt sends nothing", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t)
		errVault := errors.New("vault sealed")
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) { return "", errVault }))
		_, err := c.CreatePlant(context.Background(), monstera)
		if !errors.Is(err, errVault) || errors.Is(err, ErrMaybeCreated) {
			t.Errorf("CreatePlant error = %v, want it to wrap %v and not ErrMaybeCreated", err, errVault)
		}
		if n := len(srv.requests()); n != 0 {
			t.Errorf("server saw %d requests, want 0", n)
		}
	})
	t.Run("error before a retry", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: 502})
		errVault := errors.New("vault sealed")
		var n atomic.Int32
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) {
			if n.Add(1) > 1 {
				return "", errVault
			}
			return "first", nil
		}))
		_, err := c.CreatePlant(context.Background(), monstera)
		if !errors.Is(err, errVault) || !errors.Is(err, ErrMaybeCreated) {
			t.Errorf("CreatePlant error = %v, want it to wrap %v and match ErrMaybeCreated after a 502", err, errVault)
		}
		if n := len(srv.requests()); n != 1 {
			t.Errorf("server saw %d requests, want 1: the retry had no token", n)
		}
	})
	t.Run("invalid token is refused without echoing it", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t)
		c := newTestClient(t, srv.URL, WithTokenFunc(func(context.Context) (string, error) { return "se cret", nil }))
		_, err := c.CreatePlant(context.Background(), monstera)
		want := "plantstore: create plant: token from token func has an invalid character at byte 2 (want visible ASCII)"
		if err == nil || err.Error() != want {
			t.Errorf("CreatePlant error = %v, want %q", err, want)
		}
		if err == nil || strings.Contains(err.Error(), "se cret") {
			t.Errorf("CreatePlant error = %v, want an invalid-token error without the token", err)
		}
	})
}

// authTransport sets Authorization on each request itself, as an oauth2
// client's transport does.
type authTransport struct{ token string }

func (t authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context()) // a RoundTripper must not modify its request
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestTransportAuth(t *testing.T) {
	t.Parallel()
	const token = "oauth-access-token"
	newClient := func(t *testing.T, url string) *Client {
		t.Helper()
		c, err := NewClient(url, WithHTTPClient(&http.Client{Transport: authTransport{token}}), WithTransportAuth(),
			WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
		if err != nil {
			t.Fatalf("NewClient(%q) error: %v", url, err)
		}
		return c
	}

	t.Run("authenticates every attempt once", func(t *testing.T) {
		t.Parallel()
		srv := newStubServer(t, reply{status: http.StatusServiceUnavailable}, reply{status: http.StatusOK, body: `{"name":"Monstera"}`})
		if _, err := newClient(t, srv.URL).CreatePlant(context.Background(), monstera); err != nil {
			t.Fatalf("CreatePlant(%+v) error: %v", monstera, err)
		}
		var got [][]string
		for _, r := range srv.requests() {
			got = append(got, r.header.Values("Authorization"))
		}
		want := [][]string{{"Bearer " + token}, {"Bearer " + token}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Authorization of each attempt mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("redirects", func(t *testing.T) {
		t.Parallel()
		for _, sameOrigin := range []bool{true, false} {
			target := newStubServer(t)
			front := newRedirector(t, target, sameOrigin)
			_, err := newClient(t, front.URL).CreatePlant(context.Background(), monstera)
			reqs := target.requests()
			if sameOrigin {
				if err != nil || len(reqs) != 1 || reqs[0].header.Get("Authorization") != "Bearer "+token {
					t.Errorf("same-origin redirect: error %v, %d requests followed, want it followed with the token", err, len(reqs))
				}
				continue
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect ||
				apiErr.Message != "redirect to "+target.URL+"/moved" {
				t.Errorf("cross-origin redirect: error = %v, want the 307 as an *APIError naming its target", err)
			}
			if len(reqs) != 0 {
				t.Errorf("cross-origin redirect: the other origin saw %d requests, want none", len(reqs))
			}
		}
	})

	t.Run("echoed token is redacted", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":1,"message":"seen `+r.Header.Get("Authorization")+`"}`)
		}))
		t.Cleanup(srv.Close)
		_, err := newClient(t, srv.URL).CreatePlant(context.Background(), monstera)
		if err == nil || strings.Contains(err.Error(), token) || !strings.Contains(err.Error(), "seen Bearer REDACTED") {
			t.Errorf("CreatePlant error = %v, want the echoed token redacted", err)
		}
	})
}

func TestClientDoesNotPrintItsToken(t *testing.T) {
	t.Parallel()
	for _, opt := range []Option{WithToken(testToken), WithTokenFunc(func(context.Context) (string, error) { return testToken, nil })} {
		c := newTestClient(t, "https://plants.example.com", opt)
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if out := fmt.Sprintf(verb, c); strings.Contains(out, testToken) {
				t.Errorf("fmt.Sprintf(%q, client) = %s, which contains the token", verb, out)
			}
		}
	}
}
