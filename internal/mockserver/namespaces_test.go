package mockserver

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// nsConfig turns namespaces on in c, up to max of them.
func nsConfig(c Config, max int) Config {
	c.Namespaces = NamespaceConfig{
		Max:       max,
		Options:   []plantstoretest.Option{plantstoretest.WithToken(apiToken), plantstoretest.WithJournalBodyLimit(JournalBodyLimit)},
		APIToken:  apiToken,
		MaxPlants: 100,
	}
	return c
}

// nsMock is an open mock (loopback, no admin token) with namespaces on.
func nsMock(t *testing.T, max int) (*httptest.Server, *plantstoretest.Handler) {
	t.Helper()
	return newMock(t, nsConfig(Config{Loopback: true}, max))
}

// created is a namespace as its create answered: its id, token, and the
// path of its base_url on the test's server.
type created struct {
	namespaceBody
	path string
}

// createNS creates a namespace with body (none when nil), opened by token.
func createNS(t *testing.T, srv *httptest.Server, body []byte, token string) created {
	t.Helper()
	rep := call(t, srv, "POST", namespacesPath, body, token)
	if rep.status != http.StatusCreated {
		t.Fatalf("POST %s = %d %s, want 201", namespacesPath, rep.status, rep.body)
	}
	nb := decode[namespaceBody](t, rep)
	path, ok := strings.CutPrefix(nb.BaseURL, srv.URL)
	if !ok {
		t.Fatalf("base_url %q is not on the mock's URL %s", nb.BaseURL, srv.URL)
	}
	return created{nb, path}
}

func listNS(t *testing.T, srv *httptest.Server, token string) []namespaceBody {
	t.Helper()
	rep := call(t, srv, "GET", namespacesPath, nil, token)
	if rep.status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", namespacesPath, rep.status, rep.body)
	}
	return decode[[]namespaceBody](t, rep)
}

func plantJSON(id int) []byte { return []byte(fmt.Sprintf(`{"id":%d,"name":"p%d"}`, id, id)) }

func plantsOf(t *testing.T, srv *httptest.Server, controlPath, token string) []plantstore.NewPlant {
	t.Helper()
	rep := call(t, srv, "GET", controlPath+"plants", nil, token)
	if rep.status != http.StatusOK {
		t.Fatalf("GET %splants = %d %s", controlPath, rep.status, rep.body)
	}
	return decode[[]plantstore.NewPlant](t, rep)
}

func TestNamespaceCreate(t *testing.T) {
	srv, _ := nsMock(t, 10)
	a := createNS(t, srv, nil, "")
	b := createNS(t, srv, []byte(`{"ttl":"90s","max_plants":2,"label":"job-17"}`), "")
	hex := regexp.MustCompile(`^[0-9a-f]+$`)
	for _, ns := range []created{a, b} {
		if len(ns.Namespace) != 32 || !hex.MatchString(ns.Namespace) || len(ns.Token) != 64 || !hex.MatchString(ns.Token) {
			t.Errorf("namespace %q, token of %d bytes: want 32 and 64 hex digits", ns.Namespace, len(ns.Token))
		}
		if want := srv.URL + "/__plantstore/ns/" + ns.Namespace; ns.BaseURL != want {
			t.Errorf("base_url = %q, want %q", ns.BaseURL, want)
		}
	}
	if a.Namespace == b.Namespace || a.Token == b.Token {
		t.Errorf("two creates gave the same id or token")
	}
	got := []any{a.TTL, a.MaxPlants, a.Label, b.TTL, b.MaxPlants, b.Label, b.ExpiresAt.Sub(b.CreatedAt)}
	want := []any{"10m0s", 100, "", "1m30s", 2, "job-17", 90 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ttl, max_plants, label (-want +got):\n%s", diff)
	}
	// max_plants holds.
	for id, status := range []int{200, 200, 400} {
		if rep := call(t, srv, "POST", b.path+"/plants", plantJSON(id), b.Token); rep.status != status {
			t.Errorf("create %d in a namespace of max_plants 2 = %d %s, want %d", id, rep.status, rep.body, status)
		}
	}
	// The list shows both, oldest first, without tokens.
	list := listNS(t, srv, "")
	a.Token, b.Token = "", ""
	if diff := cmp.Diff([]string{a.Namespace, b.Namespace}, []string{list[0].Namespace, list[1].Namespace}); len(list) != 2 || diff != "" {
		t.Fatalf("list = %+v, want a then b", list)
	}
	if list[0].Token != "" || list[1].Token != "" {
		t.Errorf("the list shows a token")
	}
}

