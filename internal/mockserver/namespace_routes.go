package mockserver

import (
	"maps"
	"net/http"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The routing of namespaces: which requests are a namespace's, and which
// namespace a path or a token names.

// serveNamespaces serves r if it is a namespace's: a path under
// /__plantstore/ns/, or a request with a namespace's token. It reports
// whether it did.
func (s *Server) serveNamespaces(w http.ResponseWriter, r *http.Request) bool {
	path := r.URL.Path
	if strings.HasPrefix(path, nsPrefix) {
		s.serveNamespace(w, r)
		return true
	}
	if !s.ns.any() {
		return false // as without namespaces
	}
	token, problem := wire.ParseBearer(r.Header)
	if problem != wire.BearerOK || path == Prefix+"health" {
		return false
	}
	ns := s.ns.withToken(token)
	switch {
	case ns == nil:
		return false
	case !isControl(path):
		if !s.ns.enter(ns) {
			return false // it ended since: the token is nobody's
		}
		defer s.ns.leave(ns)
		ns.serveAPI(w, r, s.ns.APIToken)
		return true
	}
	s.logControl(r, path, s.control(w, r, ns.mockAccess))
	return true
}

// serveNamespace serves a request under /__plantstore/ns/: the API or the
// control API of the namespace the path names.
func (s *Server) serveNamespace(w http.ResponseWriter, r *http.Request) {
	id, sub, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, nsPrefix), "/")
	ns := s.ns.lookup(nsPrefix, id, r.URL.EscapedPath())
	if ns == nil || !s.ns.enter(ns) {
		err := errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
			"no namespace %q: it ended (DELETE, or idle past its ttl) or never existed; POST %s creates one",
			truncate(id, 64), namespacesPath)
		s.logControl(r, r.URL.Path, writeError(w, err))
		return
	}
	defer s.ns.leave(ns)
	inner := withPath(r, "/"+sub)
	if isControl(inner.URL.Path) {
		s.logControl(r, r.URL.Path, ns.srv.control(w, inner, s.namespaceAccess(ns)))
		return
	}
	ns.serveAPI(w, inner, s.ns.APIToken)
}

// serveAPI serves r, a request to ns's API. Its token stands for the API
// token, which ns's fake takes: the journal shows neither. The swap is
// made in a copy of r's header: the caller's request keeps its own.
func (ns *namespace) serveAPI(w http.ResponseWriter, r *http.Request, apiToken string) {
	if token, problem := wire.ParseBearer(r.Header); problem == wire.BearerOK && ns.owns(token) {
		v := r.Header["Authorization"][0] // ParseBearer found exactly one, ending with the token
		swapped := *r
		swapped.Header = maps.Clone(r.Header) // a new map, sharing the values it keeps
		swapped.Header["Authorization"] = []string{v[:len(v)-len(token)] + apiToken}
		r = &swapped
	}
	ns.srv.fake.ServeHTTP(w, r)
}

// lookup returns the live namespace id names, or nil. prefix+id must
// begin escaped, the request's path as sent, and end it or a segment of it:
// an id is never taken from an encoded path, so an encoded slash or dot
// cannot move the split.
func (n *namespaces) lookup(prefix, id, escaped string) *namespace {
	if !validID(id) || !strings.HasPrefix(escaped, prefix+id) {
		return nil
	}
	if rest := escaped[len(prefix+id):]; rest != "" && rest[0] != '/' {
		return nil
	}
	return n.byIDAlive(id)
}

// validID reports whether id has the form of the ids the mock makes.
func validID(id string) bool {
	return len(id) == 2*idBytes && strings.Trim(id, "0123456789abcdef") == ""
}

// truncate cuts s to n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// withPath is r with its URL's path replaced.
func withPath(r *http.Request, path string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = path, ""
	r2.URL = &u
	return r2
}
