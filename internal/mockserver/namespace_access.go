package mockserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// The access rules of a namespace's token: its namespace's control API,
// and its end.

// namespaceAccess is the access rule of ns's control API: its token, or
// the mock's own control access; never another namespace's token.
func (s *Server) namespaceAccess(ns *namespace) func(*http.Request) *controlError {
	return func(r *http.Request) *controlError {
		if token, problem := wire.ParseBearer(r.Header); problem == wire.BearerOK {
			if ns.owns(token) {
				return nil
			}
			if s.ns.withToken(token) != nil {
				return unauthorized("invalid_token", "another namespace's token: a namespace's token opens only its own namespace")
			}
		}
		if s.access == accessOff {
			return unauthorized("", "this namespace's control API needs its token: Authorization: Bearer <the token its create answered>")
		}
		err := s.checkAccess(r)
		if err != nil && err.status == http.StatusUnauthorized {
			err.body.Message += "; a namespace's control API also takes the namespace's token"
		}
		return err
	}
}

// mockAccess is the access rule of the mock's own control API for a request
// that carries ns's token. It opens one path, ns's end (DELETE
// /__plantstore/namespaces/{its id}, spelled as the mock spells it), so that
// a job ends its namespace with the token it has, without the admin token;
// every other path is a 401 that says where the token opens.
func (ns *namespace) mockAccess(r *http.Request) *controlError {
	if r.Method == http.MethodDelete && r.URL.EscapedPath() == namespacesPath+"/"+ns.id {
		return nil
	}
	return unauthorized("invalid_token", "a namespace's token does not open the mock's control API, but to end its own namespace "+
		"(DELETE "+namespacesPath+"/{its id}); it opens the namespace's own, at its base_url followed by /__plantstore/")
}

// owns reports, in constant time, whether token is ns's.
func (ns *namespace) owns(token string) bool {
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], ns.tokenHash[:]) == 1
}
