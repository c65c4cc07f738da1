package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/syncbuf"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/traffic"
)

// mock is the command running in-process.
type mock struct {
	url    string
	stderr *syncbuf.Buffer
}

// startRun runs the command in-process with args and the environment env,
// and stops it when the test ends, checking that it exits with status 0.
func startRun(t *testing.T, env map[string]string, args ...string) *mock {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdoutR, stdoutW := io.Pipe()
	m := &mock{stderr: new(syncbuf.Buffer)}
	status := make(chan int, 1)
	go func() {
		status <- run(ctx, args, func(k string) string { return env[k] }, stdoutW, m.stderr)
		stdoutW.Close()
	}()
	line, err := bufio.NewReader(stdoutR).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("run(%q): no URL line: %v; stderr:\n%s", args, err, m.stderr.String())
	}
	go io.Copy(io.Discard, stdoutR)
	m.url = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	t.Cleanup(func() {
		cancel()
		if got := <-status; got != 0 {
			t.Errorf("run(%q) after cancel = %d, want 0; stderr:\n%s", args, got, m.stderr.String())
		}
	})
	return m
}

// do sends a request and returns the status, a header and the body.
func (m *mock) do(t *testing.T, method, path, body, token string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, m.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatalf("NewRequest: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func (m *mock) create(t *testing.T, id int, token string) (int, http.Header, string) {
	t.Helper()
	return m.do(t, "POST", "/plants", fmt.Sprintf(`{"id": %d, "name": "plant %d"}`, id, id), token)
}

// journal returns the journal's faults and statuses.
func (m *mock) journal(t *testing.T, token string) []struct {
	Status int     `json:"status"`
	Fault  *string `json:"fault"`
	Body   string  `json:"body"`
} {
	t.Helper()
	status, _, body := m.do(t, "GET", "/__plantstore/requests", "", token)
	if status != 200 {
		t.Fatalf("GET requests = %d %s", status, body)
	}
	var entries []struct {
		Status int     `json:"status"`
		Fault  *string `json:"fault"`
		Body   string  `json:"body"`
	}
	if err := json.Unmarshal([]byte(body), &entries); err != nil {
		t.Fatalf("GET requests body %q: %v", body, err)
	}
	return entries
}

func TestFlagJournal(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-journal", "2")
	for i := 1; i <= 3; i++ {
		m.create(t, i, plantstoretest.DefaultToken)
	}
	if got := m.journal(t, ""); len(got) != 2 || !strings.Contains(got[1].Body, "plant 3") {
		t.Errorf("journal with -journal 2 = %+v, want the last 2 creates", got)
	}

	m0 := startRun(t, nil, "-addr", "127.0.0.1:0", "-journal", "0")
	m0.create(t, 1, plantstoretest.DefaultToken)
	if got := m0.journal(t, ""); len(got) != 0 {
		t.Errorf("journal with -journal 0 = %+v, want none", got)
	}
}

func TestFlagJournalCutsBodies(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0")
	name := strings.Repeat("n", 10_000)
	m.do(t, "POST", "/plants", `{"id": 1, "name": "`+name+`"}`, plantstoretest.DefaultToken)
	if got := m.journal(t, ""); len(got) != 1 || len(got[0].Body) != 4096 {
		t.Errorf("journaled body of a 10 kB create = %d bytes, want 4096", len(got[0].Body))
	}
}

func TestFlagSeed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`[{"id": 1, "name": "Fern"}, {"id": 2, "name": "Ivy", "tag": "climber"}]`), 0o600)
	os.WriteFile(bad, []byte(`[{"id": 1, "name": "Fern"}, {"id": 2, "name": "Ivy", "tag": null}]`), 0o600)

	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-seed", good)
	want := `[{"id":1,"name":"Fern"},{"id":2,"name":"Ivy","tag":"climber"}]` + "\n"
	if _, _, body := m.do(t, "GET", "/__plantstore/plants", "", ""); body != want {
		t.Errorf("plants after -seed = %q, want %q", body, want)
	}
	if status, _, _ := m.create(t, 1, plantstoretest.DefaultToken); status != 400 {
		t.Errorf("create of a seeded id = %d, want 400", status)
	}

	var stdout, stderr strings.Builder
	if got := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-seed", bad}, func(string) string { return "" }, &stdout, &stderr); got != 2 {
		t.Errorf("run with a bad -seed file = %d, want 2", got)
	}
	if want := "-seed " + bad + ": entry 1 (counting from 0): "; !strings.Contains(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("run with a bad -seed file: stdout %q, stderr %q; want nothing and %q", stdout.String(), stderr.String(), want)
	}
}

