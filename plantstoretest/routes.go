package plantstoretest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// routes is the fake's route table: each operation of the API, by method
// and path pattern. Routing, the 404 and the 405 with its Allow come from
// it, and every request takes the same pipeline, so an operation is an
// entry here and the function that serves it.
var routes = []route{
	{http.MethodPost, "/plants", &operation{decode: decodePlant, serve: createPlant}},
}

// createPlant does POST /plants: it stores the plant, unless the id is
// taken or the store is full.
func createPlant(h *Handler, in input, commit bool) reply {
	if commit {
		if rej := h.store.add(in.plant, in.seq); rej != nil {
			return *rej
		}
	}
	return reply{kind: created, status: http.StatusOK, result: &plantstore.Plant{Name: in.plant.Name, Tag: in.plant.Tag}}
}

// route sends the requests of method whose path matches pattern
// ([wire.MatchPath]) to op.
type route struct {
	method, pattern string
	op              *operation
}

// operation is what the fake does for an operation, once the request is
// routed and its token accepted.
type operation struct {
	// decode decodes the body of a request that passed the header checks into
	// its plant, which [WithRule]'s rules judge. nil: the operation takes no
	// body, and one sent, or a Content-Type, is a 400.
	decode func(body []byte) (plantstore.NewPlant, *ErrorBody)
	// serve does the operation for a request that passed every check, with
	// h.mu held. With commit false it changes nothing and answers as it would:
	// the request was held across a [Handler.Reset].
	serve func(h *Handler, in input, commit bool) reply
}

// input is what a request carried to its operation.
type input struct {
	plant  plantstore.NewPlant // the decoded body; zero for an operation without one
	values map[string]string   // the path's values, by the names of the pattern's {name} segments
	seq    uint64              // the request's Seq, once the journal numbered it
}

// route finds r's operation in h's table, with its path's values, or
// returns the 404 or 405.
func (h *Handler) route(r *http.Request) (*operation, input, *reply) {
	var allow []string
	for _, rt := range h.routes {
		values, ok := wire.MatchPath(rt.pattern, r.URL.EscapedPath())
		if !ok {
			continue
		}
		if rt.method == r.Method {
			return rt.op, input{values: values}, nil
		}
		allow = append(allow, rt.method)
	}
	path := r.URL.Path
	if len(allow) == 0 {
		served := make([]string, len(h.routes))
		for i, rt := range h.routes {
			served[i] = rt.method + " " + rt.pattern
		}
		return nil, input{}, refusef(notFound, CodeNotFound, "no such path %q; the API serves %s", path, strings.Join(served, ", "))
	}
	slices.Sort(allow)
	rej := refusef(methodNotAllowed, CodeMethodNotAllowed, "method %s is not allowed on %s; use %s", r.Method, path, strings.Join(allow, " or "))
	rej.allow = strings.Join(allow, ", ")
	return nil, input{}, rej
}