// TestNamespaceIsolates runs jobs in namespaces of their own, and one on
// the default namespace, concurrently, each seeding, queueing a fault,
// creating, reading its journal and resetting: each sees only its own.
func TestNamespaceIsolates(t *testing.T) {
	srv, h := nsMock(t, 100)
	jobs, rounds := 8, 40
	if testing.Short() {
		rounds = 10
	}
	var wg sync.WaitGroup
	var defaultCreates atomic.Int64
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the default namespace's traffic, throughout
		defer wg.Done()
		for i := 1_000_000; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if rep := call(t, srv, "POST", "/plants", plantJSON(i), apiToken); rep.status != 200 {
				t.Errorf("default create = %d %s", rep.status, rep.body)
				return
			}
			defaultCreates.Add(1)
		}
	}()
	var jobsWG sync.WaitGroup
	for j := 0; j < jobs; j++ {
		jobsWG.Add(1)
		go func() {
			defer jobsWG.Done()
			ns := createNS(t, srv, nil, "")
			// Half the jobs reach their API at the mock's root with their
			// token, as an application whose base URL is fixed does.
			api := ns.path + "/plants"
			if j%2 == 1 {
				api = "/plants"
			}
			ctl := ns.path + Prefix
			for i := 0; i < rounds; i++ {
				steps := []struct {
					method, path, body string
					want               int
				}{
					{"POST", ctl + "plants", fmt.Sprintf(`[{"id":%d,"name":"seed"}]`, 1000+i), 201},
					{"POST", ctl + "faults", `{"status":503,"match":{"id":` + fmt.Sprint(i) + `}}`, 201},
					{"POST", api, string(plantJSON(i)), 503},
					{"POST", api, string(plantJSON(i)), 200},
				}
				for _, s := range steps {
					if rep := call(t, srv, s.method, s.path, []byte(s.body), ns.Token); rep.status != s.want {
						t.Errorf("job %d round %d: %s %s = %d %s, want %d", j, i, s.method, s.path, rep.status, rep.body, s.want)
						return
					}
				}
				journal := decode[[]journalEntry](t, call(t, srv, "GET", ctl+"requests", nil, ns.Token))
				var statuses []int
				for _, e := range journal {
					statuses = append(statuses, e.Status)
				}
				if diff := cmp.Diff([]int{503, 200}, statuses); diff != "" {
					t.Errorf("job %d round %d: journal statuses (-want +got):\n%s", j, i, diff)
				}
				if diff := cmp.Diff([]plantstore.NewPlant{{ID: int64(1000 + i), Name: "seed"}, {ID: int64(i), Name: fmt.Sprintf("p%d", i)}},
					plantsOf(t, srv, ctl, ns.Token)); diff != "" {
					t.Errorf("job %d round %d: plants (-want +got):\n%s", j, i, diff)
				}
				if rep := call(t, srv, "POST", ctl+"reset", nil, ns.Token); rep.status != http.StatusNoContent {
					t.Errorf("job %d: reset = %d %s", j, rep.status, rep.body)
				}
			}
		}()
	}
	jobsWG.Wait()
	close(stop)
	wg.Wait()
	if got, want := int64(len(h.Plants())), defaultCreates.Load(); got != want {
		t.Errorf("the default namespace holds %d plants, want its own %d", got, want)
	}
	for _, r := range h.Requests() {
		if r.Status != 200 || r.Plant.ID < 1_000_000 {
			t.Fatalf("the default namespace journaled a request not its own: %d %+v", r.Status, r.Plant)
		}
	}
	if len(h.Faults()) != 0 {
		t.Errorf("the default namespace has faults %+v", h.Faults())
	}
}

