package mockserver

import _ "embed" // for the OpenAPI documents

// The OpenAPI documents the control API serves. go:embed cannot reach the
// repository's root, so openapi.yaml here is a copy of ../../openapi.yaml,
// kept identical by go generate and checked by TestAPIDocumentIsTheRoots.
//
//go:generate cp ../../openapi.yaml openapi.yaml
var (
	//go:embed openapi.yaml
	apiDocument []byte // the Plant Store API's

	//go:embed control.openapi.yaml
	controlDocument []byte // the control API's own
)
