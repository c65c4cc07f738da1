package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/internal/testenv"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// echoForms are the ways a target may echo the token it got: as written,
// and escaped the ways a proxy's debug page or an error that quotes the
// request escapes it. The kit redacts each of them.
var echoForms = []struct {
	name   string
	encode func(string) string
}{
	{"as written", func(s string) string { return s }},
	{"JSON, Go style", func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) }},
	{"JSON, escaped slash", func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }},
	{"JSON, every character \\u00XX", func(s string) string { return eachByte(s, `\u%04X`) }},
	{"percent-encoded", func(s string) string { return eachByte(s, "%%%02x") }},
	{"URL query", url.QueryEscape},
	{"HTML", html.EscapeString},
	{"HTML, numeric", func(s string) string { return eachByte(s, "&#%d;") }},
}

// formsToRun are the echoForms a test runs the kit against: all of them
// in the long tests (scripts/test.sh -long, as CI runs it), and otherwise
// one a way of escaping (as written, \u, %, &#): each form is a whole
// run of the kit, 0.6 s under -race. internal/wire's tests hold Redact to
// every form.
func formsToRun() []struct {
	name   string
	encode func(string) string
} {
	if testenv.LongEnabled() {
		return echoForms
	}
	return []struct {
		name   string
		encode func(string) string
	}{echoForms[0], echoForms[3], echoForms[4], echoForms[7]}
}

