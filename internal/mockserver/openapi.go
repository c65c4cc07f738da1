package mockserver

import _ "embed" // for the OpenAPI documents

// The OpenAPI documents the control API serves. go:embed cannot reach the
// repository's root, so openapi.yaml here is a copy of ../../openapi.yaml,
// kept identical by go generate and checked by TestAPIDocumentIsTheRoots.
//
//go:generate cp ../../openapi.yaml openapi.yaml
var (
	// apiDocument is the Plant Store API's document, served at
	// /__plantstore/openapi.yaml.
	//go:embed openapi.yaml
	apiDocument []byte

	// controlDocument describes the control API itself, served at
	// /__plantstore/control.openapi.yaml.
	//go:embed control.openapi.yaml
	controlDocument []byte
)