// TestNamespaceAccess checks who opens what, in each access mode that can
// create namespaces.
func TestNamespaceAccess(t *testing.T) {
	for _, mode := range []string{"open", "admin token"} {
		t.Run(mode, func(t *testing.T) {
			c := Config{Loopback: true}
			creator := ""
			if mode == "admin token" {
				c, creator = Config{AdminToken: adminToken, ListenAddr: "192.0.2.1:8080"}, adminToken
			}
			srv, h := newMock(t, nsConfig(c, 10))
			a := createNS(t, srv, nil, creator)
			b := createNS(t, srv, nil, creator)
			mockControl := 200 // what the mock's control access gets in a namespace's control API
			noToken := 200
			if mode == "admin token" {
				noToken = 401
			}
			tests := []struct {
				name, method, path, token string
				body                      []byte
				want                      int
			}{
				{"a's API, a's token", "POST", a.path + "/plants", a.Token, plantJSON(1), 200},
				{"a's API, the API token", "POST", a.path + "/plants", apiToken, plantJSON(2), 200},
				{"a's API, b's token", "POST", a.path + "/plants", b.Token, plantJSON(3), 401},
				{"a's API, the admin token", "POST", a.path + "/plants", adminToken, plantJSON(3), 401},
				{"a's API, no token", "POST", a.path + "/plants", "", plantJSON(3), 401},
				{"the root API, a's token", "POST", "/plants", a.Token, plantJSON(4), 200},
				{"a's control, a's token", "GET", a.path + "/__plantstore/requests", a.Token, nil, 200},
				{"a's control, b's token", "GET", a.path + "/__plantstore/requests", b.Token, nil, 401},
				{"a's control, the API token", "GET", a.path + "/__plantstore/requests", apiToken, nil, noToken},
				{"a's control, the mock's access", "GET", a.path + "/__plantstore/requests", creator, nil, mockControl},
				{"a's control, no token", "GET", a.path + "/__plantstore/requests", "", nil, noToken},
				{"a's health, b's token", "GET", a.path + "/__plantstore/health", b.Token, nil, 200},
				{"the mock's control, a's token", "GET", "/__plantstore/requests", a.Token, nil, 401},
				{"the mock's reset, a's token", "POST", "/__plantstore/reset", a.Token, nil, 401},
				{"the mock's namespaces, a's token", "POST", namespacesPath, a.Token, nil, 401},
				{"the mock's health, a's token", "GET", "/__plantstore/health", a.Token, nil, 200},
				{"a namespace's namespaces", "GET", a.path + namespacesPath, a.Token, nil, 404},
			}
			for _, tt := range tests {
				rep := call(t, srv, tt.method, tt.path, tt.body, tt.token)
				if rep.status != tt.want {
					t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, tt.path, rep.status, rep.body, tt.want)
				}
				if rep.status >= 400 && !bytes.Contains(rep.body, []byte(`"message"`)) {
					t.Errorf("%s: refusal without an error body: %s", tt.name, rep.body)
				}
			}
			wantPlants := []plantstore.NewPlant{{ID: 1, Name: "p1"}, {ID: 2, Name: "p2"}, {ID: 4, Name: "p4"}}
			if diff := cmp.Diff(wantPlants, plantsOf(t, srv, a.path+Prefix, a.Token)); diff != "" {
				t.Errorf("a's plants (-want +got):\n%s", diff)
			}
			if got := plantsOf(t, srv, b.path+Prefix, b.Token); len(got) != 0 {
				t.Errorf("b's plants = %v, want none", got)
			}
			if got := h.Plants(); len(got) != 0 {
				t.Errorf("the default namespace's plants = %v, want none", got)
			}
		})
	}
	t.Run("control API off", func(t *testing.T) {
		srv, _ := newMock(t, nsConfig(Config{ListenAddr: "192.0.2.1:8080"}, 10))
		wantError(t, "create", call(t, srv, "POST", namespacesPath, nil, ""), 404, plantstoretest.CodeNotFound, "control API is off")
	})
}

