package plantstoretest

import "github.com/plantstore/plantstore-go/internal/wire"

// The codes the fake puts in the "error" field of an [ErrorBody], for tests
// to check which rule it applied (the package documentation says which
// gives each). They never change, but the specification gives no values:
// code under test must branch on the status, or on its deployment's codes.
const (
	// CodeInvalidJSON means the body is not one JSON object in UTF-8.
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
	// CodeStoreFull means the store ([WithMaxPlants]) or its [Budget] is full.
	CodeStoreFull
	// CodeRateLimited means the request came over the rate of [WithRateLimit].
	CodeRateLimited
	// CodeClosed means the [Server] was closed ([Server.ServeHTTP]).
	CodeClosed
)

// maxBodyBytes is the largest request body the fake accepts, the same cap
// the client reads a response with.
const maxBodyBytes = wire.MaxBodyBytes

// ErrorBody is the body of each reply of the fake but a 200, in the
// specification's shape: {"error": code, "message": text}. A [WithRule]
// rule returns one to refuse a plant.
type ErrorBody struct {
	// Code is one of the Code constants, or a rule's.
	Code int32 `json:"error"`
	// Message says what was wrong, naming the field or header, never the
	// token.
	Message string `json:"message"`
}
