package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// nsCreated is what POST /__plantstore/namespaces answers.
type nsCreated struct {
	Namespace string `json:"namespace"`
	Token     string `json:"token"`
	BaseURL   string `json:"base_url"`
	MaxPlants int    `json:"max_plants"`
}

// nsClient sends requests to a mock, keeping its connections.
type nsClient struct{ c *http.Client }

func newNSClient() *nsClient {
	return &nsClient{&http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: time.Minute}}
}

// do sends a request; body is JSON when not "".
func (c *nsClient) do(method, url, body, token string) (int, []byte, error) {
	return c.doHeader(method, url, body, token, nil)
}

// doHeader is do with header added to the request.
func (c *nsClient) doHeader(method, url, body, token string, header http.Header) (int, []byte, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (c *nsClient) create(t *testing.T, mockURL, body string) nsCreated {
	t.Helper()
	status, b, err := c.do("POST", mockURL+"/__plantstore/namespaces", body, "")
	var ns nsCreated
	if err == nil && status == http.StatusCreated {
		err = json.Unmarshal(b, &ns)
	}
	if err != nil || status != http.StatusCreated {
		t.Fatalf("create a namespace: %d %s %v", status, b, err)
	}
	return ns
}

// goJob is the isolation job of scripts/e2e_namespaces.py in Go: rounds of
// seed, queue a fault, create (answered by the fault), create, read the
// journal, plants and faults, reset, in a namespace of its own. With root,
// its creates go to the mock's root with the namespace's token.
func goJob(c *nsClient, mockURL string, rounds int, root bool) error {
	status, b, err := c.do("POST", mockURL+"/__plantstore/namespaces", `{"label":"go job"}`, "")
	var ns nsCreated
	if err == nil {
		err = json.Unmarshal(b, &ns)
	}
	if err != nil || status != 201 {
		return fmt.Errorf("create a namespace: %d %s %v", status, b, err)
	}
	api, ctl := ns.BaseURL+"/plants", ns.BaseURL+"/__plantstore/"
	if root {
		api = mockURL + "/plants"
	}
	for i := 0; i < rounds; i++ {
		plant := fmt.Sprintf(`{"id":%d,"name":"p%d"}`, i, i)
		steps := []struct{ method, url, body, want string }{
			{"POST", ctl + "plants", fmt.Sprintf(`[{"id":%d,"name":"seed"}]`, 100000+i), `201 {"added":1}`},
			{"POST", ctl + "faults", fmt.Sprintf(`{"status":503,"match":{"id":%d}}`, i), "201"},
			{"POST", api, plant, "503"},
			{"POST", api, plant, fmt.Sprintf(`200 {"name":"p%d"}`, i)},
			{"GET", ctl + "requests", "", "200"},
			{"GET", ctl + "plants", "", fmt.Sprintf(`200 [{"id":%d,"name":"seed"},{"id":%d,"name":"p%d"}]`, 100000+i, i, i)},
			{"GET", ctl + "faults", "", "200 []"},
			{"POST", ctl + "reset", "", "204 "},
		}
		for _, s := range steps {
			status, b, err := c.do(s.method, s.url, s.body, ns.Token)
			if err != nil {
				return fmt.Errorf("go job %s round %d: %s %s: %v", ns.Namespace, i, s.method, s.url, err)
			}
			got := strconv.Itoa(status) + " " + strings.TrimSpace(string(b))
			if !strings.HasPrefix(got, s.want) {
				return fmt.Errorf("go job %s round %d: %s %s = %.300s, want %s", ns.Namespace, i, s.method, s.url, got, s.want)
			}
			if strings.HasSuffix(s.url, "requests") {
				var journal []struct {
					Status int    `json:"status"`
					Body   string `json:"body"`
				}
				if err := json.Unmarshal(b, &journal); err != nil || len(journal) != 2 || journal[0].Status != 503 ||
					journal[1].Status != 200 || journal[0].Body != plant || journal[1].Body != plant {
					return fmt.Errorf("go job %s round %d: journal %s", ns.Namespace, i, b)
				}
			}
		}
	}
	if status, b, err := c.do("DELETE", mockURL+"/__plantstore/namespaces/"+ns.Namespace, "", ns.Token); err != nil || status != 204 {
		return fmt.Errorf("go job: DELETE: %d %s %v", status, b, err)
	}
	return nil
}

// TestNamespaceIsolationBattery is issue 23's isolation target: 16 jobs at
// once, in python3, curl and Go, each 500 rounds of seed, queue a fault,
// create, read the journal, reset, in a namespace of its own on one built
// mock, while the others' resets run; every job checks that it sees its
// own plants, journal entries and faults and nothing else, and that none
// of its requests fails. Then the default namespace must be untouched.
func TestNamespaceIsolationBattery(t *testing.T) {
	testenv.Long(t)
	exe := buildPlainMock(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("skipping: no python3")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("skipping: no curl")
	}
	const rounds = 500
	m := startMock(t, exe, "-token", "battery-token", "-max-namespaces", "16")
	root, _ := filepath.Abs("../..")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	type job struct {
		name string
		run  func() error
	}
	var jobs []job
	for i := 0; i < 5; i++ {
		args := []string{filepath.Join(root, "scripts/e2e_namespaces.py"), "job", m.url, strconv.Itoa(rounds)}
		if i%2 == 1 {
			args = append(args, "root")
		}
		jobs = append(jobs, job{fmt.Sprintf("python3 %d", i), func() error {
			out, err := exec.CommandContext(ctx, python, args...).CombinedOutput()
			return wrapOut(err, out)
		}})
	}
	for i := 0; i < 5; i++ {
		jobs = append(jobs, job{fmt.Sprintf("curl %d", i), func() error {
			cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts/ns_job_curl.sh"), m.url, strconv.Itoa(rounds))
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(curl)+":"+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			return wrapOut(err, out)
		}})
	}
	for i := 0; i < 6; i++ {
		jobs = append(jobs, job{fmt.Sprintf("go %d", i), func() error { return goJob(newNSClient(), m.url, rounds, i%2 == 1) }})
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := j.run(); err != nil {
				t.Errorf("%s: %v", j.name, err)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d jobs × %d rounds in %v", len(jobs), rounds, time.Since(start).Round(time.Millisecond))
	c := newNSClient()
	for _, path := range []string{"/__plantstore/plants", "/__plantstore/requests", "/__plantstore/faults", "/__plantstore/namespaces"} {
		status, b, err := c.do("GET", m.url+path, "", "")
		if err != nil || status != 200 || string(bytes.TrimSpace(b)) != "[]" {
			t.Errorf("GET %s after the battery = %d %s %v, want [] (the default namespace untouched, every namespace ended)", path, status, b, err)
		}
	}
}

func wrapOut(err error, out []byte) error {
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// TestNamespaceMemory is issue 23's memory target, measured from outside
// the built mock: 10,000 live namespaces of 10 plants each raise its peak
// RSS (VmHWM) by at most 64 MiB; the 10,001st create is refused; and once
// they are all ended, 10,000 more raise the peak by little: the ended
// ones' memory was given back to the heap they reuse.
func TestNamespaceMemory(t *testing.T) {
	testenv.Long(t)
	if runtime.GOOS != "linux" {
		t.Skip("skipping: reads /proc/PID/status")
	}
	exe := buildPlainMock(t)
	const n, bound = 10_000, 64 << 20
	m := startMock(t, exe, "-token", "mem-token", "-max-namespaces", strconv.Itoa(n))
	pid := m.cmd.Process.Pid
	c := newNSClient()
	seed := `[{"id":1,"name":"plant 1"},{"id":2,"name":"plant 2"},{"id":3,"name":"plant 3"},{"id":4,"name":"plant 4"},{"id":5,"name":"plant 5"},` +
		`{"id":6,"name":"plant 6"},{"id":7,"name":"plant 7"},{"id":8,"name":"plant 8"},{"id":9,"name":"plant 9"},{"id":10,"name":"plant 10"}]`
	fillAll := func() []string {
		ids := make([]string, 0, n)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 8 {
					ns := c.create(t, m.url, "")
					if status, b, err := c.do("POST", ns.BaseURL+"/__plantstore/plants", seed, ns.Token); err != nil || status != 201 {
						t.Errorf("seed: %d %s %v", status, b, err)
						return
					}
					mu.Lock()
					ids = append(ids, ns.Namespace)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return ids
	}
	// Warm up: the server's connections and buffers, as any traffic.
	warm := c.create(t, m.url, "")
	if status, b, err := c.do("DELETE", m.url+"/__plantstore/namespaces/"+warm.Namespace, "", ""); err != nil || status != 204 {
		t.Fatalf("DELETE: %d %s %v", status, b, err)
	}
	before, rssBefore := procStatus(t, pid, "VmHWM"), procStatus(t, pid, "VmRSS")
	ids := fillAll()
	if t.Failed() {
		return
	}
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("%d namespaces × 10 plants: VmHWM %.1f → %.1f MiB (+%.1f MiB, bound 64), VmRSS %.1f → %.1f MiB",
		n, mib(before), mib(peak), mib(peak-before), mib(rssBefore), mib(procStatus(t, pid, "VmRSS")))
	if peak-before > bound {
		t.Errorf("VmHWM rose by %.1f MiB, want at most 64", mib(peak-before))
	}
	// The cap holds.
	status, b, _ := c.do("POST", m.url+"/__plantstore/namespaces", "", "")
	if status != http.StatusConflict || !bytes.Contains(b, []byte("-max-namespaces")) {
		t.Errorf("create past -max-namespaces = %d %s, want 409 naming the flag", status, b)
	}
	// Ended namespaces are garbage the collector takes when the heap has
	// grown by as much again, so one refill may raise the peak by a part of
	// the first rise; memory that was not given back would raise it by the
	// whole rise at each refill. Two refills tell the two apart.
	for round := 1; round <= 2; round++ {
		for _, id := range ids {
			if status, b, err := c.do("DELETE", m.url+"/__plantstore/namespaces/"+id, "", ""); err != nil || status != 204 {
				t.Fatalf("DELETE: %d %s %v", status, b, err)
			}
		}
		if ids = fillAll(); len(ids) != n {
			t.Fatalf("made %d namespaces after ending %d, want %d", len(ids), n, n)
		}
		t.Logf("ended them all and made %d more (round %d): VmHWM %.1f MiB (+%.1f MiB over the first peak), VmRSS %.1f MiB",
			len(ids), round, mib(procStatus(t, pid, "VmHWM")), mib(procStatus(t, pid, "VmHWM")-peak), mib(procStatus(t, pid, "VmRSS")))
	}
	if again := procStatus(t, pid, "VmHWM"); again-peak >= peak-before {
		t.Errorf("two refills raised the peak by %.1f MiB, as much as the first 10,000: the ended namespaces' memory was not given back", mib(again-peak))
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// TestConformanceInNamespace runs the conformance kit against a
// namespace's base_url, with its token as the API token and the admin
// token of its control API, and against the default namespace: both pass
// every spec check, with the same observed answers.
func TestConformanceInNamespace(t *testing.T) {
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-token", "kit-token", "-admin-token", "kit-admin")
	c := newNSClient()
	status, b, err := c.do("POST", m.url+"/__plantstore/namespaces", "", "kit-admin")
	var ns nsCreated
	if err != nil || status != 201 || json.Unmarshal(b, &ns) != nil {
		t.Fatalf("create a namespace: %d %s %v", status, b, err)
	}
	report := func(url, token, admin string) conformanceReport {
		status, out, errOut := runKit(t, map[string]string{"PLANTSTORE_ADMIN_TOKEN": admin},
			"-url", url, "-token", token, "-control-url", url+"/__plantstore", "-json")
		if status != 0 {
			t.Fatalf("kit against %s: status %d, want 0; stderr:\n%s\nstdout:\n%s", url, status, errOut, out)
		}
		var rep conformanceReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if !rep.Passed || !rep.Control || strings.Contains(out, token) {
			t.Errorf("kit against %s: passed %v, control %v; want both, and no token in the report", url, rep.Passed, rep.Control)
		}
		return rep
	}
	answers := func(r conformanceReport) map[string]map[string]string {
		a, spec := map[string]map[string]string{}, 0
		for _, c := range r.Checks {
			switch c.Tag {
			case "observed":
				a[c.ID] = c.Answer
			case "spec":
				spec++
				if c.Outcome != "pass" {
					t.Errorf("spec check %s: %s", c.ID, c.Outcome)
				}
			}
		}
		if spec < 10 {
			t.Errorf("%d spec checks ran, want 10 or more", spec)
		}
		return a
	}
	inNS := answers(report(ns.BaseURL, ns.Token, ns.Token))
	def := answers(report(m.url, "kit-token", "kit-admin"))
	if len(inNS) == 0 {
		t.Fatal("no observed answers")
	}
	if diff := cmp.Diff(def, inNS); diff != "" {
		t.Errorf("observed answers in the namespace differ from the default's (-default +namespace):\n%s", diff)
	}
}

// TestNamespaceHeldRequestShutdown: a request a namespace's hang fault
// holds is released at shutdown, as the default namespace's are, so the
// mock exits at once with status 0 rather than after the shutdown timeout
// with 1 (startRun's cleanup checks the status).
func TestNamespaceHeldRequestShutdown(t *testing.T) {
	t.Parallel()
	held := make(chan error, 1)
	t.Cleanup(func() { // after the mock's, which shuts it down
		select {
		case err := <-held:
			if err == nil {
				t.Errorf("the held request got an answer, want its connection dropped")
			}
		case <-time.After(shutdownTimeout):
			t.Errorf("the held request is still held %v after shutdown", shutdownTimeout)
		}
	})
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-token", "tok")
	c := newNSClient()
	ns := c.create(t, m.url, "")
	if status, b, err := c.do("POST", ns.BaseURL+"/__plantstore/faults", `{"hang": true}`, ns.Token); status != http.StatusCreated {
		t.Fatalf("queue a hang: %d %s %v", status, b, err)
	}
	go func() {
		_, _, err := newNSClient().do("POST", ns.BaseURL+"/plants", `{"id":1,"name":"Fern"}`, ns.Token)
		held <- err
	}()
	for { // until the fault is taken: the request is held
		status, b, err := c.do("GET", ns.BaseURL+"/__plantstore/faults", "", ns.Token)
		if err != nil || status != http.StatusOK {
			t.Fatalf("list faults: %d %s %v", status, b, err)
		}
		if string(bytes.TrimSpace(b)) == "[]" {
			break
		}
		runtime.Gosched()
	}
}

// TestChaosAndProfileReachNamespaces checks the rest of NAMESPACES.md's
// promise: -chaos with its seed gives each namespace a chaos sequence of its
// own, the same from the seed, and -profile shapes a namespace's replies.
func TestChaosAndProfileReachNamespaces(t *testing.T) {
	t.Parallel()
	newNamespace := func(t *testing.T, m *mock) string {
		t.Helper()
		status, _, body := m.do(t, "POST", "/__plantstore/namespaces", "", "")
		var ns nsCreated
		if err := json.Unmarshal([]byte(body), &ns); status != http.StatusCreated || err != nil {
			t.Fatalf("create a namespace = %d %s %v", status, body, err)
		}
		return strings.TrimPrefix(ns.BaseURL, m.url)
	}
	t.Run("chaos", func(t *testing.T) {
		t.Parallel()
		m := startRun(t, nil, "-addr", "127.0.0.1:0", "-chaos", "0.5", "-chaos-seed", "3")
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		var faults [2][]string
		for i := range faults {
			base := newNamespace(t, m)
			for id := 1; id <= 12; id++ {
				req, _ := http.NewRequest("POST", m.url+base+"/plants", strings.NewReader(fmt.Sprintf(`{"id": %d, "name": "p"}`, id)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
				if resp, err := client.Do(req); err == nil { // chaos may drop the connection
					resp.Body.Close()
				}
			}
			_, _, body := m.do(t, "GET", base+"/__plantstore/requests", "", "")
			var journal []struct {
				Fault string `json:"fault"`
			}
			if err := json.Unmarshal([]byte(body), &journal); err != nil || len(journal) != 12 {
				t.Fatalf("namespace %d: journal %.200s: %v, want 12 entries", i, body, err)
			}
			for _, e := range journal {
				faults[i] = append(faults[i], e.Fault)
			}
		}
		if !slices.ContainsFunc(faults[0], func(f string) bool { return strings.HasPrefix(f, "chaos ") }) {
			t.Errorf("namespace 0's faults %q: none from chaos under -chaos 0.5", faults[0])
		}
		if diff := cmp.Diff(faults[0], faults[1]); diff != "" {
			t.Errorf("the two namespaces' chaos sequences differ under one -chaos-seed (-first +second):\n%s", diff)
		}
	})
	t.Run("profile", func(t *testing.T) {
		t.Parallel()
		profile := filepath.Join(t.TempDir(), "profile.json")
		doc := `{"duplicate_id": {"status": 409, "content_type": "application/json", "body": "{\"error\": 1009}"}}`
		if err := os.WriteFile(profile, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		m := startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", profile)
		base := newNamespace(t, m)
		var statuses []int
		for range 2 {
			status, _, _ := m.do(t, "POST", base+"/plants", `{"id": 1, "name": "p"}`, plantstoretest.DefaultToken)
			statuses = append(statuses, status)
		}
		if diff := cmp.Diff([]int{200, 409}, statuses); diff != "" {
			t.Errorf("a repeated id in a namespace under -profile (-want +got):\n%s", diff)
		}
	})
}

// TestFlagsReachNamespaces: each namespace starts from the mock's flags
// (-token, -max-plants, -journal, -rate-limit) with a store, a journal and
// a rate limit of its own, and without -seed's plants, which are the
// default namespace's only (NAMESPACES.md).
func TestFlagsReachNamespaces(t *testing.T) {
	t.Parallel()
	seedFile := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seedFile, []byte(`[{"id": 1, "name": "Fern"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "flags-reach-token"
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-token", token, "-seed", seedFile,
		"-max-plants", "1", "-journal", "2", "-rate-limit", "3/h")
	for i := 0; i < 2; i++ { // the second sees nothing of the first
		status, _, body := m.do(t, "POST", "/__plantstore/namespaces", "", "")
		var ns nsCreated
		if err := json.Unmarshal([]byte(body), &ns); status != http.StatusCreated || err != nil {
			t.Fatalf("create a namespace = %d %s %v", status, body, err)
		}
		if ns.MaxPlants != 1 {
			t.Errorf("namespace %d: max_plants = %d, want -max-plants's 1", i, ns.MaxPlants)
		}
		base := strings.TrimPrefix(ns.BaseURL, m.url)
		if _, _, plants := m.do(t, "GET", base+"/__plantstore/plants", "", ""); plants != "[]\n" {
			t.Errorf("namespace %d: plants = %q, want none (-seed is the default namespace's)", i, plants)
		}
		var statuses []int
		for id := 1; id <= 4; id++ { // -token opens it; -max-plants, then -rate-limit, refuse
			status, _, _ := m.do(t, "POST", base+"/plants", fmt.Sprintf(`{"id": %d, "name": "p"}`, id), token)
			statuses = append(statuses, status)
		}
		if diff := cmp.Diff([]int{200, 400, 400, 429}, statuses); diff != "" {
			t.Errorf("namespace %d: creates under -max-plants 1 and -rate-limit 3/h (-want +got):\n%s", i, diff)
		}
		var journal []struct {
			Status int `json:"status"`
		}
		_, _, body = m.do(t, "GET", base+"/__plantstore/requests", "", "")
		if err := json.Unmarshal([]byte(body), &journal); err != nil {
			t.Fatalf("namespace %d: journal %.200s: %v", i, body, err)
		}
		statuses = statuses[:0]
		for _, e := range journal {
			statuses = append(statuses, e.Status)
		}
		if diff := cmp.Diff([]int{400, 429}, statuses); diff != "" {
			t.Errorf("namespace %d: journal statuses under -journal 2 (-want +got):\n%s", i, diff)
		}
	}
	// The default namespace keeps -seed's plant and a rate limit of its own.
	if status, _, body := m.create(t, 2, token); status != 400 || !strings.Contains(body, "-max-plants") {
		t.Errorf("create in the seeded default namespace = %d %s, want 400 naming -max-plants (its rate limit unused)", status, body)
	}
	if _, _, plants := m.do(t, "GET", "/__plantstore/plants", "", ""); plants != `[{"id":1,"name":"Fern"}]`+"\n" {
		t.Errorf("the default namespace's plants = %q, want -seed's", plants)
	}
}
