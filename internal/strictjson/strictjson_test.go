package strictjson

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		data    string
		max     int
		wantErr string // "" for none
	}{
		{"empty object", `{}`, 10, ""},
		{"distinct names", `{"a": 1, "b": [1, 2, {"a": 2}], "c": {"a": 3}}`, 20, ""},
		{"same name in sibling objects", `[{"a": 1}, {"a": 2}]`, 10, ""},
		{"repeated name", `{"status": 503, "status": 200}`, 10, `field "status" appears more than once`},
		{"repeated through an escape", `{"name": 1, "n\u0061me": 2}`, 10, `field "name" appears more than once`},
		{"repeated in a nested object", `{"headers": {"A": "1", "B": "2", "A": "3"}}`, 10, `field "A" appears more than once`},
		{"a value that looks like a name", `{"a": "b", "b": "a"}`, 10, ""},
		{"string with quote and colon", `{"a": "x\":", "b": 1}`, 10, ""},
		{"at the value bound", `[1, 2, 3]`, 4, ""},
		{"past the value bound", `[1, 2, 3, 4]`, 4, "more than 4 JSON values"},
		{"nesting counts", `[[[[[]]]]]`, 4, "more than 4 JSON values"},
		{"names do not count", `{"a": 1, "b": 2}`, 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Check([]byte(tt.data), tt.max)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("Check(%s) = %v, want nil", tt.data, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Msg, tt.wantErr) {
				t.Errorf("Check(%s) = %v, want an *Error containing %q", tt.data, err, tt.wantErr)
			}
		})
	}
}

// FuzzCheck: Check never panics, whatever the bytes.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[`, `"\`, `{"a`, `}}]]`, `{"a":"\u00"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { _ = Check(data, 100) })
}
