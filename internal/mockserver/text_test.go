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
		"controls \x00\x01\x1f\t\n\r\x7f",
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

// TestJSONText: a fault's body decodes as a string would, escapes and all,
// and refuses what is not a string.
func TestJSONText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`""`, `"plain"`, `"esc \" \\ \/ \n \u00e9 \ud83c\udf3f"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		var got jsonText
		if err := json.Unmarshal([]byte(in), &got); err != nil || string(got) != want {
			t.Errorf("jsonText from %s = %q, %v; want %q", in, got, err, want)
		}
	}
	var v struct {
		Body *jsonText `json:"body"`
	}
	if err := json.Unmarshal([]byte(`{"body": 5}`), &v); err == nil || !strings.Contains(err.Error(), "body") {
		t.Errorf(`jsonText from 5: error %v, want one naming the field "body"`, err)
	}
	if err := json.Unmarshal([]byte(`{"body": null}`), &v); err != nil || v.Body != nil {
		t.Errorf("jsonText from null = %v, %v; want nil, no error", v.Body, err)
	}
	if err := new(jsonText).UnmarshalJSON(nil); err == nil { // encoding/json never calls it so, but a caller may
		t.Error("jsonText from no bytes: no error")
	}
}
