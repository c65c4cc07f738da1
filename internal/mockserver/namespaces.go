package mockserver

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Namespaces (issue 23) let parallel test jobs share one mock: each is a
// fake of its own (a [plantstoretest.Handler], with its own plants, journal,
// faults, rate limit and chaos) and the same control API over it (a
// [Server] without namespaces), at <mock>/__plantstore/ns/<id>.
// cmd/plantstore-mock/NAMESPACES.md is the guide; [Server.serveNamespaces]
// routes their requests, [Server.namespaceAccess] and
// [namespace.mockAccess] say what a token opens, and
// namespace_lifecycle.go keeps them.

// Defaults and bounds of namespaces.
const (
	// DefaultMaxNamespaces is how many namespaces may live at once by
	// default (-max-namespaces).
	DefaultMaxNamespaces = 1000
	// DefaultNamespaceTTL is how long a namespace lives unused, unless its
	// create asks for another "ttl".
	DefaultNamespaceTTL = 10 * time.Minute
	// MinNamespaceTTL and MaxNamespaceTTL bound the "ttl" a create may ask.
	MinNamespaceTTL = time.Second
	MaxNamespaceTTL = 24 * time.Hour
	// MaxNamespaceLabel bounds a namespace's "label", in characters (as
	// the control API's document's maxLength counts).
	MaxNamespaceLabel = 100
	// CodeNamespaceLimit is the "error" code of the 409 refusing a create
	// while -max-namespaces namespaces live.
	CodeNamespaceLimit int32 = 102

	maxNamespaceBody = 1 << 10 // a create's body: room for a label and more
	namespacesPath   = Prefix + "namespaces"
	nsPrefix         = Prefix + "ns/"
	idBytes          = 16 // an id is 32 lowercase hex digits
)

// NamespaceConfig configures the namespaces of a [Server].
type NamespaceConfig struct {
	// Max is how many namespaces may live at once; 0 turns namespaces off.
	Max int
	// Options build each namespace's Handler: the options the command
	// builds its default fake with.
	Options []plantstoretest.Option
	// APIToken is the mock's API token, which every namespace's API takes
	// besides the namespace's own.
	APIToken string
	// MaxPlants is the most plants a namespace's "max_plants" may ask for,
	// and its default: the command's -max-plants.
	MaxPlants int
}

// namespaces are the live namespaces of a Server.
type namespaces struct {
	NamespaceConfig
	now func() time.Time

	mu      sync.Mutex // guards what follows, and each namespace's lifecycle fields
	byID    map[string]*namespace
	byToken map[[sha256.Size]byte]*namespace // by the token's hash: a lookup's timing tells nothing of its bytes
	live    int                              // namespaces stored or being created
}

// namespace is one live namespace.
type namespace struct {
	id        string
	tokenHash [sha256.Size]byte
	srv       *Server // its control API over its fake
	label     string
	ttl       time.Duration
	maxPlants int
	created   time.Time

	// Its lifecycle, guarded by namespaces.mu: it ends idle only while no
	// request is in flight, and none starts once it has ended.
	lastUsed time.Time
	inFlight int
	ended    bool
	timer    *time.Timer // ends it once idle for its ttl
}

// startNamespaces turns namespaces on as c says.
func (s *Server) startNamespaces(c NamespaceConfig) error {
	switch {
	case c.Max <= 0:
		return nil
	case c.APIToken == "":
		return configError("namespaces need the API token")
	case checkToken("API token", c.APIToken) != "":
		return configError(checkToken("API token", c.APIToken))
	case c.MaxPlants < 0:
		return configError("namespaces' MaxPlants must be 0 or more")
	}
	s.ns = &namespaces{NamespaceConfig: c, now: time.Now,
		byID: make(map[string]*namespace), byToken: make(map[[sha256.Size]byte]*namespace)}
	return nil
}

// Close ends every namespace, releasing the requests their faults hold, as
// [plantstoretest.Handler.Close] does the default namespace's: the command
// calls both as it shuts down.
func (s *Server) Close() {
	if s.ns != nil {
		s.ns.endAll()
	}
}