// eachByte writes every byte of s in format.
func eachByte(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// TestEchoedTokenRedacted runs the kit against a server that echoes the
// token it got, in its body and in a header, as some debug builds of real
// services do, as written and escaped: neither the report (text and JSON)
// nor the profile taken from it may show the token in any form, nor the
// control API's. A token under 8 bytes is redacted where "Bearer " precedes
// it.
func TestEchoedTokenRedacted(t *testing.T) {
	t.Parallel()
	for _, form := range formsToRun() {
		for _, tt := range []struct{ token, admin string }{
			{"echoed/secret+0xCAFE&<b>", "echoed-admin-0xBEEF"},
			{"s&3", "adm"},
		} {
			t.Run(form.name+"/"+tt.token, func(t *testing.T) {
				t.Parallel()
				checkEchoedTokenRedacted(t, tt.token, tt.admin, form.encode)
			})
		}
	}
}

// echoServer serves a target that refuses every create with a 400 whose
// body and WWW-Authenticate echo the credentials it got, the token in it
// encoded by encode, and passes the rest to next.
func echoServer(t *testing.T, next http.Handler, encode func(string) string) *httptest.Server {
	t.Helper()
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/plants" {
			next.ServeHTTP(w, r)
			return
		}
		auth := r.Header.Get("Authorization")
		if scheme, token, ok := strings.Cut(auth, " "); ok {
			auth = scheme + " " + encode(token)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", got="`+auth+`"`)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":1,"message":"refused ` + auth + `"}`))
	}))
}

func checkEchoedTokenRedacted(t *testing.T, token, admin string, encode func(string) string) {
	h := plantstoretest.NewHandler(plantstoretest.WithToken(token))
	t.Cleanup(h.Close)
	m, err := mockserver.New(h, mockserver.Config{AdminToken: admin})
	if err != nil {
		t.Fatal(err)
	}
	srv := echoServer(t, m, encode)
	rep, err := conformance.RunReport(context.Background(), conformance.Target{
		URL:     srv.URL,
		Token:   token,
		Control: &conformance.Control{URL: srv.URL + "/__plantstore", AdminToken: admin},
	})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Profile()
	if p.AuthInvalid == nil {
		t.Fatalf("the profile holds no auth_invalid reply, so it shows nothing of the echo: %+v", p)
	}
	profile, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"Bearer " + token, "Bearer " + admin, "Bearer " + encode(token), "echoed-admin-0xBEEF"}
	if len(token) >= 8 {
		secrets = append(secrets, token, encode(token))
	}
	outputs := map[string]string{
		"text report": text.String(),
		"JSON report": string(data), "JSON report's strings": jsonStrings(t, data),
		"profile": string(profile), "profile's strings": jsonStrings(t, profile),
	}
	for name, out := range outputs {
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Errorf("the %s shows the token the server echoed, as %q", name, secret)
			}
		}
	}
	// The redaction still shows where the token was.
	if !strings.Contains(text.String(), `refused Bearer REDACTED`) {
		t.Errorf("the text report does not show the echoed token as REDACTED:\n%s", text.String())
	}
}

// jsonStrings returns the strings of the JSON document data, decoded, one
// a line: a token JSON-escaped in a value shows there as the target sent
// it, not escaped once more.
func jsonStrings(t *testing.T, data []byte) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(doc)
	return b.String()
}

// hostileChildEnv makes TestHostileLogChild run, in the child process of
// TestHostileLog.
const hostileChildEnv = "CONFORMANCE_HOSTILE_CHILD"

// hostileToken is the token of TestHostileLog's runs.
const hostileToken = "log/secret+0xCAFE&<b>"

// TestHostileLogChild runs Run against a target that echoes the token in
// each of echoForms. It runs only as TestHostileLog's child, where the
// failures are the point.
func TestHostileLogChild(t *testing.T) {
	if os.Getenv(hostileChildEnv) != "1" {
		t.Skip("runs only as TestHostileLog's child")
	}
	for _, form := range formsToRun() {
		t.Run(form.name, func(t *testing.T) {
			h := plantstoretest.NewHandler(plantstoretest.WithToken(hostileToken))
			t.Cleanup(h.Close)
			srv := echoServer(t, h, form.encode)
			conformance.Run(t, conformance.Target{URL: srv.URL, Token: hostileToken, Fake: h})
		})
	}
	for _, tt := range terminalTargets {
		t.Run("terminal "+tt.name, func(t *testing.T) {
			conformance.Run(t, conformance.Target{URL: serve(t, tt.handler).URL, Token: hostileToken})
		})
	}
}

// TestHostileLog checks what a hostile target gets into Run's test log:
// not the token, in any form it echoes it, nor a character that drives the
// terminal, nor a line of its own.
func TestHostileLog(t *testing.T) {
	t.Parallel()
	out := runFailingChild(t, "TestHostileLogChild", hostileChildEnv)
	for _, form := range formsToRun() {
		if !strings.Contains(out, "--- FAIL: TestHostileLogChild/"+strings.ReplaceAll(form.name, " ", "_")) {
			t.Errorf("the run against the target that echoes the token %s did not fail", form.name)
		}
		if enc := form.encode(hostileToken); strings.Contains(out, enc) {
			t.Errorf("the log shows the token %s: %q", form.name, enc)
		}
	}
	if !strings.Contains(out, "refused Bearer REDACTED") {
		t.Errorf("the log does not show the echoed token as REDACTED:\n%s", out)
	}
	for _, tt := range terminalTargets {
		if !strings.Contains(out, "--- FAIL: TestHostileLogChild/terminal_"+tt.name) {
			t.Errorf("the run against the target that sends control characters in its %s did not fail", tt.name)
		}
	}
	checkTerminalSafe(t, "Run's log", out)
}

// TestTokenAtTheReadLimit runs the kit against a target whose answers
// hold the token so that the kit's read limit (64 KiB) cuts it: 64 KiB less
// k bytes of padding, then the token in one of echoForms, with k from 1 to
// its length less one, a different k for each request. No part of the
// token may survive the cut: every body the report keeps is padding only.
func TestTokenAtTheReadLimit(t *testing.T) {
	t.Parallel()
	const token = "cut/secret+CAFE&<b>"
	const limit = 64 << 10
	for _, form := range formsToRun() {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			enc := form.encode(token)
			var mu sync.Mutex
			n := 0
			srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				k := 1 + n%(len(enc)-1)
				n++
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(strings.Repeat("x", limit-k) + enc + strings.Repeat("y", 100)))
			}))
			rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: token})
			if err != nil {
				t.Fatal(err)
			}
			bodies := 0
			for _, c := range rep.Checks {
				if body, ok := c.Answer["body"]; ok {
					bodies++
					if rest := strings.TrimLeft(body, "x"); rest != "" || len(body) < limit-12*len(token) {
						t.Errorf("%s: the body kept is %d bytes, ending %q; want padding only, no part of the token", c.ID, len(body), body[max(0, len(body)-40):])
					}
				}
				for _, e := range c.Exchanges {
					if rest := strings.TrimLeft(e.ResponseBody, "x"); rest != "" {
						t.Errorf("%s: the exchange's body ends %q; want padding only", c.ID, rest)
					}
				}
			}
			if bodies < 10 {
				t.Errorf("%d answers hold a body, want 10 or more", bodies)
			}
		})
	}
}

// terminalPayload is what a target that tries to drive the terminal of
// the kit's user sends: an erase, a window title ended by BEL, a carriage
// return and a line of its own that reads as a pass, a C1 CSI erase, a
// bidirectional override, DEL, a byte of invalid UTF-8.
const terminalPayload = "\x1b[2J\x1b]0;owned\x07\r\nPASS     spec     FORGED\r\u009b2J\u202eevil\x7f\xff"

// headerPayload is terminalPayload as far as a header can carry it: net/http
// refuses C0 controls and DEL in a header, and turns CR and LF to spaces.
const headerPayload = "\u009b2J\u202eevil FORGED"

// terminalTargets answer every request with terminalPayload where a target
// controls the text the kit shows: the body as sent, strings of a JSON body
// that the kit decodes (and quotes in a check's problem), and the headers
// an exchange shows.
var terminalTargets = []struct {
	name    string
	handler http.HandlerFunc
}{
	{"body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(terminalPayload))
	}},
	{"JSON", func(w http.ResponseWriter, r *http.Request) {
		b, _ := json.Marshal(map[string]any{"error": terminalPayload, "message": []string{terminalPayload}, "name": 1, "tag": terminalPayload})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(b)
	}},
	{"headers", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", headerPayload)
		w.Header().Set("WWW-Authenticate", headerPayload)
		w.Header().Set("Location", "/"+headerPayload)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}},
}

// checkTerminalSafe fails t if out, shown on a terminal, would act on it or
// hide text: a character strconv.IsPrint refuses (C0 and C1 controls, DEL,
// a bidirectional override), newlines aside, or invalid UTF-8; or if a
// line of out is the target's, forged to read as a pass.
func checkTerminalSafe(t *testing.T, name, out string) {
	t.Helper()
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRuneInString(out[i:])
		if r != '\n' && (r == utf8.RuneError && n == 1 || !strconv.IsPrint(r)) {
			t.Errorf("%s: %q at byte %d, the first such: %q", name, out[i:i+n], i, out[max(0, i-60):min(len(out), i+60)])
			break
		}
		i += n
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "FORGED") && strings.HasPrefix(line, "PASS") {
			t.Errorf("%s: a line of the target's own: %q", name, line)
			break
		}
	}
}

// TestTerminalSafe runs the kit against targets that send characters that
// drive a terminal, or a line break and a line that reads as a pass, in
// their bodies and headers: the text report and the JSON report (as
// plantstore-mock conformance -json prints it) show them escaped, on the
// line they belong to.
func TestTerminalSafe(t *testing.T) {
	t.Parallel()
	for _, tt := range terminalTargets {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: serve(t, tt.handler).URL, Token: "terminal-token"})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			checkTerminalSafe(t, "the text report", text.String())
			if !strings.Contains(text.String(), `\u009b2J`) {
				t.Errorf("the text report does not show the target's C1 control escaped:\n%s", text.String())
			}
			data, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			checkTerminalSafe(t, "the JSON report", string(data))
			var indented bytes.Buffer
			enc := json.NewEncoder(&indented)
			enc.SetIndent("", "  ")
			if err := enc.Encode(rep); err != nil {
				t.Fatal(err)
			}
			checkTerminalSafe(t, "the indented JSON report", indented.String())
			var back conformance.Report
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatal(err)
			}
			// The answers, as JSON holds them: invalid UTF-8 reads U+FFFD.
			answers := func(r *conformance.Report) map[string]map[string]string {
				m := map[string]map[string]string{}
				for _, c := range r.Checks {
					m[c.ID] = map[string]string{}
					for k, v := range c.Answer {
						m[c.ID][k] = strings.ToValidUTF8(v, "\uFFFD")
					}
				}
				return m
			}
			if got := rep.Check("auth-missing").Answer["body"]; tt.name != "headers" && !strings.Contains(got, "\u009b") {
				t.Fatalf("auth-missing's answer %q lacks the target's C1 control", got)
			}
			if diff := cmp.Diff(answers(rep), answers(&back)); diff != "" {
				t.Errorf("the JSON report does not decode to the answers (-report +decoded):\n%s", diff)
			}
		})
	}
}

// TestExchangeStringTerminalSafe checks that Exchange.String shows what a
// target controls escaped, whatever field holds it: an answer's headers,
// its body, and the error that says why it could not be read.
func TestExchangeStringTerminalSafe(t *testing.T) {
	t.Parallel()
	for _, e := range []*conformance.Exchange{
		{Method: "POST", URL: "http://127.0.0.1/plants", Status: 400,
			ResponseHeader: map[string]string{"Location": terminalPayload}, ResponseBody: terminalPayload, Error: terminalPayload},
		{Method: "POST", URL: "http://127.0.0.1/plants", Error: terminalPayload},
	} {
		checkTerminalSafe(t, fmt.Sprintf("Exchange.String of status %d", e.Status), e.String())
	}
}

// TestCalibratedOnlyWhatTheProfileHolds runs the kit against a fake that
// accepts a repeated id with 200, an answer a Profile cannot give: the
// report must not mark duplicate-id Calibrated, and the profile must not
// hold it, while the checks the profile does hold stay marked.
func TestCalibratedOnlyWhatTheProfileHolds(t *testing.T) {
	t.Parallel()
	srv := plantstoretest.NewServer(t, plantstoretest.WithAllowDuplicateIDs())
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken})
	if err != nil {
		t.Fatal(err)
	}
	dup := rep.Check("duplicate-id")
	if got := dup.Answer["status"]; got != "200" {
		t.Fatalf("duplicate-id answered %q, want 200 from a fake that allows repeated ids", got)
	}
	if p := rep.Profile(); p.DuplicateID != nil {
		t.Errorf("the profile holds a duplicate_id %+v for a 200", *p.DuplicateID)
	}
	if dup.Calibrated {
		t.Errorf("duplicate-id is marked Calibrated, but no profile can give a 200")
	}
	if c := rep.Check("auth-missing"); !c.Calibrated {
		t.Errorf("auth-missing, a 401 a profile holds, is not marked Calibrated")
	}
}

// TestLimitSearchWithoutCreates runs the kit with too few creates for the
// limit searches to send anything: they are skipped, and say why, rather
// than record "accepted none, refused none", which reads as a target that
// takes no body at all.
func TestLimitSearchWithoutCreates(t *testing.T) {
	t.Parallel()
	for max, says := range map[int]string{1: "its 1 create ", 2: "its 2 creates "} {
		srv := plantstoretest.NewServer(t)
		rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken, MaxCreates: max})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"longest-name", "largest-body"} {
			c := rep.Check(id)
			if c.Outcome != conformance.Skipped || !strings.Contains(c.Problem, says) || len(c.Exchanges) != 0 {
				t.Errorf("MaxCreates %d: %s: %s %q, answer %v, %d exchanges; want it skipped for want of creates (%q), with none sent",
					max, id, c.Outcome, c.Problem, c.Answer, len(c.Exchanges), says)
			}
		}
	}
}

// TestMaxCreatesLaxRouting runs the kit against a server that takes a
// create on any path, as one that routes on a prefix does: the POST to
// the path the API does not have may store a plant too, and counts
// against MaxCreates like any other.
func TestMaxCreatesLaxRouting(t *testing.T) {
	t.Parallel()
	for _, max := range []int{1, 10} {
		srv, accepted := acceptAll(t, true)
		rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: "lax-routing-token", MaxCreates: max})
		if err != nil {
			t.Fatal(err)
		}
		got := accepted()
		if got > max || rep.Creates != got {
			t.Errorf("MaxCreates %d: the server accepted %d POSTs, the report counts %d creates; want at most %d, and counted", max, got, rep.Creates, max)
		}
	}
}

// TestTextSummaryCountsDifferences checks that the text report's count of
// observed checks that differ is the length of the list it prints, when
// some of them differ because the target's was skipped and the fake's not.
func TestTextSummaryCountsDifferences(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: url, Token: "closed-port-token"})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d observed differ from the fake (%s)", len(rep.Differences), strings.Join(rep.Differences, ", "))
	if !strings.Contains(text.String(), want) {
		t.Errorf("the text report lacks %q:\n%s", want, text.String())
	}
}

// TestSilentTargetStopsTheRun runs the kit against a target that takes
// every request and never answers: after two requests in a row that time
// out, it sends no more, and the remaining checks are skipped, saying why,
// so that a run against a hung deployment takes two timeouts, not one per
// check (about 2 minutes with the default 10 s).
func TestSilentTargetStopsTheRun(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	received := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received++
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs before srv.Close
	rep, err := conformance.RunReport(context.Background(), conformance.Target{
		URL:    srv.URL,
		Token:  "silent-target-token",
		Client: &http.Client{Timeout: 50 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	got := received
	mu.Unlock()
	sent := 0
	for _, c := range rep.Checks {
		sent += len(c.Exchanges)
	}
	// The server may not have seen a request yet when its client gave up.
	if sent != 2 || got > 2 {
		t.Errorf("the run sent %d requests, the silent target received %d; want 2", sent, got)
	}
	if rep.Passed {
		t.Errorf("a target that never answers passed")
	}
	for _, id := range []string{"auth-required", "method-not-allowed"} { // a create, and not
		c := rep.Check(id)
		if c.Outcome != conformance.Skipped || !strings.Contains(c.Problem, "did not answer") || len(c.Exchanges) != 0 {
			t.Errorf("%s: %s %q, %d exchanges; want it skipped, none sent, because the target did not answer", id, c.Outcome, c.Problem, len(c.Exchanges))
		}
	}
}

// TestEvery400IsAnError runs the kit against a server that refuses a
// repeated id with a 400 whose body is text, not an Error: the
// specification says every 400 carries one, so a spec check fails, naming
// the check whose request got it, though duplicate-id itself is observed.
func TestEvery400IsAnError(t *testing.T) {
	t.Parallel()
	h := plantstoretest.NewHandler()
	t.Cleanup(h.Close)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var e plantstoretest.ErrorBody
		if rec.Code == http.StatusBadRequest && json.Unmarshal(rec.Body.Bytes(), &e) == nil && e.Code == plantstoretest.CodeDuplicateID {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte("duplicate"))
			return
		}
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: plantstoretest.DefaultToken})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed {
		t.Errorf("a 400 with a text body passed every spec check")
	}
	var failed []string
	for _, c := range rep.Checks {
		if c.Outcome == conformance.Fail {
			failed = append(failed, c.ID)
			if !strings.Contains(c.Problem, "duplicate-id") || len(c.Exchanges) != 1 || c.Exchanges[0].ResponseBody != "duplicate" {
				t.Errorf("%s: %q, %d exchanges; want the problem to name duplicate-id, with its exchange", c.ID, c.Problem, len(c.Exchanges))
			}
		}
	}
	if len(failed) != 1 {
		t.Errorf("failed checks %q, want one", failed)
	}
}

// TestHostileAnswers runs the kit against servers that answer what no
// Plant Store would: a 400 of 1 MiB, a redirect, an HTML 502. The run ends
// with a report and no panic; the text report stays readable (no line over
// a few KiB, however large the answers); a redirect's Location shows.
func TestHostileAnswers(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 1<<20)
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"huge body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(big))
		}, "body cut at 65536 bytes"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.2:9/elsewhere", http.StatusTemporaryRedirect)
		}, `< Location: "http://127.0.0.2:9/elsewhere"`},
		{"html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html>bad gateway</html>"))
		}, `Content-Type "text/html", want application/json`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, tt.handler)
			rep, err := conformance.RunReport(context.Background(), conformance.Target{URL: srv.URL, Token: "hostile-token"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Passed {
				t.Errorf("passed")
			}
			var text strings.Builder
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(text.String(), "\n") {
				if len(line) > 4<<10 {
					t.Errorf("line %d of the text report is %d bytes: %.200s…", i+1, len(line), line)
				}
			}
			if tt.name != "html" && !strings.Contains(text.String(), tt.want) {
				t.Errorf("the text report lacks %q", tt.want)
			}
		})
	}
}
