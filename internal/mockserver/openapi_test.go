package mockserver

import (
	"bytes"
	"os"
	"testing"
)

// TestAPIDocumentIsTheRoots fails when the embedded copy of openapi.yaml
// differs from the repository's: run go generate ./internal/mockserver.
func TestAPIDocumentIsTheRoots(t *testing.T) {
	t.Parallel()
	root, err := os.ReadFile("../../openapi.yaml")
	if err != nil {
		t.Fatalf("reading the repository's openapi.yaml: %v", err)
	}
	if !bytes.Equal(apiDocument, root) {
		t.Errorf("internal/mockserver/openapi.yaml differs from the repository's openapi.yaml; run go generate ./internal/mockserver")
	}
}

func TestOpenAPIDocumentsAreServed(t *testing.T) {
	t.Parallel()
	srv, _ := openMock(t)
	for path, want := range map[string][]byte{
		"/__plantstore/openapi.yaml":         apiDocument,
		"/__plantstore/control.openapi.yaml": controlDocument,
	} {
		rep := call(t, srv, "GET", path, nil, "")
		if rep.status != 200 || !bytes.Equal(rep.body, want) || rep.header.Get("Content-Type") != "application/yaml" {
			t.Errorf("GET %s = %d %q with %d bytes, want 200 application/yaml with the embedded %d bytes",
				path, rep.status, rep.header.Get("Content-Type"), len(rep.body), len(want))
		}
	}
}
