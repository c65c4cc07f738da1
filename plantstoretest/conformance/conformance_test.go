package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// recorder wraps a handler and records the path of every request and how
// many were answered 2xx.
type recorder struct {
	next http.Handler

	mu       sync.Mutex
	paths    []string
	accepted int
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	rec.next.ServeHTTP(sw, r)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.paths = append(rec.paths, r.Method+" "+r.URL.Path)
	if sw.status >= 200 && sw.status <= 299 && r.URL.Path == "/plants" {
		rec.accepted++
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// serve serves h on loopback until the test ends.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// acceptAll serves, until the test ends, a server that answers every POST
// to /plants (to any path, if anyPath) with 200 {"name":"x"}, as a target
// that stores whatever it gets would; and 404 to anything else. accepted
// says how many POSTs it answered 200.
func acceptAll(t testing.TB, anyPath bool) (srv *httptest.Server, accepted func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || (!anyPath && r.URL.Path != "/plants") {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		n++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"name":"x"}`))
	}))
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// checkAgreesWithFake checks what every run against a fake must show: every
// spec check passed, no observed answer differs from the reference's, and
// the run kept to its limits.
func checkAgreesWithFake(t *testing.T, rep *conformance.Report) {
	t.Helper()
	if !rep.Passed {
		var b strings.Builder
		_ = rep.WriteText(&b)
		t.Errorf("spec checks failed:\n%s", b.String())
	}
	if len(rep.Differences) != 0 {
		t.Errorf("Differences = %q, want none", rep.Differences)
	}
	tags := map[conformance.Tag]int{}
	for _, c := range rep.Checks {
		tags[c.Tag]++
		if c.Tag == conformance.Observed && c.Outcome == conformance.Recorded && c.Reference == nil {
			t.Errorf("check %s has no reference answer", c.ID)
		}
	}
	if len(rep.Checks) < 25 || tags[conformance.Spec] == 0 || tags[conformance.Observed] == 0 {
		t.Errorf("%d checks (%v by tag), want at least 25 of both tags", len(rep.Checks), tags)
	}
	if rep.Creates > rep.MaxCreates {
		t.Errorf("Creates = %d, more than MaxCreates %d", rep.Creates, rep.MaxCreates)
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	rec := &recorder{next: h}
	srv := serve(t, rec)
	var rep conformance.Report
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Report: &rep})
	checkAgreesWithFake(t, &rep)
	if rec.accepted > conformance.DefaultMaxCreates {
		t.Errorf("the target answered %d creates with 2xx, more than the default %d", rec.accepted, conformance.DefaultMaxCreates)
	}
	// The package doc promises about 35 requests a run.
	if n := len(rec.paths); n > 50 {
		t.Errorf("the run sent %d requests; the package doc says about 35", n)
	}
	t.Logf("%d requests", len(rec.paths))
	if got := len(h.Plants()); got != rep.Creates {
		t.Errorf("the fake stores %d plants; the report counts %d creates", got, rep.Creates)
	}
	for _, p := range rec.paths {
		if strings.Contains(p, mockserver.Prefix) {
			t.Errorf("without Target.Control the kit called %s", p)
		}
	}
	for _, p := range h.Plants() {
		if p.ID < conformance.FirstIDMin || !strings.HasPrefix(p.Name, rep.NamePrefix) {
			t.Errorf("stored plant %d %.40q: outside the run's ids from %d, or without its prefix %q", p.ID, p.Name, conformance.FirstIDMin, rep.NamePrefix)
		}
	}
}

func TestNewServer(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithToken("server-token"))
	var rep conformance.Report
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: "server-token", Report: &rep})
	checkAgreesWithFake(t, &rep)
}

// TestNewServerFake runs the kit against NewServer with its Handler as
// Target.Fake, which adds the checks that need a control API.
func TestNewServerFake(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t)
	var rep conformance.Report
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Fake: srv, Report: &rep})
	checkAgreesWithFake(t, &rep)
	for _, id := range []string{"retry-after-429", "retry-after-503", "control-stored"} {
		if c := rep.Check(id); c.Outcome == conformance.Skipped {
			t.Errorf("check %s skipped: %s", id, c.Problem)
		}
	}
	if got := rep.Check("retry-after-429").Answer["retry_after"]; got != "1" {
		t.Errorf("retry-after-429: Retry-After %q, want the scripted 1", got)
	}
	if got := len(srv.Faults()); got != 0 {
		t.Errorf("%d faults left pending", got)
	}
}

// TestMockControl runs the kit against plantstore-mock's server in-process,
// control API included, which adds the checks that need one.
func TestMockControl(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	m, err := mockserver.New(h, mockserver.Config{AdminToken: "admin-token"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{next: m}
	srv := serve(t, rec)
	var rep conformance.Report
	conformance.Run(t, conformance.Target{
		URL:     srv.URL,
		Token:   plantstoretest.DefaultToken,
		Control: &conformance.Control{URL: srv.URL + "/__plantstore", AdminToken: "admin-token"},
		Report:  &rep,
	})
	checkAgreesWithFake(t, &rep)
	for _, id := range []string{"retry-after-429", "retry-after-503", "control-stored"} {
		if c := rep.Check(id); c == nil || c.Outcome == conformance.Skipped {
			t.Errorf("check %s: %+v, want it run with the control API", id, c)
		}
	}
	if got := rep.Check("retry-after-503").Answer["retry_after"]; got != "1" {
		t.Errorf("retry-after-503: Retry-After %q, want the scripted 1", got)
	}
	want := map[string]bool{"POST /__plantstore/faults": true, "GET /__plantstore/plants": true}
	for _, p := range rec.paths {
		if strings.Contains(p, mockserver.Prefix) && !want[p] {
			t.Errorf("the kit called %s; it may only script faults and list plants", p)
		}
	}
}

// different is a server that answers as the fake does, except that a
// repeated id gets 409 with another code and message, and every 401 another
// body and challenge.
func different(t *testing.T) http.Handler {
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		res := rec.Result()
		var e plantstoretest.ErrorBody
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		switch {
		case res.StatusCode == http.StatusUnauthorized:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("WWW-Authenticate", "Bearer")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":401,"message":"unauthorized"}`))
		case res.StatusCode == http.StatusBadRequest && e.Code == plantstoretest.CodeDuplicateID:
			id := strings.TrimSuffix(strings.TrimPrefix(e.Message, "plant "), " already exists")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"error":1009,"message":"id ` + id + ` is taken"}`))
		default:
			for k, vs := range res.Header {
				w.Header()[k] = vs
			}
			w.WriteHeader(res.StatusCode)
			_, _ = w.Write(rec.Body.Bytes())
		}
	})
}

// TestDifferentServer shows that the report names exactly where a server
// differs from the fake, and that a profile taken from the report makes the
// fake answer as that server does.
func TestDifferentServer(t *testing.T) {
	t.Parallel()
	srv := serve(t, different(t))
	var rep conformance.Report
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Report: &rep})
	if !rep.Passed {
		t.Errorf("a spec check failed against a server that only answers differently where the specification is silent")
	}
	want := []string{"duplicate-id", "auth-missing", "auth-wrong-scheme", "auth-wrong-token"}
	if diff := cmp.Diff(want, rep.Differences); diff != "" {
		t.Errorf("Differences (-want +got):\n%s", diff)
	}
	for _, id := range want {
		if c := rep.Check(id); !c.Calibrated {
			t.Errorf("check %s differs but is not marked Calibrated", id)
		}
	}
	wantDup := map[string]string{"status": "409", "content_type": "application/json", "body": `{"error":1009,"message":"id {id} is taken"}`}
	if diff := cmp.Diff(wantDup, rep.Check("duplicate-id").Answer); diff != "" {
		t.Errorf("duplicate-id answer (-want +got):\n%s", diff)
	}

	profile := rep.Profile()
	if status, code, ok := profile.DuplicateIDError(); !ok || status != 409 || code != 1009 {
		t.Errorf("DuplicateIDError() = %d, %d, %v; want 409, 1009, true", status, code, ok)
	}
	// Through JSON, as plantstore-mock -profile reads it.
	data, err := json.Marshal(profile)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := plantstoretest.ParseProfile(data)
	if err != nil {
		t.Fatalf("ParseProfile(%s): %v", data, err)
	}
	calibrated := plantstoretest.NewServer(t, plantstoretest.WithProfile(parsed))
	var again conformance.Report
	conformance.Run(t, conformance.Target{URL: calibrated.URL, Token: plantstoretest.DefaultToken, Report: &again})
	if got := conformance.Compare(&rep, &again); len(got) != 0 {
		t.Errorf("after calibration, Compare(target, calibrated fake) = %q, want no difference", got)
	}
	if diff := cmp.Diff(want, again.Differences); diff != "" {
		t.Errorf("the calibrated fake's differences from the plain fake (-want +got):\n%s", diff)
	}
}

func TestRefusesRealDeploymentWithoutLive(t *testing.T) {
	t.Parallel()
	sent := errors.New("a request was sent")
	client := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, sent })}
	for _, target := range []conformance.Target{
		{URL: "https://plants.example.com", Token: "t", Client: client},
		{URL: "http://10.0.0.8:8080", Token: "t", Client: client},
		{URL: "http://127.0.0.1:1", Token: "t", Client: client, Control: &conformance.Control{URL: "http://mock.example.com/__plantstore"}},
	} {
		_, err := conformance.RunReport(context.Background(), target)
		if err == nil || !strings.Contains(err.Error(), "Live") {
			t.Errorf("RunReport(%s) error = %v, want a refusal that names Live", target.URL, err)
		}
	}
}

func TestRefusesBadTargets(t *testing.T) {
	t.Parallel()
	for _, target := range []conformance.Target{
		{URL: "", Token: "t"},
		{URL: "http://127.0.0.1:1", Token: ""},
		{URL: "ftp://127.0.0.1", Token: "t"},
		{URL: "http://user:password@127.0.0.1:1", Token: "t"}, // the report would show the password
		{URL: "http://127.0.0.1:1", Token: "t", Control: &conformance.Control{URL: "http://admin:pw@127.0.0.1:1/__plantstore"}},
		{URL: "http://127.0.0.1:1", Token: "t", MaxCreates: -1},
		{URL: "http://127.0.0.1:1", Token: "t", FirstID: -5},
		{URL: "http://127.0.0.1:1", Token: "t", Control: &conformance.Control{URL: "http://127.0.0.1:1/__plantstore"}, Fake: plantstoretest.NewHandler()},
	} {
		if _, err := conformance.RunReport(context.Background(), target); err == nil || !strings.HasPrefix(err.Error(), "conformance: ") {
			t.Errorf("RunReport(%+v) error = %v, want a conformance: error", target, err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestMaxCreates runs the kit against a server that accepts everything, so
// that every request could create, and counts what it accepted.
func TestMaxCreates(t *testing.T) {
	t.Parallel()
	for _, max := range []int{0, 1, 3, 10} {
		srv, acceptedCount := acceptAll(t, false)
		rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: "t", MaxCreates: max})
		if err != nil {
			t.Fatal(err)
		}
		accepted := acceptedCount()
		limit := max
		if max == 0 {
			limit = conformance.DefaultMaxCreates
		}
		if accepted > limit || rep.Creates != accepted {
			t.Errorf("MaxCreates %d: the server accepted %d requests, the report counts %d; want at most %d", max, accepted, rep.Creates, limit)
		}
		if rep.Passed {
			t.Errorf("MaxCreates %d: a server that accepts everything passed every spec check", max)
		}
	}
}

// TestFailureShowsExchange runs the kit against a server whose 200 body
// carries the id, which the specification's Plant has not, and checks that
// the report names the check and shows the exchange without the token.
func TestFailureShowsExchange(t *testing.T) {
	t.Parallel()
	const token = "secret-token-123"
	h := plantstoretest.NewHandler(plantstoretest.WithToken(token))
	t.Cleanup(h.Close)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":1,"name":"` + "wrong" + `"}`))
			return
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check("create")
	if c.Outcome != conformance.Fail || !strings.Contains(c.Problem, `has an "id"`) || !strings.Contains(c.Problem, `"name" is "wrong"`) {
		t.Errorf("create: %s: %s; want a failure naming the id and the name", c.Outcome, c.Problem)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FAIL     spec     create", "> POST " + srv.URL + "/plants", "> Authorization: Bearer REDACTED", `< "{\"id\":1,\"name\":\"wrong\"}"`} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), token) || bytes.Contains(data, []byte(token)) {
		t.Errorf("the report shows the token")
	}
}

func TestTargetDown(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: url, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed || !strings.Contains(rep.Check("create").Problem, "no response") {
		t.Errorf("against a closed port: passed %v, create: %s", rep.Passed, rep.Check("create").Problem)
	}
}

// TestSameAnswersEverywhere runs the kit against the Handler, NewServer and
// the mock's server with its control API: their observed answers are the
// same, but for the checks only a control API makes possible.
func TestSameAnswersEverywhere(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	handlerSrv := serve(t, h)
	newServer := plantstoretest.NewServer(t)
	mh := plantstoretest.NewHandler()
	t.Cleanup(mh.Close)
	m, err := mockserver.New(mh, mockserver.Config{Loopback: true})
	if err != nil {
		t.Fatal(err)
	}
	mockSrv := serve(t, m)

	var reps [3]conformance.Report
	conformance.Run(t, conformance.Target{URL: handlerSrv.URL, Token: plantstoretest.DefaultToken, Report: &reps[0]})
	conformance.Run(t, conformance.Target{URL: newServer.URL, Token: plantstoretest.DefaultToken, Report: &reps[1]})
	conformance.Run(t, conformance.Target{URL: mockSrv.URL, Token: plantstoretest.DefaultToken, Report: &reps[2],
		Control: &conformance.Control{URL: mockSrv.URL + "/__plantstore"}})
	if got := conformance.Compare(&reps[0], &reps[1]); len(got) != 0 {
		t.Errorf("Handler and NewServer differ in %q", got)
	}
	if diff := cmp.Diff([]string{"retry-after-429", "retry-after-503"}, conformance.Compare(&reps[0], &reps[2])); diff != "" {
		t.Errorf("Handler and the mock with its control API differ (-want +got):\n%s", diff)
	}
	// Each run created as many plants: the scripted replies count as none.
	for i, rep := range reps {
		if rep.Creates != reps[0].Creates {
			t.Errorf("run %d made %d creates, run 0 %d", i, rep.Creates, reps[0].Creates)
		}
	}
}

// runChildEnv makes TestRunFailsChild run, in the child process of
// TestRunFails.
const runChildEnv = "CONFORMANCE_RUN_CHILD"

// TestRunFailsChild runs Run against a server whose 200 body carries the
// id. It runs only as TestRunFails's child, where failing is the point.
func TestRunFailsChild(t *testing.T) {
	if os.Getenv(runChildEnv) != "1" {
		t.Skip("runs only as TestRunFails's child")
	}
	h := plantstoretest.NewHandler(plantstoretest.WithToken("child-secret"))
	t.Cleanup(h.Close)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code == http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":1,"name":"wrong"}`))
			return
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	_, file, line, _ := runtime.Caller(0)
	fmt.Printf("RUN AT %s:%d\n", filepath.Base(file), line+2) // the line of Run
	conformance.Run(t, conformance.Target{URL: srv.URL, Token: "child-secret"})
}