func TestNamespaceEnd(t *testing.T) {
	srv, h := nsMock(t, 10)
	a := createNS(t, srv, nil, "")
	b := createNS(t, srv, nil, "")
	if rep := call(t, srv, "POST", a.path+"/plants", plantJSON(1), a.Token); rep.status != 200 {
		t.Fatalf("create = %d %s", rep.status, rep.body)
	}
	if rep := call(t, srv, "DELETE", namespacesPath+"/"+a.Namespace, nil, ""); rep.status != http.StatusNoContent {
		t.Fatalf("DELETE = %d %s, want 204", rep.status, rep.body)
	}
	for _, c := range []struct {
		method, path, token string
		body                []byte
	}{
		{"POST", a.path + "/plants", a.Token, plantJSON(2)},
		{"POST", a.path + "/plants", apiToken, plantJSON(2)},
		{"GET", a.path + "/__plantstore/plants", "", nil},
		{"DELETE", namespacesPath + "/" + a.Namespace, "", nil},
	} {
		wantError(t, c.method+" "+c.path, call(t, srv, c.method, c.path, c.body, c.token), 404, plantstoretest.CodeNotFound, "no namespace", "ended")
	}
	// Its token is now nobody's: at the root it is the default's wrong token.
	wantError(t, "root create with an ended namespace's token", call(t, srv, "POST", "/plants", plantJSON(3), a.Token), 401, plantstoretest.CodeUnauthorized)
	if list := listNS(t, srv, ""); len(list) != 1 || list[0].Namespace != b.Namespace {
		t.Errorf("list after DELETE = %+v, want b alone", list)
	}
	if len(h.Requests()) != 1 {
		t.Errorf("the default journaled %d requests, want the one with a's dead token", len(h.Requests()))
	}
}

// TestNamespaceEndsItself checks that a namespace's token ends its own
// namespace with the mock's DELETE /__plantstore/namespaces/{id}, so that
// a job's teardown needs no admin token; and that it opens nothing else of
// the mock's control API: not another namespace's end, nor the same path
// by another method or spelling.
func TestNamespaceEndsItself(t *testing.T) {
	for _, mode := range []string{"open", "admin token"} {
		t.Run(mode, func(t *testing.T) {
			c, creator := Config{Loopback: true}, ""
			if mode == "admin token" {
				c, creator = Config{AdminToken: adminToken, ListenAddr: "192.0.2.1:8080"}, adminToken
			}
			srv, _ := newMock(t, nsConfig(c, 10))
			a := createNS(t, srv, nil, creator)
			b := createNS(t, srv, nil, creator)
			own := namespacesPath + "/" + a.Namespace
			for _, tt := range []struct {
				name, method, path, token string
			}{
				{"b's token, a's end", "DELETE", own, b.Token},
				{"a's token, b's end", "DELETE", namespacesPath + "/" + b.Namespace, a.Token},
				{"a's token, its end by GET", "GET", own, a.Token},
				{"a's token, its end with a slash", "DELETE", own + "/", a.Token},
				{"a's token, its end with an escaped digit", "DELETE", namespacesPath + "/%" + fmt.Sprintf("%X", a.Namespace[0]) + a.Namespace[1:], a.Token},
				{"a's token, the list", "GET", namespacesPath, a.Token},
			} {
				wantError(t, tt.name, call(t, srv, tt.method, tt.path, nil, tt.token), http.StatusUnauthorized, plantstoretest.CodeUnauthorized, "namespace's token")
			}
			if n := len(listNS(t, srv, creator)); n != 2 {
				t.Fatalf("%d namespaces after the refusals, want both", n)
			}
			if rep := call(t, srv, "DELETE", own, nil, a.Token); rep.status != http.StatusNoContent || len(rep.body) != 0 {
				t.Fatalf("DELETE %s with its own token = %d %s, want 204", own, rep.status, rep.body)
			}
			wantError(t, "a's API after its end", call(t, srv, "POST", a.path+"/plants", plantJSON(1), a.Token), 404, plantstoretest.CodeNotFound, "no namespace")
			if list := listNS(t, srv, creator); len(list) != 1 || list[0].Namespace != b.Namespace {
				t.Errorf("list after a ended itself = %+v, want b alone", list)
			}
		})
	}
}