func TestFlagMaxPlants(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-max-plants", "1")
	if status, _, body := m.create(t, 1, plantstoretest.DefaultToken); status != 200 {
		t.Fatalf("first create = %d %s, want 200", status, body)
	}
	status, _, body := m.create(t, 2, plantstoretest.DefaultToken)
	var e plantstoretest.ErrorBody
	json.Unmarshal([]byte(body), &e)
	if status != 400 || e.Code != plantstoretest.CodeStoreFull || !strings.Contains(e.Message, "-max-plants") {
		t.Errorf("create past -max-plants 1 = %d %s, want 400 with CodeStoreFull naming -max-plants", status, body)
	}
}

func TestFlagRateLimit(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-rate-limit", "1/h")
	if status, _, _ := m.create(t, 1, plantstoretest.DefaultToken); status != 200 {
		t.Fatalf("first create = %d, want 200", status)
	}
	status, header, body := m.create(t, 2, plantstoretest.DefaultToken)
	if status != 429 || header.Get("Retry-After") == "" || !strings.Contains(body, fmt.Sprint(plantstoretest.CodeRateLimited)) {
		t.Errorf("second create in the hour = %d %v %s, want 429 with Retry-After", status, header, body)
	}
	// Control calls do not count against the rate.
	for i := 0; i < 3; i++ {
		if status, _, _ := m.do(t, "GET", "/__plantstore/health", "", ""); status != 200 {
			t.Errorf("health under the rate limit = %d, want 200", status)
		}
	}
	if j := m.journal(t, ""); len(j) != 2 || j[1].Fault == nil || !strings.HasPrefix(*j[1].Fault, "rate-limit 2:429") {
		t.Errorf("journal = %+v, want the 429 journaled as the rate limit", j)
	}
}

func TestFlagChaos(t *testing.T) {
	t.Parallel()
	statuses := func(seed string) []int {
		m := startRun(t, nil, "-addr", "127.0.0.1:0", "-chaos", "1", "-chaos-seed", seed)
		for i := 0; i < 8; i++ {
			req, _ := http.NewRequest("POST", m.url+"/plants", strings.NewReader(fmt.Sprintf(`{"id": %d, "name": "x"}`, i)))
			req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
			req.Header.Set("Content-Type", "application/json")
			if resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req); err == nil {
				resp.Body.Close()
			}
		}
		var out []int
		for _, e := range m.journal(t, "") {
			if e.Fault == nil || !strings.HasPrefix(*e.Fault, "chaos ") {
				t.Errorf("journal entry %+v under -chaos 1, want a chaos fault", e)
			}
			out = append(out, e.Status)
		}
		return out
	}
	a, b := statuses("42"), statuses("42")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("statuses with -chaos-seed 42 differ between runs: %v and %v", a, b)
	}

	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-chaos", "0.5")
	if !strings.Contains(m.stderr.String(), "pass -chaos-seed") {
		t.Errorf("stderr with -chaos and no seed = %q, want the seed chosen", m.stderr.String())
	}
}

func TestFlagAdminToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"-admin-token", "flag-admin"}},
		{"environment", map[string]string{"PLANTSTORE_ADMIN_TOKEN": "flag-admin"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := startRun(t, tt.env, append([]string{"-addr", "127.0.0.1:0"}, tt.args...)...)
			if status, _, _ := m.do(t, "GET", "/__plantstore/faults", "", ""); status != 401 {
				t.Errorf("GET faults without the admin token = %d, want 401", status)
			}
			if status, _, _ := m.do(t, "GET", "/__plantstore/faults", "", plantstoretest.DefaultToken); status != 401 {
				t.Errorf("GET faults with the API token = %d, want 401", status)
			}
			if status, _, _ := m.do(t, "GET", "/__plantstore/faults", "", "flag-admin"); status != 200 {
				t.Errorf("GET faults with the admin token = %d, want 200", status)
			}
			if logs := m.stderr.String(); !strings.Contains(logs, "requires the admin token") || strings.Contains(logs, "flag-admin") {
				t.Errorf("stderr = %q, want the control API's status and no token", logs)
			}
		})
	}
}

