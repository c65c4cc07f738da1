package mockserver

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteJSONWithBody: the streamed reply of a fault is byte for byte
// what encoding/json writes for the same reply, whatever the body holds.
func TestWriteJSONWithBody(t *testing.T) {
	t.Parallel()
	bodies := []string{
		"",
		"plain",
		`quote " and backslash \ and slash /`,
		"controls \x00\x01\x1f\t\n\r\x7f \b\f", // \b and \f as encoding/json writes them since Go 1.22
		"html <a href='x'>&amp;</a>",
		"line separators \u2028 \u2029",
		"non-ASCII: Grüße, 植物, 🌿",
		strings.Repeat("long é\"", 20_000), // crosses the 32 KiB pieces
	}
	for _, body := range bodies {
		b := body
		reply := faultStatusJSON{ID: 3, Status: 503, Headers: map[string][]string{"Body": {"null"}}, Delay: "0s", Times: 1, Left: 1}
		got := httptest.NewRecorder()
		writeJSONWithBody(got, 201, reply, []byte(body))
		reply.Body = &b
		want := httptest.NewRecorder()
		writeJSON(want, 201, reply)
		if diff := cmp.Diff(want.Body.String(), got.Body.String()); diff != "" {
			t.Errorf("body %.40q: streamed reply differs from encoding/json's (-want +got):\n%s", body, diff)
		}
		if got.Code != 201 || got.Header().Get("Content-Type") != "application/json" {
			t.Errorf("body %.40q: status %d, Content-Type %q", body, got.Code, got.Header().Get("Content-Type"))
		}
	}
}

// TestJSONText: a fault's body decodes as a string would, escapes and all;
// without escapes it is kept where it lies in the body, not copied, on
// every Go; and null leaves it nil. (A value of another type is
// strictjson's to refuse: TestAddFaultRejectsBadJSONFields.)
func TestJSONText(t *testing.T) {
	t.Parallel()
	type fault struct {
		Body *jsonText `json:"body"`
	}
	for _, in := range []string{`""`, `"plain"`, `"esc \" \\ \/ \n \u00e9 \ud83c\udf3f"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		var got fault
		if err := json.Unmarshal([]byte(`{"body": `+in+`}`), &got); err != nil || got.Body == nil || string(*got.Body) != want {
			t.Errorf("jsonText from %s = %+v, %v; want %q", in, got, err, want)
		}
	}
	body := []byte(`{"body": "plain"}`)
	var got fault
	if err := json.Unmarshal(body, &got); err != nil || got.Body == nil || &(*got.Body)[0] != &body[10] {
		t.Errorf("jsonText from a string without escapes = %+v, %v; want the bytes where they lie", got, err)
	}
	if err := json.Unmarshal([]byte(`{"body": null}`), &got); err != nil || got.Body != nil {
		t.Errorf("jsonText from null = %v, %v; want nil, no error", got.Body, err)
	}
}
