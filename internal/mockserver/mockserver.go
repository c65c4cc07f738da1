// Package mockserver is the network side of cmd/plantstore-mock: the control
// API under /__plantstore/ (a thin JSON layer over the Go API of
// [plantstoretest.Handler]), who may use it, and the listener helpers the
// command wires together.
//
// [New] returns a [Server], an http.Handler that serves the control API
// under [Prefix] and passes every other request to the fake. The control
// API and its access rules are described in control.openapi.yaml, served at
// /__plantstore/control.openapi.yaml, and in cmd/plantstore-mock/README.md.
package mockserver

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Prefix is the path prefix reserved for the control API. None of the
// API's paths is under it, so no API request is shadowed.
const Prefix = "/__plantstore/"

// Config configures a [Server].
type Config struct {
	// AdminToken, when not empty, is the bearer token every control path but
	// health requires. It must be visible ASCII, and should differ from the
	// API token: the caller checks that, as the Handler does not reveal its
	// token.
	AdminToken string

	// Loopback reports that the server listens on a loopback address only
	// (see [IsLoopback]). Without an AdminToken, the control API is open
	// only then; otherwise it is off, and every control path but health
	// answers 404 with a message saying how to turn it on.
	Loopback bool

	// ListenAddr is the address the server listens on, as messages name it.
	ListenAddr string

	// Logger, if not nil, gets one line per control request at debug
	// level: method, path and status, never a token or a body.
	Logger *slog.Logger

	// Namespaces, if its Max is above 0, turns on namespaces: fakes of
	// their own beside the default one (see namespaces.go).
	Namespaces NamespaceConfig
}

// Server serves the control API under [Prefix] and the fake everywhere
// else. It is safe for concurrent use. Create one with [New].
type Server struct {
	fake       *plantstoretest.Handler
	adminToken []byte
	access     access
	listenAddr string
	logger     *slog.Logger
	ns         *namespaces // nil in a namespace's own Server, and with namespaces off
}

// New returns a Server over fake. It fails if c.AdminToken is not a usable
// bearer token.
func New(fake *plantstoretest.Handler, c Config) (*Server, error) {
	if msg := checkToken("admin token", c.AdminToken); msg != "" {
		return nil, configError(msg)
	}
	s := &Server{
		fake:       fake,
		adminToken: []byte(c.AdminToken),
		listenAddr: c.ListenAddr,
		logger:     c.Logger,
	}
	if err := s.startNamespaces(c.Namespaces); err != nil {
		return nil, err
	}
	switch {
	case c.AdminToken != "":
		s.access = accessToken
	case c.Loopback:
		s.access = accessOpen
	default:
		s.access = accessOff
	}
	return s, nil
}

// configError returns the error of an unusable [Config].
func configError(msg string) error { return errors.New("mockserver: " + msg) }

// Status says in one line whether and how the control API can be used, for
// the command to print at start.
func (s *Server) Status() string {
	switch s.access {
	case accessOpen:
		return "control API at " + Prefix + " is open: listening on loopback and no admin token is set"
	case accessToken:
		return "control API at " + Prefix + " requires the admin token: Authorization: Bearer <admin token>"
	default:
		return offMessage(s.listenAddr)
	}
}

// ServeHTTP serves r: a namespace's request as [Server.serveNamespaces]
// says, a control request (see [isControl]), or else the fake's.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.ns != nil && s.serveNamespaces(w, r) {
		return
	}
	if !isControl(r.URL.Path) {
		s.fake.ServeHTTP(w, r)
		return
	}
	s.logControl(r, r.URL.Path, s.control(w, r, s.checkAccess))
}

// isControl reports whether path is under [Prefix], or the prefix without
// its slash.
func isControl(path string) bool {
	return strings.HasPrefix(path, Prefix) || path == strings.TrimSuffix(Prefix, "/")
}

// logControl logs a control request that was answered with status.
func (s *Server) logControl(r *http.Request, path string, status int) {
	if s.logger != nil && s.logger.Enabled(r.Context(), slog.LevelDebug) {
		s.logger.LogAttrs(r.Context(), slog.LevelDebug, "plantstore-mock control",
			slog.String("method", r.Method), slog.String("path", path), slog.Int("status", status))
	}
}

// Defaults and bounds of cmd/plantstore-mock, here so that the control
// API's tests and documents can name them.
const (
	// DefaultJournal is how many API requests the journal keeps by default
	// (-journal).
	DefaultJournal = 10_000
	// JournalBodyLimit is how much of each request body the journal keeps.
	// At the default journal length, bodies take at most 40 MiB.
	JournalBodyLimit = 4 << 10
)
