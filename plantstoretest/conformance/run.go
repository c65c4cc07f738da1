package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go/internal/bubble"
	"github.com/plantstore/plantstore-go/internal/plural"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Run checks target against the specification, with a subtest per check
// named by its id: a spec check that does not hold fails its subtest with
// the exchange that shows it; an observed check logs the target's answer
// next to the fake's and never fails. Each is reported at the test's line
// that called Run. A target Run refuses (see [Target]) fails the test at
// once, and so does a call inside a testing/synctest bubble, where t.Run
// may not be called: use [RunReport] there and check [Report.Passed].
func Run(t *testing.T, target Target) {
	t.Helper()
	if bubble.Inside() {
		t.Fatalf("conformance: Run inside a testing/synctest bubble cannot start its subtests (t.Run panics there); " +
			"call RunReport and check its Report.Passed instead")
	}
	rep, err := RunReport(context.Background(), target)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if target.Report != nil {
		*target.Report = *rep
	}
	for _, c := range rep.Checks {
		t.Run(c.ID, func(t *testing.T) {
			t.Helper() // so that each report is at the test's line that called Run
			switch c.Outcome {
			case Fail:
				var b strings.Builder
				fmt.Fprintf(&b, "conformance: %s check %s (%s): %s\n", c.Tag, c.ID, c.Title, c.Problem)
				for _, e := range c.Exchanges {
					b.WriteString(e.String())
				}
				t.Errorf("%s", b.String())
			case Skipped:
				t.Skipf("%s", c.Problem)
			case Recorded:
				if c.Differs {
					t.Logf("target: %s\nfake:   %s", formatAnswer(c.Answer), formatAnswer(c.Reference))
				} else {
					t.Logf("target (same as the fake): %s", formatAnswer(c.Answer))
				}
			}
		})
	}
}

