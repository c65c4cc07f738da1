package mockserver

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestBadBodiesChangeNothing sends bad JSON to every control endpoint: each
// answers a clear 400 (413 over its limit) with an ErrorBody, and nothing
// changes.
func TestBadBodiesChangeNothing(t *testing.T) {
	t.Parallel()
	bad := []struct {
		name string
		body string
		msg  string // for endpoints that take a body
	}{
		{"syntax error", `{"status": 503,`, "invalid JSON"},
		{"cut short", `[{"id": 1`, "invalid JSON"},
		{"not UTF-8", "\xff\xfe", "not valid UTF-8 (at byte 0)"},
		{"whitespace only", "  \n", "no JSON value; want an"},
		{"two values", `{} {}`, "data after the value"}, // [] [] for seeding, below
		{"a string", `"hello"`, "want "},
		{"trailing garbage", `{} x`, "invalid JSON"}, // [] x for seeding
	}
	for _, c := range everyControlCall {
		takesBody := goodBody(c.method, c.path) != nil
		for _, b := range bad {
			t.Run(c.method+" "+c.path+" "+b.name, func(t *testing.T) {
				t.Parallel()
				srv, h := openMock(t)
				h.Seed([]plantstore.NewPlant{{ID: 1, Name: "Fern"}})
				create(t, srv, plantstore.NewPlant{ID: 2, Name: "Ivy"})
				h.AddFault(plantstoretest.Fault{Status: 500, Match: func(r plantstoretest.Request) bool { return r.Plant.ID == 9 }})
				before := snapshot(h)

				body := b.body
				if c.path == "/__plantstore/plants" {
					body = strings.ReplaceAll(strings.ReplaceAll(body, "{}", "[]"), "{", "[")
				}
				rep := call(t, srv, c.method, c.path, []byte(body), "")
				switch {
				case c.path == "/__plantstore/health":
					// Health answers probes whatever they send.
					wantError(t, c.method+" "+c.path, rep, 400, CodeBadControlRequest, "takes no body")
				case takesBody:
					wantError(t, c.method+" "+c.path, rep, 400, plantstoretest.CodeInvalidJSON, b.msg)
				default:
					wantError(t, c.method+" "+c.path, rep, 400, CodeBadControlRequest, c.method+" "+c.path+" takes no body")
				}
				if diff := cmp.Diff(before, snapshot(h)); diff != "" {
					t.Errorf("state changed (-before +after):\n%s", diff)
				}
			})
		}
	}
}

func TestBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	srv, h := openMock(t)
	body := `{"status": 500, "body": "` + strings.Repeat("x", MaxFaultBody) + `"}`
	wantError(t, "POST faults over 1 MiB", call(t, srv, "POST", "/__plantstore/faults", []byte(body), ""), 413, plantstoretest.CodeTooLarge, "1048576 bytes")
	if got := h.Faults(); len(got) != 0 {
		t.Errorf("faults = %+v, want none", got)
	}
	// A body just under the limit is fine.
	body = `{"status": 500, "body": "` + strings.Repeat("x", MaxFaultBody-100) + `"}`
	if rep := call(t, srv, "POST", "/__plantstore/faults", []byte(body), ""); rep.status != 201 {
		t.Errorf("POST faults just under 1 MiB = %d, want 201", rep.status)
	}
	// An endpoint that takes no body reads only a little of one, and says
	// so whatever its size.
	for _, size := range []int{1, maxEmptyBody, maxEmptyBody + 1, 1 << 20} {
		rep := call(t, srv, "POST", "/__plantstore/reset", bytes.Repeat([]byte(" "), size), "")
		wantError(t, fmt.Sprintf("POST reset with a %d-byte body", size), rep, 400, CodeBadControlRequest, "takes no body")
	}
}

// state is what a control call may change.
type state struct {
	Plants   []plantstore.NewPlant
	Requests []uint64
	Faults   []int
}

func snapshot(h *plantstoretest.Handler) state {
	var s state
	s.Plants = h.Plants()
	for _, r := range h.Requests() {
		s.Requests = append(s.Requests, r.Seq)
	}
	for _, f := range h.Faults() {
		s.Faults = append(s.Faults, f.ID, f.Left)
	}
	return s
}

func TestDecodeStrictMessages(t *testing.T) {
	t.Parallel()
	var v struct {
		N int `json:"n"`
	}
	tests := []struct{ in, want string }{
		{``, "no JSON value; want an object"},
		{`{"n": "1"}`, `field "n": want an integer, got JSON string`},
		{`{"n": 1, "m": 2}`, `unknown field "m"`},
		{`{"n": 1`, "invalid JSON: cut short (at byte 7)"},
		{`{"n": 1}]`, "invalid JSON: data after the value"},
		{`{"n" 1}`, "invalid JSON: invalid character '1' after object key (at byte 5)"},
		{`true`, "want an object, got JSON bool"},
		{`null`, "want an object, got JSON null"},
	}
	for _, tt := range tests {
		err := decodeStrict([]byte(tt.in), &v)
		if err == nil || !strings.Contains(err.Error(), tt.want) || err.status != 400 {
			t.Errorf("decodeStrict(%q) = %v, want a 400 containing %q", tt.in, err, tt.want)
		}
	}
	if err := decodeStrict([]byte(` {"n": 7} `), &v); err != nil || v.N != 7 {
		t.Errorf("decodeStrict of a good object = %v, n = %d", err, v.N)
	}
}

// TestArrayRepliesAreOneLine checks that every JSON array the control API
// answers is written as its objects are: compact, on one line, ending with
// a newline; not with a line break between elements.
func TestArrayRepliesAreOneLine(t *testing.T) {
	t.Parallel()
	srv, _ := openMock(t)
	for _, setup := range []struct{ path, body string }{
		{"plants", `[{"id":1,"name":"a"},{"id":2,"name":"b"}]`},
		{"faults", `{"status":503,"match":{"id":98}}`},
		{"faults", `{"status":502,"match":{"id":99}}`},
		{"namespaces", ""},
		{"namespaces", ""},
	} {
		var body []byte
		if setup.body != "" {
			body = []byte(setup.body)
		}
		if rep := call(t, srv, "POST", Prefix+setup.path, body, ""); rep.status != 201 {
			t.Fatalf("POST %s = %d %s", setup.path, rep.status, rep.body)
		}
	}
	for i := 0; i < 2; i++ {
		create(t, srv, plantstore.NewPlant{ID: int64(10 + i), Name: "x"})
	}
	for _, path := range []string{"plants", "faults", "requests", "namespaces"} {
		t.Run(path, func(t *testing.T) {
			rep := call(t, srv, "GET", Prefix+path, nil, "")
			if rep.status != 200 || !bytes.HasPrefix(rep.body, []byte("[{")) {
				t.Fatalf("GET %s = %d %s, want an array of objects", path, rep.status, rep.body)
			}
			if n := bytes.Count(rep.body, []byte("\n")); n != 1 || !bytes.HasSuffix(rep.body, []byte("}]\n")) || !bytes.Contains(rep.body, []byte("},{")) {
				t.Errorf("GET %s = %q: want two or more elements on one line, ending in a newline", path, rep.body)
			}
		})
	}
}
