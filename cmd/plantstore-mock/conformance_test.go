package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/plantstore/plantstore-go/plantstoretest"
	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// conformanceReport is the part of the -json report the tests read.
type conformanceReport struct {
	Passed      bool     `json:"passed"`
	Differences []string `json:"differences"`
	Control     bool     `json:"control"`
	Checks      []struct {
		ID      string            `json:"id"`
		Tag     string            `json:"tag"`
		Outcome string            `json:"outcome"`
		Answer  map[string]string `json:"answer"`
	} `json:"checks"`
}

// runKit runs plantstore-mock conformance in-process with args and returns
// the exit status, stdout and stderr.
func runKit(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(context.Background(), append([]string{"conformance"}, args...), func(k string) string { return env[k] }, &stdout, &stderr)
	return status, stdout.String(), stderr.String()
}

func TestConformanceAgainstMock(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-token", "kit-token", "-admin-token", "kit-admin")
	status, out, errOut := runKit(t, map[string]string{"PLANTSTORE_ADMIN_TOKEN": "kit-admin"},
		"-url", m.url, "-token", "kit-token", "-control-url", m.url+"/__plantstore", "-json")
	if status != 0 {
		t.Fatalf("status %d, want 0; stderr:\n%s\nstdout:\n%s", status, errOut, out)
	}
	var rep conformanceReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("the -json report does not decode: %v\n%s", err, out)
	}
	if !rep.Passed || len(rep.Differences) != 0 || !rep.Control || len(rep.Checks) < 25 {
		t.Errorf("report: passed %v, differences %q, control %v, %d checks; want a pass with no difference, the control API used, 25 checks or more",
			rep.Passed, rep.Differences, rep.Control, len(rep.Checks))
	}
	if strings.Contains(out, "kit-token") || strings.Contains(out, "kit-admin") {
		t.Errorf("the report shows a token")
	}
}