func TestFlagAddrUnspecified(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", ":0")
	if strings.Contains(m.url, "[::]") || strings.Contains(m.url, "0.0.0.0") {
		t.Errorf("URL for -addr :0 = %q, want one a client can use", m.url)
	}
	if status, _, _ := m.do(t, "GET", "/__plantstore/health", "", ""); status != 200 {
		t.Errorf("GET health at %s = %d, want 200", m.url, status)
	}
	status, _, body := m.do(t, "GET", "/__plantstore/plants", "", "")
	if status != 404 || !strings.Contains(body, "PLANTSTORE_ADMIN_TOKEN") {
		t.Errorf("GET plants on an unspecified address without an admin token = %d %s, want 404 saying how to turn it on", status, body)
	}
	if !strings.Contains(m.stderr.String(), "control API is off") {
		t.Errorf("stderr = %q, want it to say the control API is off", m.stderr.String())
	}
}

func TestFlagMaxConns(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-max-conns", "1")
	// One idle keep-alive connection holds the only slot; a second client
	// waits until it closes.
	holder := &http.Transport{}
	req, _ := http.NewRequest("GET", m.url+"/__plantstore/health", nil)
	resp, err := (&http.Client{Transport: holder}).Do(req)
	if err != nil {
		t.Fatalf("first GET: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	waiter := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 300 * time.Millisecond}
	if resp, err := waiter.Get(m.url + "/__plantstore/health"); err == nil {
		resp.Body.Close()
		t.Errorf("a second connection was served while -max-conns 1 was taken, want it to wait")
	}
	holder.CloseIdleConnections()
	waiter.Timeout = 30 * time.Second
	resp, err = waiter.Get(m.url + "/__plantstore/health")
	if err != nil {
		t.Fatalf("GET once the slot is free: %v", err)
	}
	resp.Body.Close()
}

// TestFlagProfileTraffic checks that -profile replays a recording's
// traffic, the same sequence for the same -chaos-seed, and that without
// one the mock picks a seed and says which; and that the start-up line
// shows the failures' rates.
func TestFlagProfileTraffic(t *testing.T) {
	t.Parallel()
	profile := filepath.Join(t.TempDir(), "traffic.json")
	lat := `"latency": [{"from_us": 1024, "to_us": 1116.68, "count": 10}]`
	if err := os.WriteFile(profile, []byte(`{"source": "traffic.Recorder: https://plants.example.com", "traffic": {"attempts": 20,
		"outcomes": [{"kind": "2xx", "status": 200, "count": 10, `+lat+`},
		             {"kind": "5xx", "status": 503, "count": 10, `+lat+`, "retry_after": [{"seconds": 2, "count": 10}]}],
		"failure_runs": {"runs": 5, "failures": 10, "lengths": [{"length": 2, "count": 5}]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	faults := func(args ...string) (*mock, []string) {
		m := startRun(t, nil, append([]string{"-addr", "127.0.0.1:0", "-profile", profile}, args...)...)
		for i := 0; i < 20; i++ {
			status, header, _ := m.create(t, i, plantstoretest.DefaultToken)
			if status != 200 && (status != 503 || header.Get("Retry-After") != "2") {
				t.Errorf("create %d: %d, Retry-After %q; want 200, or 503 with Retry-After 2", i, status, header.Get("Retry-After"))
			}
		}
		var out []string
		for _, e := range m.journal(t, "") {
			f := ""
			if e.Fault != nil {
				f = *e.Fault
			}
			if f != "" && !strings.Contains(f, ":503 after=") || (f == "") != (e.Status == 200) {
				t.Errorf("journal entry %+v, want a 200, or a 503 journaled as traffic", e)
			}
			out = append(out, f)
		}
		return m, out
	}
	m, a := faults("-chaos-seed", "42")
	_, b := faults("-chaos-seed", "42")
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("faults with -chaos-seed 42 differ between runs:\n%q\n%q", a, b)
	}
	if n := strings.Count(fmt.Sprint(a), ":503"); n == 0 || n == len(a) {
		t.Errorf("faults %q: want some 503s and some 200s, of a traffic half 503", a)
	}
	if want := `traffic_attempts=20 traffic_failures="5xx 503 50%"`; !strings.Contains(m.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, m.stderr.String())
	}
	if m, _ := faults(); !strings.Contains(m.stderr.String(), "-profile's traffic with a random seed; pass -chaos-seed") {
		t.Errorf("stderr with -profile's traffic and no seed = %q, want the seed chosen", m.stderr.String())
	}
}

// TestFlagProfileRecording checks that -profile loads what a
// traffic.Recorder writes, as it is: a production client records creates
// against the mock, some answered 503 with Retry-After 1, and a second mock
// replays its document; that document padded to MaxProfileSize loads too,
// and a byte more is refused, saying so. The largest recording loads
// within that size (plantstoretest's TestProfileLargestLoads), and -profile
// reads with ParseProfile.
func TestFlagProfileRecording(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-token", "rec")
	if status, _, body := m.do(t, "POST", "/__plantstore/faults", `{"status": 503, "headers": {"Retry-After": "1"}, "times": 3}`, ""); status != 201 {
		t.Fatalf("inject: %d %s", status, body)
	}
	rec := traffic.NewRecorder()
	client, err := plantstore.NewClient(m.url, plantstore.WithToken("rec"), plantstore.WithHooks(rec.Hooks()), plantstore.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		_, _ = client.CreatePlant(context.Background(), plantstore.NewPlant{ID: int64(i + 1), Name: "Fern"})
	}
	var doc bytes.Buffer
	if _, err := rec.WriteTo(&doc); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	replay := startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", write("recording.json", doc.Bytes()), "-chaos-seed", "7")
	if want := `traffic_attempts=10 traffic_failures="5xx 503 30%"`; !strings.Contains(replay.stderr.String(), want) {
		t.Errorf("stderr of a mock replaying the recording lacks %q:\n%s", want, replay.stderr.String())
	}

	padded := append(doc.Bytes(), bytes.Repeat([]byte(" "), plantstoretest.MaxProfileSize-doc.Len())...)
	startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", write("padded.json", padded))
	var stderr bytes.Buffer
	status := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-profile", write("over.json", append(padded, ' '))}, func(string) string { return "" }, io.Discard, &stderr)
	if want := fmt.Sprintf("is %d bytes, more than the %d allowed", plantstoretest.MaxProfileSize+1, plantstoretest.MaxProfileSize); status != 2 || !strings.Contains(stderr.String(), want) {
		t.Errorf("-profile of %d bytes: status %d, stderr %q; want 2 and %q", len(padded)+1, status, stderr.String(), want)
	}
}

// TestFlagWriteTimeout checks that a reply held past -write-timeout is never
// delivered, and that the journal says so: dropped, no status, not "sent
// 200" (issue 41: the delay of -schedule 1:store-delay against the 30s
// default). The plant was stored before the hold, as the fault says.
func TestFlagWriteTimeout(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-write-timeout", "100ms")
	if status, _, body := m.do(t, "POST", "/__plantstore/faults", `{"store": true, "delay": "400ms"}`, ""); status != 201 {
		t.Fatalf("POST faults = %d %s, want 201", status, body)
	}
	req, err := http.NewRequest("POST", m.url+"/plants", strings.NewReader(`{"id": 1, "name": "Fern"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+plantstoretest.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("create held past -write-timeout = %d, want no reply", resp.StatusCode)
	}
	if status, _, body := m.create(t, 2, plantstoretest.DefaultToken); status != 200 {
		t.Errorf("create in time = %d %s, want 200", status, body)
	}
	_, _, body := m.do(t, "GET", "/__plantstore/requests", "", "")
	var got []struct {
		Outcome string  `json:"outcome"`
		Status  int     `json:"status"`
		Fault   *string `json:"fault"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || len(got) != 2 {
		t.Fatalf("GET requests = %s (%v), want 2 entries", body, err)
	}
	if g := got[0]; g.Outcome != "dropped" || g.Status != 0 || g.Fault == nil || *g.Fault != "inject#1 1:store-delay after=400ms" {
		t.Errorf("the held create's entry = %s, want dropped, status 0, fault inject#1 1:store-delay after=400ms", body)
	}
	if g := got[1]; g.Outcome != "sent" || g.Status != 200 {
		t.Errorf("the create in time's entry = %s, want sent 200", body)
	}
	if _, _, plants := m.do(t, "GET", "/__plantstore/plants", "", ""); !strings.Contains(plants, `"id":1,`) {
		t.Errorf("plants = %s, want the held create's, stored before its hold", plants)
	}
}
