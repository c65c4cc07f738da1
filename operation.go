package plantstore

import "net/http"

// An operation is one operation of the API, as the client sends it: what
// every call of it has in common. Adding an operation to the client is a
// value here and a method that hands it to [Client.do] with the call's
// body and a decoder of the answer; the retries, the hooks, the log, the
// errors and their redaction come with do.
type operation struct {
	// name is the Client method, as hooks and CallInfo call it
	// ("CreatePlant"); text is how errors say it ("create plant").
	name, text string
	// method and path make the request: path is relative to the base URL,
	// with no leading slash.
	method, path string
	// body says whether a request carries a JSON body, and with it
	// Content-Type: application/json.
	body bool
	// mayCreate says whether a failed attempt may have stored something:
	// only then can a failed call match ErrMaybeCreated and say "(the plant
	// may have been created)".
	mayCreate bool
}

// opCreatePlant is POST /plants; see [Client.CreatePlant].
var opCreatePlant = operation{
	name: "CreatePlant", text: "create plant",
	method: http.MethodPost, path: "plants",
	body: true, mayCreate: true,
}