// RunReport runs the checks against target, then against the fake,
// in-process, and returns the report with the two sets of observed answers
// side by side. It fails only when target is refused (see [Target]); a
// target that is down gives a report whose checks failed.
func RunReport(ctx context.Context, target Target) (*Report, error) {
	start := time.Now()
	s, err := target.settings()
	if err != nil {
		return nil, err
	}
	rep := run(ctx, s)
	ref, err := runReference(ctx, target, s)
	if err != nil {
		return nil, err
	}
	rep.Reference = ref.Reference
	rep.compareWith(ref)
	rep.Started = start
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// runReference runs the checks against a fresh plantstoretest.Handler,
// in-process, with the target's limits, scripted through its Go API where
// the target is scripted (the kit never imports the mock). The fake
// answers the same whenever it is asked the same, so a run reuses the
// reference report of the same token, limit and scripting, if kept.
func runReference(ctx context.Context, target Target, ts *settings) (*Report, error) {
	token := target.Token
	if wire.TokenProblem(token) != "" {
		token = plantstoretest.DefaultToken
	}
	key := referenceKey{token: token, maxCreates: ts.maxCreates, scripted: target.Fake != nil || target.Control != nil}
	references.Lock()
	defer references.Unlock()
	if rep, ok := references.m[key]; ok {
		return rep, nil
	}
	h := plantstoretest.NewHandler(plantstoretest.WithToken(token), plantstoretest.WithJournalLimit(0))
	defer h.Close()
	name := "plantstoretest.NewHandler, in-process"
	var fake Fake
	if key.scripted {
		fake = h
		name += ", scripted through its Go API"
	}
	// The requests go straight to the handler, with no network between:
	// what the checks compare is the handler's (status, headers, body).
	ref := Target{URL: "http://127.0.0.1", Token: token, MaxCreates: ts.maxCreates, Client: &http.Client{Transport: handlerTransport{h}}, Fake: fake}
	s, err := ref.settings()
	if err != nil {
		return nil, err
	}
	rep := run(ctx, s)
	rep.Reference = name
	if ctx.Err() == nil { // a run cut short is no reference
		if len(references.m) >= maxReferences {
			clear(references.m) // rare: a suite uses a handful of settings
		}
		references.m[key] = rep
	}
	return rep, nil
}

// referenceKey is what a reference run depends on.
type referenceKey struct {
	token      string
	maxCreates int
	scripted   bool
}

// maxReferences bounds the reference reports kept, a few KiB each.
const maxReferences = 8

// references holds the reference reports runReference made, which nothing
// modifies; its mutex makes concurrent runs with one key make it once.
var references = struct {
	sync.Mutex
	m map[referenceKey]*Report
}{m: map[referenceKey]*Report{}}

// handlerTransport serves each request with a handler, in-process.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.Body == nil {
		r.Body = http.NoBody
	}
	defer r.Body.Close()
	r.RequestURI = r.URL.RequestURI()
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// run runs every check against s's target.
func run(ctx context.Context, s *settings) *Report {
	r := &runner{ctx: ctx, s: s, nextID: s.firstID}
	rep := &Report{
		Target:     s.base,
		MaxCreates: s.maxCreates,
		FirstID:    s.firstID,
		NamePrefix: s.prefix,
		Control:    s.control != nil || s.fake != nil,
		Passed:     true,
	}
	for _, ch := range r.checks() {
		c := CheckResult{ID: ch.id, Tag: ch.tag, Title: ch.title}
		switch {
		case ch.needsControl && s.control == nil && s.fake == nil:
			skip(&c, "needs the target's control API (Target.Control or Target.Fake, -control-url); a real deployment has none")
		case r.silent >= maxSilent:
			skip(&c, "not run: the target did not answer the last %d requests in time (Target.Client's timeout, at most %v), so the run sent no more", maxSilent, requestTimeout)
		default:
			// A check that met a transient fault is asked again, afresh
			// (new ids, so no create repeats one), but for a scripted one,
			// whose faults are the point, and a limit search, which asks
			// each probe again itself (runner.search).
			for asked := 1; ; asked++ {
				c = CheckResult{ID: ch.id, Tag: ch.tag, Title: ch.title}
				ch.run(&c)
				if ch.needsControl || ch.search || !r.askAgain(asked, slices.ContainsFunc(c.Exchanges, transient)) {
					if asked > 1 {
						c.Asked = asked
					}
					break
				}
			}
			c.Problem = printable(c.Problem) // it may quote what the target sent
		}
		if c.Outcome == "" && c.Tag == Spec {
			c.Outcome = Pass
		} else if c.Outcome == "" {
			c.Outcome = Recorded
		}
		if c.Outcome == Fail {
			rep.Passed = false
		}
		rep.Checks = append(rep.Checks, c)
	}
	// Calibrated marks exactly the answers the profile holds: not one it
	// leaves out (a 200 to a repeated id, a body over the 16 KiB a Profile holds).
	p := rep.Profile()
	for _, pc := range profileChecks {
		if c := rep.Check(pc.id); c != nil && *pc.reply(&p) != nil {
			c.Calibrated = true
		}
	}
	rep.Creates = r.used
	rep.LastID = r.nextID - 1
	r.s.client.CloseIdleConnections()
	return rep
}

// runner holds a run's state: the creates it may still make, the ids it
// used, and what the target answered, for error-shape and control-stored.
type runner struct {
	ctx         context.Context
	s           *settings
	used        int // requests that may have stored a plant
	nextID      int64
	silent      int           // requests in a row that timed out
	answered400 []answered    // the API's 400s to the run
	stored      []storedPlant // what the target answered 2xx to
	refused     []int64       // ids the target refused with a 4xx
}

// answered is an exchange, and the check that sent it.
type answered struct {
	check string
	e     *Exchange
}

type storedPlant struct {
	id        int64
	name, tag string
}

// id returns a fresh plant id.
func (r *runner) id() int64 {
	id := r.nextID
	r.nextID++
	return id
}

// name returns a plant name: the run's prefix and s.
func (r *runner) name(s string) string { return r.s.prefix + s }

// headers returns the headers of a create: JSON, and the bearer token.
func (r *runner) headers() http.Header {
	return http.Header{
		"Authorization": {"Bearer " + r.s.token},
		"Content-Type":  {"application/json"},
	}
}