// fakeClock makes s's namespaces read a clock that stands still until
// advance moves it; now reads it.
func fakeClock(s *Server) (now func() time.Time, advance func(time.Duration)) {
	t := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now = func() time.Time { mu.Lock(); defer mu.Unlock(); return t }
	s.ns.now = now
	return now, func(d time.Duration) { mu.Lock(); t = t.Add(d); mu.Unlock() }
}

func TestNamespaceTTL(t *testing.T) {
	srv, _ := nsMock(t, 10)
	s := srv.Config.Handler.(*Server)
	now, advance := fakeClock(s)
	used := createNS(t, srv, []byte(`{"ttl":"1m"}`), "")
	idle := createNS(t, srv, []byte(`{"ttl":"1m"}`), "")
	for i := 0; i < 3; i++ {
		advance(40 * time.Second)
		if rep := call(t, srv, "POST", "/plants", plantJSON(i), used.Token); rep.status != 200 {
			t.Fatalf("create at the root with a used namespace's token = %d %s", rep.status, rep.body)
		}
	}
	wantError(t, "the idle namespace", call(t, srv, "GET", idle.path+"/__plantstore/plants", nil, idle.Token), 404, plantstoretest.CodeNotFound, "idle past its ttl")
	list := listNS(t, srv, "")
	if len(list) != 1 || list[0].Namespace != used.Namespace {
		t.Errorf("list = %+v, want the used namespace alone", list)
	}
	if got, want := list[0].ExpiresAt, now().Add(time.Minute); !got.Equal(want) {
		t.Errorf("expires_at = %v, want %v", got, want)
	}
}

// TestNamespaceCapOfOne: the refusal counts the one namespace live in
// words that agree with it.
func TestNamespaceCapOfOne(t *testing.T) {
	srv, _ := nsMock(t, 1)
	createNS(t, srv, nil, "")
	wantError(t, "a second create", call(t, srv, "POST", namespacesPath, nil, ""), http.StatusConflict, CodeNamespaceLimit,
		"1 namespace live,", "-max-namespaces")
}

func TestNamespaceCap(t *testing.T) {
	srv, _ := nsMock(t, 2)
	a := createNS(t, srv, nil, "")
	createNS(t, srv, nil, "")
	wantError(t, "a third create", call(t, srv, "POST", namespacesPath, []byte(`{"label":"x"}`), ""), http.StatusConflict, CodeNamespaceLimit,
		"2 namespaces live", "-max-namespaces")
	if n := len(listNS(t, srv, "")); n != 2 {
		t.Errorf("%d namespaces after the refusal, want 2", n)
	}
	call(t, srv, "DELETE", namespacesPath+"/"+a.Namespace, nil, "")
	createNS(t, srv, nil, "")
	t.Run("concurrent creates", func(t *testing.T) {
		srv, _ := nsMock(t, 5)
		var ok atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if rep := call(t, srv, "POST", namespacesPath, nil, ""); rep.status == http.StatusCreated {
					ok.Add(1)
				} else if rep.status != http.StatusConflict {
					t.Errorf("create = %d %s", rep.status, rep.body)
				}
			}()
		}
		wg.Wait()
		if ok.Load() != 5 || len(listNS(t, srv, "")) != 5 {
			t.Errorf("%d creates of 20 succeeded, want 5, the cap", ok.Load())
		}
	})
}

