package plantstore

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// An operation is one operation of the API, as the client sends it: what
// every call of it has in common. Adding an operation to the client is a
// value here and a method that hands it to [Client.do] with the call's
// path values, body and a decoder of the answer; the retries, the hooks,
// the log, the errors and their redaction come with do.
type operation struct {
	// name is the Client method, as hooks and CallInfo call it
	// ("CreatePlant"); text is how errors say it ("create plant").
	name, text string
	// method and path make the request: path is relative to the base URL,
	// with no leading slash. A segment {name} in it is a path parameter,
	// which each call fills in (see expand).
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

// expand returns op's path with its parameters replaced, in order, by
// values, each escaped as one path segment (a "/" in a value is sent as
// %2F). It refuses a value that is empty, "." or "..", which would name
// another path however it is escaped, and a count of values that is not
// the path's count of parameters.
func (op operation) expand(values []string) (string, error) {
	if n := strings.Count(op.path, "{"); n != len(values) {
		return "", fmt.Errorf("%d path values for %s, which has %d", len(values), op.path, n)
	}
	if len(values) == 0 {
		return op.path, nil
	}
	segs := strings.Split(op.path, "/")
	for i, seg := range segs {
		if !strings.HasPrefix(seg, "{") {
			continue
		}
		v := values[0]
		if v == "" || v == "." || v == ".." {
			return "", fmt.Errorf("path value %s is %q, which is not a path segment", seg, v)
		}
		segs[i], values = url.PathEscape(v), values[1:]
	}
	return strings.Join(segs, "/"), nil
}
