// Package contract holds the contract tests of plantstore-go: every request
// the client sends and every response the fake in package plantstoretest
// gives is held to the OpenAPI document at the repository's root,
// openapi.yaml, by an independent validator (kin-openapi).
//
// It is a module of its own so that the validator and its dependencies
// (YAML and JSON libraries) never reach the go.sum of a module that depends
// on plantstore-go. It has no code but its tests; run them with
// scripts/test.sh from the repository's root, or go test ./... here.
package contract
