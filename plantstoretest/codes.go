package plantstoretest

import "github.com/plantstore/plantstore-go/internal/wire"

// The codes the fake puts in the "error" field of its [ErrorBody] bodies, for
// tests to check which rule the fake applied. They are the fake's own (the
// specification does not say which values the real service uses), so code
// under test must branch on the HTTP status, or on a code its deployment
// documents, not on these. Their values never change. The package
// documentation says which rule gives each, and with which status.
const (
	// CodeInvalidJSON means the body is not exactly one JSON object in valid
	// UTF-8, with no repeated field name.
	CodeInvalidJSON int32 = iota + 1
	// CodeInvalidPlant means the object is not a valid NewPlant.
	CodeInvalidPlant
	// CodeContentType means the Content-Type is not application/json.
	CodeContentType
	// CodeTooLarge means the body is larger than 1 MiB.
	CodeTooLarge
	// CodeDuplicateID means the plant's id is already stored.
	CodeDuplicateID
	// CodeUnauthorized means the credentials are missing, malformed or wrong.
	CodeUnauthorized
	// CodeNotFound means the path is none of the API's (POST /plants).
	CodeNotFound
	// CodeMethodNotAllowed means the method is not allowed on the path.
	CodeMethodNotAllowed
	// CodeFault is in the default body of a reply scripted with [Fault].
	CodeFault
	// CodeCallbackPanic means a [WithRule] rule panicked.
	CodeCallbackPanic
	// CodeStoreFull means the store is full (see [WithMaxPlants]), or its
	// [Budget] has no room for what the request would keep.
	CodeStoreFull
	// CodeRateLimited means the request came over the rate of [WithRateLimit].
	CodeRateLimited
)

// maxBodyBytes is the largest request body the fake accepts, the same cap
// the client reads a response with.
const maxBodyBytes = wire.MaxBodyBytes

// ErrorBody is the body of every response from the fake other than 200, in
// the wire shape the specification gives: {"error": code, "message": text}.
// Rules added with [WithRule] return one to reject a plant. It is not a Go
// error; a [*SeedError] carries one.
type ErrorBody struct {
	// Code is a machine-readable code: one of the Code constants, or the
	// value a rule chose.
	Code int32 `json:"error"`
	// Message says what was wrong, for people. It names the field or header
	// at fault and never contains the token.
	Message string `json:"message"`
}
