package plantstoretest

import "github.com/plantstore/plantstore-go/internal/wire"

// The codes the fake puts in the "error" field of its [ErrorBody] bodies, for
// tests to check which rule the fake applied. They are the fake's own (the
// specification does not say which values the real service uses), so code
// under test must branch on the HTTP status, or on a code its deployment
// documents, not on these. Their values never change.
const (
	// CodeInvalidJSON means the body is empty, not valid UTF-8, not valid JSON,
	// not a JSON object, has a repeated field name, or has data after the
	// object.
	CodeInvalidJSON int32 = iota + 1
	// CodeInvalidPlant means the object is not a valid NewPlant: id or name is
	// missing, null or of the wrong type, name is empty, or tag is not a
	// string.
	CodeInvalidPlant
	// CodeContentType means the Content-Type header is missing or is not
	// application/json (with an optional charset=utf-8).
	CodeContentType
	// CodeTooLarge means the body is larger than 1 MiB.
	CodeTooLarge
	// CodeDuplicateID means a plant with the same id is already stored (see
	// [WithAllowDuplicateIDs]).
	CodeDuplicateID
	// CodeUnauthorized means the Authorization header is missing, is not
	// "Bearer <token>", or carries the wrong token. The status is 401.
	CodeUnauthorized
	// CodeNotFound means the path is not /plants. The status is 404.
	CodeNotFound
	// CodeMethodNotAllowed means the method is not allowed on the path. The
	// status is 405.
	CodeMethodNotAllowed
	// CodeFault is in the default body of a reply scripted with [Fault].
	CodeFault
	// CodeCallbackPanic means a [WithRule] rule panicked. The status is 500.
	CodeCallbackPanic
	// CodeStoreFull means the store already holds as many plants as
	// [WithMaxPlants] allows, or that its [Budget] has no room for what the
	// request would keep. The status is 400.
	CodeStoreFull
	// CodeRateLimited means the request came over the rate [WithRateLimit]
	// allows. The status is 429.
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