// TestConformanceProfile writes a profile from a run against a mock, gives
// it to another mock with -profile, and checks that the kit sees the same
// observed answers there.
func TestConformanceProfile(t *testing.T) {
	t.Parallel()
	profile := filepath.Join(t.TempDir(), "profile.json")
	// The source answers as a calibrated mock would: start it with a profile
	// that differs from the fake's own, so that the round trip shows.
	src := filepath.Join(t.TempDir(), "source.json")
	if err := os.WriteFile(src, []byte(`{"duplicate_id":{"status":409,"content_type":"application/json","body":"{\"error\":77,\"message\":\"dup {id}\"}"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	first := startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", src)
	status, out, errOut := runKit(t, nil, "-url", first.url, "-token", plantstoretest.DefaultToken, "-json", "-profile-out", profile)
	if status != 0 {
		t.Fatalf("status %d; stderr:\n%s", status, errOut)
	}
	var before conformanceReport
	if err := json.Unmarshal([]byte(out), &before); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"duplicate-id"}, before.Differences); diff != "" {
		t.Errorf("differences of the profiled mock from the fake (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plantstoretest.ParseProfile(data)
	if err != nil {
		t.Fatalf("-profile-out wrote a profile ParseProfile refuses: %v\n%s", err, data)
	}
	if status, code, ok := p.DuplicateIDError(); !ok || status != 409 || code != 77 {
		t.Errorf("profile's duplicate: %d, %d, %v; want 409, 77", status, code, ok)
	}

	second := startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", profile)
	status, out, errOut = runKit(t, nil, "-url", second.url, "-token", plantstoretest.DefaultToken, "-json")
	if status != 0 {
		t.Fatalf("status %d; stderr:\n%s", status, errOut)
	}
	var after conformanceReport
	if err := json.Unmarshal([]byte(out), &after); err != nil {
		t.Fatal(err)
	}
	answers := func(r conformanceReport) map[string]map[string]string {
		m := map[string]map[string]string{}
		for _, c := range r.Checks {
			if c.Tag == "observed" {
				m[c.ID] = c.Answer
			}
		}
		return m
	}
	if diff := cmp.Diff(answers(before), answers(after)); diff != "" {
		t.Errorf("observed answers of the mock calibrated with -profile differ from the source's (-source +calibrated):\n%s", diff)
	}
}

func TestConformanceText(t *testing.T) {
	t.Parallel()
	m := startRun(t, nil, "-addr", "127.0.0.1:0")
	status, out, errOut := runKit(t, map[string]string{"PLANTSTORE_URL": m.url, "PLANTSTORE_TOKEN": plantstoretest.DefaultToken})
	if status != 0 {
		t.Fatalf("status %d; stderr:\n%s", status, errOut)
	}
	for _, want := range []string{"conformance of " + m.url, "PASS     spec     create ", "SAME     observed duplicate-id", "0 spec failed, 0 observed differ", "repeated id: status 400, error code 5 (plantstore.WithAlreadyExists(400, 5))"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text report lacks %q:\n%s", want, out)
		}
	}
}

func TestConformanceUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no url", nil, []string{"-token", "t"}, "-url (or $PLANTSTORE_URL) is required"},
		{"no token", nil, []string{"-url", "http://127.0.0.1:1"}, "-token (or $PLANTSTORE_TOKEN) is required"},
		// The kit's own checks of its Target, told in flags: what the
		// user typed, not the Go fields a Go user sets.
		{"not loopback", nil, []string{"-url", "https://plants.example.com", "-token", "t"},
			`-url "https://plants.example.com" is not a loopback address, so it may be a real deployment: ` +
				"a run creates up to 10 plants there, which the API cannot delete; pass -live to run against it"},
		{"not loopback from the environment", map[string]string{"PLANTSTORE_URL": "https://plants.example.com"}, []string{"-token", "t"},
			`$PLANTSTORE_URL "https://plants.example.com" is not a loopback address`},
		{"not a base url", nil, []string{"-url", "ftp://127.0.0.1/", "-token", "t"}, `-url "ftp://127.0.0.1/" is not an http or https base URL`},
		{"user in url", nil, []string{"-url", "http://me:secret@127.0.0.1:1", "-token", "t"},
			`-url "http://me:xxxxx@127.0.0.1:1" holds a user or password; give the bearer token in -token (or $PLANTSTORE_TOKEN)`},
		{"control url not http", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-control-url", "127.0.0.1:1"},
			`-control-url "127.0.0.1:1" is not an http or https URL`},
		{"user in control url", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-control-url", "http://me:secret@127.0.0.1:1"},
			`-control-url "http://me:xxxxx@127.0.0.1:1" holds a user or password; give the token in -admin-token (or $PLANTSTORE_ADMIN_TOKEN)`},
		{"control url not loopback", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-control-url", "https://plants.example.com/__plantstore"},
			`-control-url "https://plants.example.com/__plantstore" is not a loopback address; pass -live to use it`},
		{"first id too large", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-first-id", "9223372036854775807"},
			"-first-id 9223372036854775807 leaves no room for the run's ids; want 1 to 9223372036854774807"},
		{"admin token alone", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-admin-token", "a"}, "-admin-token needs -control-url"},
		{"bad max-creates", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-max-creates", "-1"}, "-max-creates is -1, want 1 or more"},
		// 0 is Target.MaxCreates's "the default", 10: on the command line it
		// would read as "create nothing" and create 10.
		{"zero max-creates", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "-max-creates", "0"}, "-max-creates is 0, want 1 or more"},
		{"extra argument", nil, []string{"-url", "http://127.0.0.1:1", "-token", "t", "extra"}, "unexpected arguments"},
	} {
		status, out, errOut := runKit(t, tt.env, tt.args...)
		if status != 2 || out != "" || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "Target") {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want 2, nothing, and %q, in flags, not Go", tt.name, status, out, errOut, tt.want)
		}
	}
}

// TestKitMessagesNameFlags checks that the command knows a flag for every
// field of conformance.Target a message of the kit can name, so that a
// message about a field added later cannot reach the command line in Go
// terms. Client, Fake and Report have no flag: only Go sets them.
func TestKitMessagesNameFlags(t *testing.T) {
	t.Parallel()
	var names []string
	for _, typ := range []reflect.Type{reflect.TypeFor[conformance.Target](), reflect.TypeFor[conformance.Control]()} {
		for i := 0; i < typ.NumField(); i++ {
			switch name := typ.Field(i).Name; name {
			case "Client", "Fake", "Report", "Control":
			case "URL", "AdminToken":
				names = append(names, "Target.Control."+name, "Control."+name)
			default:
				names = append(names, "Target."+name)
			}
		}
	}
	for _, name := range names {
		msg := flagTerms(errors.New("conformance: "+name+" is wrong"), map[string]bool{})
		if strings.Contains(msg, "Target") || strings.Contains(msg, "Control.") || !strings.HasPrefix(msg, "-") && !strings.HasPrefix(msg, "$") {
			t.Errorf("the kit's message about %s reads %q on the command line, want a flag or variable", name, msg)
		}
	}
}

func TestFlagProfileBad(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"duplicate_id":{"status":200,"body":""}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	repeated := filepath.Join(t.TempDir(), "repeated.json")
	if err := os.WriteFile(repeated, []byte(`{"duplicate_id":{"status":409,"body":"a"},"duplicate_id":{"status":410,"body":"b"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{bad, "duplicate_id: status 200: want 400 to 499"},
		{repeated, `profile: field "duplicate_id" appears more than once (at byte 42)`},
		{filepath.Join(t.TempDir(), "missing.json"), "-profile: open"},
	} {
		var stderr bytes.Buffer
		status := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-profile", tt.path}, func(string) string { return "" }, &bytes.Buffer{}, &stderr)
		if status != 2 || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("-profile %s: status %d, stderr %q; want 2 and %q", tt.path, status, stderr.String(), tt.want)
		}
	}
}

// TestConformanceProfileMarkup runs the kit against a mock whose four
// profiled replies are the longest bodies a profile holds, all markup, as a
// gateway's HTML 401 is, and checks that -profile-out writes a profile that
// -profile loads, reply for reply.
func TestConformanceProfileMarkup(t *testing.T) {
	t.Parallel()
	page := func(status int) *plantstoretest.ProfileReply {
		return &plantstoretest.ProfileReply{Status: status, ContentType: "text/html",
			Body: strings.Repeat("<&>", (16<<10)/3)}
	}
	want := plantstoretest.Profile{DuplicateID: page(409), AuthMissing: page(401), AuthMalformed: page(401), AuthInvalid: page(401)}
	var src bytes.Buffer
	enc := json.NewEncoder(&src)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(want); err != nil {
		t.Fatal(err)
	}
	srcPath := filepath.Join(t.TempDir(), "source.json")
	if err := os.WriteFile(srcPath, src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startRun(t, nil, "-addr", "127.0.0.1:0", "-profile", srcPath)
	out := filepath.Join(t.TempDir(), "profile.json")
	if status, _, errOut := runKit(t, nil, "-url", m.url, "-token", plantstoretest.DefaultToken, "-json", "-profile-out", out); status != 0 {
		t.Fatalf("status %d; stderr:\n%s", status, errOut)
	}
	got, err := loadProfile(out)
	if err != nil {
		t.Fatalf("-profile-out wrote a profile -profile refuses: %v", err)
	}
	got.Source = ""
	if diff := cmp.Diff(want, *got); diff != "" {
		t.Errorf("the profile written differs from the one served (-served +written):\n%s", diff)
	}
}