func TestNamespaceBadCreate(t *testing.T) {
	srv, _ := nsMock(t, 10)
	tests := []struct {
		name, body, contentType string
		status                  int
		code                    int32
		msg                     string
	}{
		{"unknown field", `{"tll":"1m"}`, "application/json", 400, plantstoretest.CodeInvalidJSON, "tll"},
		{"repeated field", `{"ttl":"1m","ttl":"2m"}`, "application/json", 400, plantstoretest.CodeInvalidJSON, "ttl"},
		{"ttl not a duration", `{"ttl":"soon"}`, "application/json", 400, CodeBadControlRequest, "ttl"},
		{"ttl a number", `{"ttl":60}`, "application/json", 400, plantstoretest.CodeInvalidJSON, "ttl"},
		{"ttl too short", `{"ttl":"10ms"}`, "application/json", 400, CodeBadControlRequest, "1s to 24h"},
		{"ttl too long", `{"ttl":"25h"}`, "application/json", 400, CodeBadControlRequest, "1s to 24h"},
		{"max_plants negative", `{"max_plants":-1}`, "application/json", 400, CodeBadControlRequest, "-max-plants"},
		{"max_plants past the mock's", `{"max_plants":101}`, "application/json", 400, CodeBadControlRequest, "0 to 100"},
		{"label too long", `{"label":"` + strings.Repeat("x", 101) + `"}`, "application/json", 400, CodeBadControlRequest, "longer than 100 characters"},
		{"label with a control character", `{"label":"a\nb"}`, "application/json", 400, CodeBadControlRequest, "printable"},
		{"label with a bidi override", `{"label":"job-\u202e71"}`, "application/json", 400, CodeBadControlRequest, "printable"},
		{"null", `null`, "application/json", 400, plantstoretest.CodeInvalidJSON, "null"},
		{"an array", `[]`, "application/json", 400, plantstoretest.CodeInvalidJSON, ""},
		{"a form", `{"ttl":"1m"}`, "application/x-www-form-urlencoded", 415, plantstoretest.CodeContentType, "application/json"},
		{"too large", `{"label":"` + strings.Repeat("x", 2000) + `"}`, "application/json", 413, plantstoretest.CodeTooLarge, ""},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("POST", srv.URL+namespacesPath, strings.NewReader(tt.body))
		req.Header.Set("Content-Type", tt.contentType)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		wantError(t, tt.name, reply{resp.StatusCode, resp.Header, b.Bytes()}, tt.status, tt.code, tt.msg)
	}
	if list := listNS(t, srv, ""); len(list) != 0 {
		t.Errorf("refused creates left namespaces: %+v", list)
	}
}

// rawGet sends path exactly as given, which net/http's client would
// clean or encode, and reads the reply.
func rawGet(t *testing.T, srv *httptest.Server, method, path, token string) reply {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		method, path, srv.Listener.Addr(), token)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return reply{resp.StatusCode, resp.Header, b.Bytes()}
}

