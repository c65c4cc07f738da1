package plantstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

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