// runFailingChild runs the test named name again, in a child process of
// the test binary with env set to 1, and returns its output, which it
// expects to be that of a failed run. It skips under -short.
func runFailingChild(t *testing.T, name, env string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child passed or did not run: %v\n%s", err, out)
	}
	return string(out)
}

// TestRunFails checks that Run fails the test in the subtest of each spec
// check that does not hold, with the exchange, and in no other; and that
// what it reports (failures, logs, skips) is located at the test's line
// that called Run, not in the kit.
func TestRunFails(t *testing.T) {
	t.Parallel()
	out := runFailingChild(t, "TestRunFailsChild", runChildEnv)
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- FAIL: TestRunFailsChild/"); ok {
			failed = append(failed, strings.Fields(name)[0])
		}
	}
	// The two creates that get the broken 200; other 200s (the lower-case
	// bearer, unknown fields) are observed checks, which never fail.
	if diff := cmp.Diff([]string{"create", "create-without-tag"}, failed); diff != "" {
		t.Errorf("failed subtests (-want +got):\n%s\n%s", diff, out)
	}
	for _, want := range []string{`conformance: spec check create (`, `the body has an "id"`, "> Authorization: Bearer REDACTED", `< "{\"id\":1,\"name\":\"wrong\"}"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "child-secret") {
		t.Errorf("the output shows the token")
	}
	at := regexp.MustCompile(`(?m)^RUN AT (\S+)$`).FindStringSubmatch(out)
	if at == nil {
		t.Fatalf("the child did not say where it calls Run:\n%s", out)
	}
	located := regexp.MustCompile(`(?m)^\s+(\S+\.go:\d+): `).FindAllStringSubmatch(out, -1)
	if len(located) < len(failed) {
		t.Errorf("%d located lines, want one per failed check at least:\n%s", len(located), out)
	}
	for _, l := range located {
		if l[1] != at[1] {
			t.Errorf("a report located at %s, want %s, where the test calls Run:\n%s", l[1], at[1], out)
			break
		}
	}
}

// TestControlStoredFails gives the kit a Fake other than the one serving
// URL: the plants answered 200 are not in it, and control-stored says so.
func TestControlStoredFails(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t)
	other := plantstoretest.NewHandler()
	t.Cleanup(other.Close)
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, Fake: other})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check("control-stored")
	if c.Outcome != conformance.Fail || !strings.Contains(c.Problem, "answered 200, is not listed as sent") || rep.Passed {
		t.Errorf("control-stored: %s %q (passed %v); want a failure naming a plant not listed", c.Outcome, c.Problem, rep.Passed)
	}
	// The scripted faults went to the other fake, and wait there unused.
	other.ClearFaults()
}

// TestLimitSearchAsksProbesAgain runs the kit against a fake behind a
// flake that answers 503 the first time it gets each size of padded body:
// every probe of the largest-body search meets a transient fault once. As
// with any check, each probe is asked again, afresh, and the target's own
// answer decides: the search finds what the fake's does, and says it
// asked again. (Asked again whole, the search started over with fewer
// creates, and three asks recorded a 503.)
func TestLimitSearchAsksProbesAgain(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	var mu sync.Mutex
	seen := map[int]bool{}
	flaky := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		padded := len(body) > 1<<10 && bytes.HasSuffix(body, []byte("  "))
		mu.Lock()
		first := padded && !seen[len(body)]
		seen[len(body)] = seen[len(body)] || padded
		mu.Unlock()
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
	// Each 503 may have stored a plant, for all the kit knows: three cost
	// three creates more than the default 10 leave.
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: serve(t, flaky).URL, Token: plantstoretest.DefaultToken, MaxCreates: 20})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check("largest-body")
	if c.Differs || c.Asked != 2 || c.Answer["refusal"] != c.Reference["refusal"] {
		t.Errorf("largest-body behind a flake: answer %v, asked %d, differs %v; want the fake's %v, asked 2",
			c.Answer, c.Asked, c.Differs, c.Reference)
	}
}

// TestTransientFaultsAreAskedAgain runs the kit against fakes that answer
// 1 % of requests with a random fault (WithChaos: 503, 502, a drop, a
// store-then-drop, a delay), as a real deployment does now and then: a
// check that met one is asked again, and each run passes, and reports
// which checks it asked more than once. Seeds 9 and 16, whose faults reach
// checks (the kit is sequential, so a seed's faults fall on the same
// requests every time); seeds 1 to 20 in the long tests, where two runs
// failed when the kit asked once.
func TestTransientFaultsAreAskedAgain(t *testing.T) {
	t.Parallel()
	seeds := []int64{9, 16}
	if testenv.LongEnabled() {
		seeds = nil
		for s := range int64(20) {
			seeds = append(seeds, s+1)
		}
	}
	askedAgain := 0
	for _, seed := range seeds {
		h := plantstoretest.NewHandler(plantstoretest.WithChaos(0.01, seed))
		rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: serve(t, h).URL, Token: plantstoretest.DefaultToken})
		h.Close()
		if err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		if err := rep.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		for _, c := range rep.Checks {
			if c.Asked > 0 {
				askedAgain++
				t.Logf("seed %d: %s asked %d times", seed, c.ID, c.Asked)
				if want := fmt.Sprintf("asked %d times: an answer met a transient fault", c.Asked); !strings.Contains(text.String(), want) {
					t.Errorf("seed %d: the text report does not say %q", seed, want)
				}
			}
			if c.Outcome == conformance.Fail {
				t.Errorf("seed %d: %s failed against a fake with 1 %% chaos: %s", seed, c.ID, c.Problem)
			}
		}
	}
	if askedAgain == 0 {
		t.Errorf("no check of %d runs at 1 %% chaos was asked again: the faults did not reach the kit", len(seeds))
	}
}

// TestRepeatedIDReadOneWay checks issue 41's second defect: for each way a
// deployment may answer a repeated id, the pair the report prints is the
// pair the client matches, against the deployment itself and against the
// fake given the report's profile.
func TestRepeatedIDReadOneWay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply plantstoretest.ProfileReply
		want  string // the pair the report prints
	}{
		{"an Error", plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":"id {id} is taken"}`}, "(409, 1009)"},
		{"a code without a message", plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009}`}, "(409, 1009)"},
		{"a code with a null message", plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"message":null}`}, "(409, 1009)"},
		{"a code beside the id as a number", plantstoretest.ProfileReply{Status: 409, ContentType: "application/json", Body: `{"error":1009,"id":{id}}`}, "(409, 1009)"},
		{"HTML", plantstoretest.ProfileReply{Status: 409, ContentType: "text/html", Body: `<h1>taken</h1>`}, "(409, 0)"},
		{"nothing", plantstoretest.ProfileReply{Status: 422}, "(422, 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reply := tt.reply
			deployment := plantstoretest.NewHandler(plantstoretest.WithProfile(plantstoretest.Profile{DuplicateID: &reply}))
			t.Cleanup(deployment.Close)
			target := serve(t, deployment)
			var rep conformance.Report
			conformance.Run(t, conformance.Target{URL: target.URL, Token: plantstoretest.DefaultToken, Report: &rep})
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			m := regexp.MustCompile(`plantstore\.WithAlreadyExists\((\d+), (\d+)\)`).FindStringSubmatch(text.String())
			if m == nil || "("+m[1]+", "+m[2]+")" != tt.want {
				t.Fatalf("the report's last lines:\n%s\nwant WithAlreadyExists%s", lastLines(text.String(), 2), tt.want)
			}
			var status, code int
			fmt.Sscan(m[1]+" "+m[2], &status, &code)
			c, err := plantstore.NewClient(target.URL, plantstore.WithToken(plantstoretest.DefaultToken),
				plantstore.WithAlreadyExists(status, int32(code)))
			if err != nil {
				t.Fatal(err)
			}
			calibrated := plantstoretest.NewServer(t, plantstoretest.WithProfile(rep.Profile()))
			for name, c := range map[string]*plantstore.Client{"the deployment, with the printed pair": c, "the fake given the report's profile": calibrated.Client()} {
				p := plantstore.NewPlant{ID: plantstore.NewID(), Name: "Fern"}
				if _, err := c.CreatePlant(context.Background(), p); err != nil {
					t.Fatalf("%s: the first create: %v", name, err)
				}
				if _, err := c.CreatePlant(context.Background(), p); !errors.Is(err, plantstore.ErrAlreadyExists) {
					t.Errorf("%s: the repeat: %v, want an error matching ErrAlreadyExists", name, err)
				}
				if err := c.EnsurePlant(context.Background(), p); err != nil {
					t.Errorf("%s: EnsurePlant of a stored plant: %v, want nil", name, err)
				}
			}
		})
	}
}