// TestNamespaceHostilePaths sends path tricks that name another namespace,
// or none: each is a 404 that says so, and reaches no namespace.
func TestNamespaceHostilePaths(t *testing.T) {
	srv, h := nsMock(t, 10)
	a := createNS(t, srv, nil, "")
	b := createNS(t, srv, nil, "")
	ns := "/__plantstore/ns/"
	long := strings.Repeat("a", 1024)
	paths := []string{
		ns + "../plants",
		ns + "%2e%2e/plants",
		ns + "%2E%2E/__plantstore/reset",
		ns + a.Namespace + "%2F..%2F" + b.Namespace + "/__plantstore/reset",
		ns + a.Namespace + "%2fplants",
		ns + strings.ToUpper(a.Namespace) + "/plants",
		ns + a.Namespace[:31] + "/plants",
		ns + a.Namespace + "0/plants",
		ns + long + "/plants",
		ns + "%C3%A9" + a.Namespace[2:] + "/plants",
		ns + "é" + a.Namespace[2:] + "/plants",
		ns + "/plants",
		ns,
	}
	for _, p := range paths {
		for _, method := range []string{"POST", "GET"} {
			rep := rawGet(t, srv, method, p, b.Token)
			wantError(t, method+" "+truncate(p, 80), rep, 404, plantstoretest.CodeNotFound, "no namespace")
			if len(rep.body) > 400 {
				t.Errorf("%s: a 404 of %d bytes echoes too much", truncate(p, 80), len(rep.body))
			}
		}
	}
	// Tricks inside a namespace stay in it: its own 404s.
	for _, p := range []string{a.path + "/../plants", a.path + "/../" + b.Namespace + "/__plantstore/reset", a.path + "/__plantstore/../__plantstore/reset", a.path + "/__plantstore/%2e%2e/reset"} {
		if rep := rawGet(t, srv, "POST", p, a.Token); rep.status != 404 {
			t.Errorf("POST %s = %d %s, want a's own 404", p, rep.status, rep.body)
		}
	}
	for _, x := range []created{a, b} {
		for _, r := range decode[[]journalEntry](t, call(t, srv, "GET", x.path+Prefix+"requests", nil, x.Token)) {
			if x.Namespace == b.Namespace || !strings.Contains(r.Path, "..") {
				t.Errorf("namespace %s journaled %s %s", x.Namespace[:6], r.Method, r.Path)
			}
		}
	}
	if n := len(h.Requests()); n != 0 {
		t.Errorf("the default namespace journaled %d requests, want none", n)
	}
}

