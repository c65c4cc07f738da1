package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadError(t *testing.T) {
	t.Parallel()
	type result struct {
		Code       int32
		Message    string
		HasMessage bool
	}
	tests := []struct {
		body string
		want result
	}{
		{`{"error":1009,"message":"id 7 is taken"}`, result{1009, "id 7 is taken", true}},
		{`{"error":1009}`, result{1009, "", false}},
		{`{"error":1009,"message":null}`, result{1009, "", false}},
		{`{"error":1009,"message":5}`, result{1009, "", false}},
		{`{"error":-3,"message":""}`, result{-3, "", true}},
		{`{"error":2147483647}`, result{2147483647, "", false}},
		{`{"error":2147483648}`, result{}},
		{`{"error":1.5,"message":"x"}`, result{}},
		{`{"error":1e3}`, result{}},
		{`{"error":"1009"}`, result{}},
		{`{"error":null}`, result{}},
		{`{"message":"x"}`, result{}},
		{`[1009]`, result{}},
		{`null`, result{}},
		{`<h1>taken</h1>`, result{}},
		{``, result{}},
	}
	for _, tt := range tests {
		var got result
		got.Code, got.Message, got.HasMessage = ReadError([]byte(tt.body))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ReadError(%s) (-want +got):\n%s", tt.body, diff)
		}
	}
}
