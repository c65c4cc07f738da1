package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The base_url a create answers: made of the Host the create was sent to,
// refused when that Host cannot make a URL, and the listener's address
// when there is none (HTTP/1.0). The rule is the client's own
// (wire.ParseBaseURL); NewClient judges each base_url again here.

// nsServer is a Server with namespaces on, configured by c, ended with the
// test; requests go to its ServeHTTP directly, with any Host.
func nsServer(tb testing.TB, c Config) *Server {
	tb.Helper()
	h := plantstoretest.NewHandler(plantstoretest.WithToken(apiToken))
	s, err := New(h, nsConfig(c, 1000))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close(); h.Close() })
	return s
}

// serveWithHost sends method path to s with Host host and token (none
// when ""), and reads the reply.
func serveWithHost(s *Server, method, path, host, token string) reply {
	req := httptest.NewRequest(method, path, nil)
	req.Host = host
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return reply{w.Code, w.Header(), w.Body.Bytes()}
}

// checkBaseURL fails unless base is what a client can use: url.Parse and
// plantstore.NewClient accept it (over plain http, which the mock speaks).
func checkBaseURL(tb testing.TB, base string) {
	tb.Helper()
	if _, err := url.Parse(base); err != nil {
		tb.Errorf("url.Parse(base_url %q): %v", base, err)
	}
	if _, err := plantstore.NewClient(base, plantstore.WithToken("t"), plantstore.WithInsecureHTTP()); err != nil {
		tb.Errorf("NewClient(base_url %q): %v", base, err)
	}
}

// setups are the two ways a mock's control API is reached: open on
// loopback, and with an admin token (any Host).
var setups = []struct {
	name  string
	c     Config
	token string
}{
	{"open", Config{Loopback: true, ListenAddr: "127.0.0.1:8080"}, ""},
	{"admin token", Config{AdminToken: adminToken, ListenAddr: "0.0.0.0:8080"}, adminToken},
}

// TestNamespaceBaseURLFromHost: a Host that makes a well-formed URL makes
// the base_url; one that cannot is refused with 400 naming it, and
// nothing is created. The list, which shows base_urls too, holds the
// same rule.
func TestNamespaceBaseURLFromHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host     string
		usable   bool // it makes a well-formed URL
		loopback bool // the open control API serves it
	}{
		{"localhost", true, true},
		{"localhost:8080", true, true},
		{"127.0.0.1:1", true, true},
		{"127.1.2.3:65535", true, true},
		{"[::1]", true, true},
		{"[::1]:8080", true, true},
		{"LOCALHOST.", true, false},
		{"plantstore-mock:8080", true, false},
		{"plantstore_mock", true, false},
		{"mock.ci.example.com:443", true, false},
		{"[2001:db8::1]:80", true, false},
		// The issue's.
		{"x%2F..", false, false},
		{"[::1", false, false},
		{"evil.example:99999", false, false},
		{"evil.example:80x", false, false},
		{":8080", false, false},
		// A loopback name passes the open API's check, and is still no URL.
		{"localhost:99999", false, true},
		{"127.0.0.1:80x", false, false}, // Hostname() is all of it: not loopback
		{"localhost:0", false, true},
		{"localhost:", false, true},
		{"[::1]:", false, true},
		{"[::1]x", false, false},
		{"[::1]:+80", false, false},
		{"[fe80::1%en0]:80", false, false},
		{"[fe80::1%25en0]", true, false}, // a zone, escaped as a URL writes it
		{"[127.0.0.1]", false, true},
		{"::1", false, false},
		{"a:b:c", false, false},
		{"a b", false, false},
		{"a/b", false, false},
		{"a@b", false, false},
		{"a?b", false, false},
		{"a#b", false, false},
		{`a\b`, false, false},
		{"ä.example", true, false}, // a name in any script, as the client takes it (over the wire, net/http's 400 comes first)
		{"a<b", false, false},
		{"a;b", false, false},
		{"[]", false, false},
		{"[:80", false, false},
	}
	for _, setup := range setups {
		for _, tt := range tests {
			t.Run(setup.name+"/"+tt.host, func(t *testing.T) {
				s := nsServer(t, setup.c)
				rep := serveWithHost(s, "POST", namespacesPath, tt.host, setup.token)
				call := fmt.Sprintf("create with Host %q", tt.host)
				switch {
				case setup.name == "open" && !tt.loopback:
					wantError(t, call, rep, http.StatusForbidden, CodeForeignRequest)
				case !tt.usable:
					wantError(t, call, rep, http.StatusBadRequest, CodeBadControlRequest, fmt.Sprintf("Host %q", tt.host), "base_url")
					if s.ns.any() {
						t.Errorf("a refused create left a namespace")
					}
					wantError(t, "list with the same Host", serveWithHost(s, "GET", namespacesPath, tt.host, setup.token),
						http.StatusBadRequest, CodeBadControlRequest, fmt.Sprintf("Host %q", tt.host))
				default:
					nb := decode[namespaceBody](t, rep)
					if want := "http://" + tt.host + nsPrefix + nb.Namespace; rep.status != http.StatusCreated || nb.BaseURL != want {
						t.Fatalf("%s = %d, base_url %q; want 201 and %q", call, rep.status, nb.BaseURL, want)
					}
					checkBaseURL(t, nb.BaseURL)
					list := decode[[]namespaceBody](t, serveWithHost(s, "GET", namespacesPath, tt.host, setup.token))
					if len(list) != 1 || list[0].BaseURL != nb.BaseURL {
						t.Errorf("list = %+v, want one namespace at %s", list, nb.BaseURL)
					}
				}
			})
		}
	}
}

