package mockserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNamespaceAPILeavesTheCallersHeader: the namespace's token stands for
// the API token inside the mock, and the request the caller handed to
// ServeHTTP (a test's, a middleware's) keeps the header it had.
func TestNamespaceAPILeavesTheCallersHeader(t *testing.T) {
	t.Parallel()
	s := nsServer(t, setups[0].c)
	rep := serveWithHost(s, "POST", namespacesPath, "localhost", "")
	nb := decode[namespaceBody](t, rep)
	for i, path := range []string{nsPrefix + nb.Namespace + "/plants", "/plants"} {
		req := httptest.NewRequest("POST", path, bytes.NewReader(plantJSON(i)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+nb.Token)
		before := req.Header.Clone()
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("POST %s with the namespace's token = %d %s", path, w.Code, w.Body)
		}
		if diff := cmp.Diff(before, req.Header); diff != "" {
			t.Errorf("POST %s changed the caller's header (-before +after):\n%s", path, diff)
		}
	}
}
