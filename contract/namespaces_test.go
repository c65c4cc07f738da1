package contract

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plantstore/plantstore-go/internal/mockserver"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// TestControlContractNamespaces holds the namespace endpoints to the
// control API's document, and a namespace's own control API, at
// {base_url}/__plantstore/, to the same document as the mock's.
func TestControlContractNamespaces(t *testing.T) {
	t.Parallel()
	c := loadControlContract(t)
	srv, _ := newControlMock(t, mockserver.Config{Loopback: true, Namespaces: mockserver.NamespaceConfig{
		Max:       2,
		Options:   []plantstoretest.Option{plantstoretest.WithJournalBodyLimit(mockserver.JournalBodyLimit)},
		APIToken:  controlAPIToken,
		MaxPlants: 1000,
	}})
	for _, cc := range []controlCall{
		{method: "GET", path: "/__plantstore/namespaces", wantStatus: 200},
		{method: "POST", path: "/__plantstore/namespaces", wantStatus: 201},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"ttl": "10m", "max_plants": 1000, "label": "job-17"}`, wantStatus: 201},
		{method: "POST", path: "/__plantstore/namespaces", body: `{}`, wantStatus: 409},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"ttl": 600}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"max_plants": -1}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"owner": "me"}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"ttl": "1y"}`, wantStatus: 400},
		// maxLength counts characters: 100 of two bytes each are a label.
		{method: "POST", path: "/__plantstore/namespaces", body: `{"label": "` + strings.Repeat("é", 100) + `"}`, wantStatus: 409},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"label": "` + strings.Repeat("é", 101) + `"}`, wantStatus: 400, badRequest: true},
		{method: "POST", path: "/__plantstore/namespaces", body: `{"label": "` + strings.Repeat("x", 2000) + `"}`, wantStatus: 413, badRequest: true},
		{method: "POST", path: "/__plantstore/namespaces", body: `{}`, header: map[string]string{"Content-Type": "text/plain"}, wantStatus: 415, badRequest: true},
		{method: "GET", path: "/__plantstore/namespaces", wantStatus: 200},
		{method: "DELETE", path: "/__plantstore/namespaces/0123456789abcdef0123456789abcdef", wantStatus: 404},
	} {
		c.check(t, srv, cc)
	}
	resp, err := srv.Client().Get(srv.URL + "/__plantstore/namespaces")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Namespace string `json:"namespace"`
		BaseURL   string `json:"base_url"`
	}
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v, %d namespaces; want 2", err, len(list))
	}

	// The namespace's control API, reached through a server that adds its
	// base path, answers as the document says of the mock's.
	prefix := strings.TrimPrefix(list[0].BaseURL, srv.URL)
	ns := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path, r.URL.RawPath = prefix+r.URL.Path, ""
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	defer ns.Close()
	for _, cc := range []controlCall{
		{method: "GET", path: "/__plantstore/health", wantStatus: 200},
		{method: "POST", path: "/__plantstore/plants", body: `[{"id": 1, "name": "Fern"}]`, wantStatus: 201},
		{method: "GET", path: "/__plantstore/plants", wantStatus: 200},
		{method: "POST", path: "/__plantstore/faults", body: `{"status": 503, "match": {"id": 2}}`, wantStatus: 201},
		{method: "GET", path: "/__plantstore/faults", wantStatus: 200},
		{method: "GET", path: "/__plantstore/requests", wantStatus: 200},
		{method: "POST", path: "/__plantstore/reset", wantStatus: 204},
		{method: "GET", path: "/__plantstore/namespaces", wantStatus: 404},
		{method: "GET", path: "/__plantstore/control.openapi.yaml", wantStatus: 200},
	} {
		c.check(t, ns, cc)
	}
	c.check(t, srv, controlCall{method: "DELETE", path: "/__plantstore/namespaces/" + list[0].Namespace, wantStatus: 204})
	c.check(t, ns, controlCall{method: "GET", path: "/__plantstore/plants", wantStatus: 404})
}
