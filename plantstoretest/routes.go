package plantstoretest

import (
	"net/http"
	"sort"
	"strings"

	"github.com/plantstore/plantstore-go"
)

// routes is the fake's route table: each operation of the API it serves, by
// method and path. Routing, the 404 and the 405 with its Allow header all
// come from it, and every request goes through the same pipeline whatever
// its operation (see [Handler]), so adding an operation is a line here and
// its [operation] value.
var routes = []route{
	{http.MethodPost, "/plants", createPlant},
}

// route sends the requests with method and path, matched exactly, to op.
type route struct {
	method, path string
	op           *operation
}

// operation is what the fake does for one operation of the API, once the
// request is routed and its token accepted.
type operation struct {
	// decode decodes the body of a request that passed the header checks
	// into the plant it carries. nil means the operation takes no body: a
	// request to it with a body or a Content-Type is then a 400.
	// [WithRule]'s rules judge the plant of an operation with a body.
	decode func(body []byte) (plantstore.NewPlant, *ErrorBody)
	// serve does the operation for a request that passed every check, with
	// h.mu held, and returns the reply. With commit false it changes
	// nothing and answers as it would have: the request was held across a
	// [Handler.Reset], and must leave no trace in the state after it.
	serve func(h *Handler, p plantstore.NewPlant, commit bool) reply
}

// createPlant is POST /plants.
var createPlant = &operation{decode: decodePlant, serve: (*Handler).createPlant}

// route finds the operation for method and path in h's table, or returns
// the 404 or 405 that answers them.
func (h *Handler) route(method, path string) (*operation, *rejection) {
	var allow []string
	for _, rt := range h.routes {
		if rt.path != path {
			continue
		}
		if rt.method == method {
			return rt.op, nil
		}
		allow = append(allow, rt.method)
	}
	if len(allow) == 0 {
		return nil, rejectf(http.StatusNotFound, CodeNotFound, "no such path %q; the API serves %s", path, h.served())
	}
	sort.Strings(allow)
	rej := rejectf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method %s is not allowed on %s; use %s", method, path, strings.Join(allow, " or "))
	rej.allow = strings.Join(allow, ", ")
	return nil, rej
}

// served lists the routes of h's table, for a 404: "POST /plants".
func (h *Handler) served() string {
	names := make([]string, len(h.routes))
	for i, rt := range h.routes {
		names[i] = rt.method + " " + rt.path
	}
	return strings.Join(names, ", ")
}