// send sends a request to the target's path and records it in c.
func (r *runner) send(c *CheckResult, method, path string, header http.Header, body []byte) *Exchange {
	e := do(r.ctx, r.s.client, r.s.secrets, method, r.s.base+path, header, body, maxResponseBody)
	c.Exchanges = append(c.Exchanges, e)
	if e.Status == http.StatusBadRequest {
		r.answered400 = append(r.answered400, answered{c.ID, e})
	}
	if e.timedOut {
		r.silent++
	} else {
		r.silent = 0
	}
	return e
}

// maxAsks bounds how many times a check is asked when each answer met a
// transient fault.
const maxAsks = 3

// askAgain reports whether a check, or a limit search's probe, asked
// asked times so far, is asked again: its answer met a transient fault,
// and the target still answers.
func (r *runner) askAgain(asked int, transient bool) bool {
	return transient && asked < maxAsks && r.silent < maxSilent
}

// transient reports whether e met a fault that says nothing of the
// specification, and may not recur: a connection dropped or reset before
// an answer (a timeout is the target's silence, counted apart), or 429,
// 502, 503 or 504.
func transient(e *Exchange) bool {
	switch e.Status {
	case 0:
		return e.Error != "" && !e.timedOut
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// maxSilent is how many requests in a row may time out before a run stops
// sending.
const maxSilent = 2

// create sends a request that might store a plant with the given id, name
// and tag, if the run's create budget allows it; otherwise it marks c
// skipped and returns nil. A 4xx answer gives the create back.
func (r *runner) create(c *CheckResult, header http.Header, body []byte, p storedPlant) *Exchange {
	return r.createAt(c, "/plants", header, body, p)
}

// createAt is create with a POST to path. A path other than /plants may
// store a plant too, on a target that routes on a prefix, so it counts
// against the budget alike; but control-stored holds only what /plants
// answered to what the control API lists.
func (r *runner) createAt(c *CheckResult, path string, header http.Header, body []byte, p storedPlant) *Exchange {
	if r.used >= r.s.maxCreates {
		skip(c, "the run has used up its %s (Target.MaxCreates, -max-creates)", plural.Count(r.s.maxCreates, "create"))
		return nil
	}
	r.used++
	e := r.send(c, http.MethodPost, path, header, body)
	switch {
	case e.Status >= 400 && e.Status <= 499:
		r.used--
		if path == "/plants" {
			r.refused = append(r.refused, p.id)
		}
	case e.Status >= 200 && e.Status <= 299 && path == "/plants":
		r.stored = append(r.stored, p)
	}
	return e
}

// plantJSON is a NewPlant body with the fields given, in order; a value is
// raw JSON.
func plantJSON(fields ...string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", fields[i], fields[i+1])
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string cannot fail
	return string(b)
}

func itoa(id int64) string { return strconv.FormatInt(id, 10) }

// answer is the comparable form of a reply: its status and the headers and
// body the specification leaves open, with p's id and name in the body
// replaced by placeholders.
func answer(e *Exchange, p storedPlant) map[string]string {
	if e.Status == 0 {
		return map[string]string{"status": "no response"}
	}
	a := map[string]string{"status": strconv.Itoa(e.Status)}
	for k, name := range map[string]string{
		"Content-Type":     "content_type",
		"WWW-Authenticate": "challenge",
		"Allow":            "allow",
		"Retry-After":      "retry_after",
	} {
		if v, ok := e.ResponseHeader[k]; ok {
			a[name] = v
		}
	}
	a["body"] = normalize(string(e.body), p)
	return a
}

// normalize replaces p's name and id in s with "{name}" and "{id}".
func normalize(s string, p storedPlant) string {
	if p.name != "" {
		s = strings.ReplaceAll(s, p.name, "{name}")
	}
	if p.id != 0 {
		s = strings.ReplaceAll(s, itoa(p.id), plantstoretest.IDPlaceholder)
	}
	return s
}
