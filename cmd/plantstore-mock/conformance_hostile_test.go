package main

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileToken is the token TestConformanceHostile's target echoes.
const hostileToken = "cli/secret+0xCAFE&<b>"

// hostileForms are the forms TestConformanceHostile's target echoes the
// token in: escaped as a JSON string with \/, percent-encoded and as HTML.
var hostileForms = []string{
	strings.ReplaceAll(hostileToken, "/", `\/`),
	url.QueryEscape(hostileToken),
	html.EscapeString(hostileToken),
}

// hostileControls are what hostileTarget sends to drive the terminal of
// the kit's user: an erase, a window title ended by BEL, a carriage return
// and a line of its own that reads as a pass, a C1 CSI, DEL.
const hostileControls = "\x1b[2J\x1b]0;owned\x07\r\nPASS     spec     FORGED\r\u009b2J\x7f"

// hostileTarget serves a target that refuses every request with a 400
// whose body and WWW-Authenticate echo the token in each of hostileForms;
// the body also holds hostileControls, and the header the C1 control of
// them (net/http refuses the others in a header).
func hostileTarget(t *testing.T) *httptest.Server {
	t.Helper()
	echo := "refused " + strings.Join(hostileForms, " ") + " \u009b2J"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", got="`+echo+`"`)
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":1,"message":"` + echo + `"}` + hostileControls))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConformanceHostile runs plantstore-mock conformance against a target
// that echoes the token escaped, and sends characters that drive a
// terminal: neither the text report, nor the -json report, nor the
// -profile-out file (which a mock then serves) shows the token in any form,
// decoded or not; and the two reports show those characters escaped, and
// no line of the target's own.
func TestConformanceHostile(t *testing.T) {
	t.Parallel()
	srv := hostileTarget(t)
	profile := filepath.Join(t.TempDir(), "profile.json")
	_, text, _ := runKit(t, nil, "-url", srv.URL, "-token", hostileToken)
	status, js, errOut := runKit(t, nil, "-url", srv.URL, "-token", hostileToken, "-json", "-profile-out", profile)
	if status != 1 {
		t.Fatalf("status %d, want 1 (spec checks failed); stderr:\n%s", status, errOut)
	}
	p, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{"text report": text, "-json report": js, "-profile-out file": string(p)}
	for name, data := range map[string]string{"-json report": js, "-profile-out file": string(p)} {
		outputs[name+"'s strings"] = jsonStrings(t, []byte(data))
	}
	for name, out := range outputs {
		for _, secret := range append([]string{hostileToken}, hostileForms...) {
			if strings.Contains(out, secret) {
				t.Errorf("the %s shows the token as %q", name, secret)
			}
		}
	}
	if !strings.Contains(string(p), "REDACTED") {
		t.Errorf("the -profile-out file shows no REDACTED where the target echoed the token:\n%s", p)
	}
	for name, out := range map[string]string{"text report": text, "-json report": js} {
		for i, r := range out {
			if r != '\n' && (r == utf8.RuneError || !strconv.IsPrint(r)) {
				t.Errorf("the %s holds %q at byte %d, the first character that drives a terminal", name, r, i)
				break
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "PASS") && strings.Contains(line, "FORGED") {
				t.Errorf("the %s holds a line of the target's own: %q", name, line)
				break
			}
		}
	}
}

// jsonStrings returns the strings of the JSON document data, keys and
// values, decoded, one a line: a token JSON-escaped in a value shows there
// as the target sent it.
func jsonStrings(t *testing.T, data []byte) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
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