// lastLines returns the last n lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestControlStoredCountsTheList: control-stored shows the list it read as
// a count of plants, in words that agree with it: one create, "(1 plant)".
func TestControlStoredCountsTheList(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	m, err := mockserver.New(h, mockserver.Config{AdminToken: "admin-token"})
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, m)
	rep, err := conformance.RunReport(context.Background(), conformance.Target{
		URL:        srv.URL,
		Token:      plantstoretest.DefaultToken,
		Control:    &conformance.Control{URL: srv.URL + "/__plantstore", AdminToken: "admin-token"},
		MaxCreates: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Check("control-stored")
	var got []string
	for _, e := range c.Exchanges {
		got = append(got, e.ResponseBody)
	}
	if len(h.Plants()) != 1 || !slices.Contains(got, "(1 plant)") {
		t.Errorf("control-stored with %d stored: exchanges' bodies %q, want one %q", len(h.Plants()), got, "(1 plant)")
	}
}

// TestLimitSearchCutShort checks a search that the run's creates cut
// short: two 503s, each asked again, cost two creates, and the largest-body
// search ends early. Its bracket differs from the fake's only if the fake's
// limit is outside it.
func TestLimitSearchCutShort(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		limit   int64 // the target refuses a body over it; 0: the fake's
		differs bool
	}{
		{"the fake's limit, in the bracket", 0, false},
		{"a smaller limit, outside the fake's", 100_000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := plantstoretest.NewHandler()
			t.Cleanup(h.Close)
			h.Inject(plantstoretest.Fault{Status: http.StatusServiceUnavailable, Times: 2})
			target := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.limit > 0 && r.ContentLength > tt.limit {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusBadRequest)
					io.WriteString(w, `{"error":4,"message":"body is larger than 1048576 bytes"}`)
					return
				}
				h.ServeHTTP(w, r)
			}))
			var rep conformance.Report
			conformance.Run(t, conformance.Target{URL: target.URL, Token: plantstoretest.DefaultToken, Report: &rep})
			c := rep.Check("largest-body")
			if c.Answer["short"] != "the run's 10 creates ran out" {
				t.Errorf("largest-body answered %v, want it marked short", c.Answer)
			}
			if c.Differs != tt.differs {
				t.Errorf("largest-body: %v against the fake's %v: Differs %v, want %v", c.Answer, c.Reference, c.Differs, tt.differs)
			}
		})
	}
}