// FuzzNamespaceBaseURL: for any Host, in either setup, a create is refused
// or answers a base_url a client can use.
func FuzzNamespaceBaseURL(f *testing.F) {
	for _, host := range []string{"localhost:8080", "[::1]:1", "x%2F..", "[::1", "evil.example:99999", "evil.example:80x", ":8080", "", "a_b.c-d."} {
		f.Add(host, false)
		f.Add(host, true)
	}
	servers := []*Server{nsServer(f, setups[0].c), nsServer(f, setups[1].c)}
	f.Fuzz(func(t *testing.T, host string, admin bool) {
		i := 0
		if admin {
			i = 1
		}
		s := servers[i]
		rep := serveWithHost(s, "POST", namespacesPath, host, setups[i].token)
		switch rep.status {
		case http.StatusBadRequest, http.StatusForbidden:
			return
		case http.StatusCreated:
		default:
			t.Fatalf("create with Host %q = %d %s, want 201, 400 or 403", host, rep.status, rep.body)
		}
		var nb namespaceBody
		if err := json.Unmarshal(rep.body, &nb); err != nil {
			t.Fatalf("create with Host %q: %v", host, err)
		}
		checkBaseURL(t, nb.BaseURL)
		if ns := s.ns.byIDAlive(nb.Namespace); ns != nil {
			s.ns.end(ns)
		}
	})
}

// TestNamespaceCreateOverHTTP10: a create without a Host (HTTP/1.0,
// sent raw) answers a base_url on the listener's address in both setups,
// and a client using it reaches the namespace.
func TestNamespaceCreateOverHTTP10(t *testing.T) {
	t.Parallel()
	for _, setup := range setups {
		t.Run(setup.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewUnstartedServer(nil)
			c := setup.c
			c.ListenAddr = srv.Listener.Addr().String()
			srv.Config.Handler = nsServer(t, c)
			srv.Start()
			t.Cleanup(srv.Close)

			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			auth := ""
			if setup.token != "" {
				auth = "Authorization: Bearer " + setup.token + "\r\n"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.0\r\n%sContent-Length: 0\r\n\r\n", namespacesPath, auth)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			b.ReadFrom(resp.Body)
			nb := decode[namespaceBody](t, reply{resp.StatusCode, resp.Header, b.Bytes()})
			if want := srv.URL + nsPrefix + nb.Namespace; resp.StatusCode != http.StatusCreated || nb.BaseURL != want {
				t.Fatalf("HTTP/1.0 create without a Host = %d %s, base_url %q; want 201 and %q", resp.StatusCode, b.Bytes(), nb.BaseURL, want)
			}
			client, err := plantstore.NewClient(nb.BaseURL, plantstore.WithToken(nb.Token))
			if err != nil {
				t.Fatalf("NewClient(base_url): %v", err)
			}
			if _, err := client.CreatePlant(context.Background(), plantstore.NewPlant{ID: 1, Name: "Fern"}); err != nil {
				t.Fatalf("CreatePlant at the base_url: %v", err)
			}
		})
	}
}