// TestNamespaceTokensUnseen checks that a namespace's token is in no log,
// journal, list or error message.
func TestNamespaceTokensUnseen(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := nsConfig(Config{Loopback: true, Logger: logger}, 10)
	c.Namespaces.Options = append(c.Namespaces.Options, plantstoretest.WithLogger(logger))
	srv, _ := newMock(t, c)
	a := createNS(t, srv, nil, "")
	b := createNS(t, srv, nil, "")
	var seen bytes.Buffer
	for _, r := range []reply{
		call(t, srv, "POST", a.path+"/plants", plantJSON(1), a.Token),
		call(t, srv, "POST", "/plants", plantJSON(2), a.Token),
		call(t, srv, "POST", a.path+"/plants", plantJSON(3), b.Token),
		call(t, srv, "GET", "/__plantstore/requests", nil, a.Token),
		call(t, srv, "GET", a.path+"/__plantstore/requests", nil, b.Token),
		call(t, srv, "GET", a.path+"/__plantstore/requests", nil, a.Token),
		call(t, srv, "GET", namespacesPath, nil, ""),
	} {
		seen.Write(r.body)
	}
	mu.Lock()
	seen.Write(logs.Bytes())
	mu.Unlock()
	for _, tok := range []string{a.Token, b.Token} {
		if bytes.Contains(seen.Bytes(), []byte(tok)) {
			t.Errorf("a namespace's token appears in a log, journal, list or error")
		}
	}
	if !bytes.Contains(seen.Bytes(), []byte("Bearer REDACTED")) || !bytes.Contains(seen.Bytes(), []byte(a.Namespace)) {
		t.Errorf("the journal or the list is missing: %s", seen.Bytes())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestNamespaceResets checks that the mock's reset leaves namespaces
// alone, and a namespace's reset leaves the mock's.
func TestNamespaceResets(t *testing.T) {
	srv, h := nsMock(t, 10)
	a := createNS(t, srv, nil, "")
	call(t, srv, "POST", "/plants", plantJSON(1), apiToken)
	call(t, srv, "POST", a.path+"/plants", plantJSON(2), apiToken)
	call(t, srv, "POST", "/__plantstore/reset", nil, "")
	if got := plantsOf(t, srv, a.path+Prefix, ""); len(got) != 1 || len(h.Plants()) != 0 {
		t.Errorf("after the mock's reset: a holds %v, the default %v; want a's plant, and none", got, h.Plants())
	}
	call(t, srv, "POST", "/plants", plantJSON(3), apiToken)
	call(t, srv, "POST", a.path+"/__plantstore/reset", nil, a.Token)
	if got := plantsOf(t, srv, a.path+Prefix, ""); len(got) != 0 || len(h.Plants()) != 1 {
		t.Errorf("after a's reset: a holds %v, the default %v; want none, and the default's plant", got, h.Plants())
	}
}

func TestNamespacesOff(t *testing.T) {
	srv, _ := newMock(t, Config{Loopback: true, Namespaces: NamespaceConfig{Max: -1}})
	wantError(t, "create", call(t, srv, "POST", namespacesPath, nil, ""), 404, plantstoretest.CodeNotFound, "-max-namespaces")
	wantError(t, "list", call(t, srv, "GET", namespacesPath, nil, ""), 404, plantstoretest.CodeNotFound, "-max-namespaces")
	wantError(t, "a namespace's path", call(t, srv, "GET", "/__plantstore/ns/00000000000000000000000000000000/plants", nil, ""),
		404, plantstoretest.CodeNotFound, "no such control path")
}

// TestNamespaceInUseDoesNotExpire: a namespace with a request in flight
// (a slow client, a delay or hang fault) is in use, not idle: it must not
// end while the request lasts, and its ttl starts again when it ends.
func TestNamespaceInUseDoesNotExpire(t *testing.T) {
	srv, _ := nsMock(t, 10)
	s := srv.Config.Handler.(*Server)
	_, advance := fakeClock(s)
	ns := createNS(t, srv, []byte(`{"ttl":"1m"}`), "")

	// A create whose client reads nothing stays in flight.
	w := &stalledWriter{header: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
	req := httptest.NewRequest("POST", ns.path+"/plants", bytes.NewReader(plantJSON(1)))
	req.Header.Set("Authorization", "Bearer "+ns.Token)
	req.Header.Set("Content-Type", "application/json")
	stalled := make(chan struct{})
	go func() { defer close(stalled); s.ServeHTTP(w, req) }()
	<-w.writing

	advance(2 * time.Minute)
	if n := len(listNS(t, srv, "")); n != 1 {
		t.Errorf("2m into a request, with a ttl of 1m: the list shows %d namespaces, want 1", n)
	}
	close(w.release)
	<-stalled
	advance(50 * time.Second)
	if got := plantsOf(t, srv, ns.path+Prefix, ns.Token); len(got) != 1 {
		t.Errorf("50s after its request ended: plants = %v, want the one it created", got)
	}
	advance(61 * time.Second)
	wantError(t, "idle past its ttl", call(t, srv, "GET", ns.path+"/__plantstore/plants", nil, ns.Token), 404, plantstoretest.CodeNotFound, "idle past its ttl")
}

// TestNamespaceIdleEndsUnasked: a namespace idle past its ttl ends then,
// its memory given back, though nobody creates, lists or calls it again (a
// CI job that crashed before its DELETE, on a mock nobody uses after).
func TestNamespaceIdleEndsUnasked(t *testing.T) {
	srv, _ := nsMock(t, 10)
	s := srv.Config.Handler.(*Server)
	ns := createNS(t, srv, []byte(`{"ttl":"1s"}`), "")
	fake := s.ns.byIDAlive(ns.Namespace).srv.fake
	if err := fake.Seed([]plantstore.NewPlant{{ID: 1, Name: "Fern"}}); err != nil {
		t.Fatal(err)
	}
	// The bound only detects the defect; a correct mock ends it after 1s.
	for deadline := time.Now().Add(10 * time.Second); s.ns.any(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a namespace idle 10s past its ttl of 1s still lives, nobody having asked for it since")
		}
	}
	s.ns.mu.Lock()
	_, ok := s.ns.byID[ns.Namespace]
	s.ns.mu.Unlock()
	if ok {
		t.Errorf("the ended namespace is still stored by id")
	}
}
