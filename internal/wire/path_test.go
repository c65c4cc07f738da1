package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestMatchPath checks the route table's matcher on its own: a pattern's
// segments match the escaped path's one by one, each decoded once, and a
// {name} segment matches any one segment but an empty one.
func TestMatchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          map[string]string // nil for no match
	}{
		{"/plants", "/plants", map[string]string{}},
		{"/plants", "/pl%61nts", map[string]string{}},
		{"/plants", "/plants/", nil},
		{"/plants", "/plants%2F", nil},
		{"/plants", "//plants", nil},
		{"/plants", "/Plants", nil},
		{"/plants", "", nil},
		{"/plants/{id}", "/plants/7", map[string]string{"id": "7"}},
		{"/plants/{id}", "/plants/a%2Fb", map[string]string{"id": "a/b"}},
		{"/plants/{id}", "/plants/%252F", map[string]string{"id": "%2F"}},
		{"/plants/{id}", "/plants/%2E%2E", map[string]string{"id": ".."}},
		{"/plants/{id}", "/plants/", nil},
		{"/plants/{id}", "/plants", nil},
		{"/plants/{id}", "/plants/7/", nil},
		{"/plants/{id}", "/plants/7/x", nil},
		{"/plants/{id}", "/plants//7", nil},
		{"/plants/{id}", "/plants/%zz", nil},
		{"/plants/{id}", "/x/7", nil},
		{"/{ns}/plants/{id}", "/a/plants/7", map[string]string{"ns": "a", "id": "7"}},
	}
	for _, tt := range tests {
		got, ok := MatchPath(tt.pattern, tt.path)
		if ok != (tt.want != nil) {
			t.Errorf("MatchPath(%q, %q) ok = %v, want %v", tt.pattern, tt.path, ok, tt.want != nil)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); ok && diff != "" {
			t.Errorf("MatchPath(%q, %q) values (-want +got):\n%s", tt.pattern, tt.path, diff)
		}
	}
}

// TestMatchPathAllocations guards the route table's cost on every request: a
// path matched against a pattern without {name} segments, as a create's
// is, costs no allocation.
func TestMatchPathAllocations(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := MatchPath("/plants", "/plants"); !ok {
			t.Fatal(`MatchPath("/plants", "/plants") did not match`)
		}
	})
	if allocs != 0 {
		t.Errorf(`MatchPath("/plants", "/plants") made %v allocations, want 0`, allocs)
	}
}
