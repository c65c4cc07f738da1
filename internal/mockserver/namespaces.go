package mockserver

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Namespaces (issue 23) let parallel test jobs share one mock: each is a
// fake of its own (a [plantstoretest.Handler], with its own plants, journal,
// faults, rate limit and chaos) and the same control API over it (a
// [Server] without namespaces). A job creates one with POST
// /__plantstore/namespaces and gets an id, a token and a base_url,
// <mock>/__plantstore/ns/<id>:
//
//   - {base_url}/plants is its API; it takes the namespace's token and the
//     mock's API token. POST /plants at the mock's root with the
//     namespace's token is the namespace's too.
//   - {base_url}/__plantstore/… is its control API, opened by its token or
//     by the mock's own control access; never by another namespace's token.
//
// Lookups go through sync.Maps keyed by id and by the SHA-256 of the token
// (so a lookup's timing tells nothing of a token's bytes), and a
// namespace's last use is an atomic: no lock is shared by the namespaces'
// requests. Each namespace has a timer that ends it when it has been idle
// for its ttl.

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
	byID    sync.Map     // id → *namespace
	byToken sync.Map     // sha256 of the token → *namespace
	live    atomic.Int64 // namespaces stored or being created
	now     func() time.Time
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
	lastUsed  atomic.Int64 // unix nanoseconds
	// state counts its requests in flight, plus endedBit once it has
	// ended: one word, so that it ends idle only while none is in flight,
	// and none starts once it has ended.
	state atomic.Int64
	timer atomic.Pointer[time.Timer] // ends it once idle for its ttl
}

const endedBit = 1 << 62

// startNamespaces turns namespaces on as c says.
func (s *Server) startNamespaces(c NamespaceConfig) error {
	switch {
	case c.Max <= 0:
		return nil
	case c.APIToken == "":
		return &configError{"namespaces need the API token"}
	case checkToken("API token", c.APIToken) != "":
		return &configError{checkToken("API token", c.APIToken)}
	case c.MaxPlants < 0:
		return &configError{"namespaces' MaxPlants must be 0 or more"}
	}
	s.ns = &namespaces{NamespaceConfig: c, now: time.Now}
	return nil
}

// serveNamespaces serves r if it is a namespace's: a path under
// /__plantstore/ns/, or a request with a namespace's token. It reports
// whether it did.
func (s *Server) serveNamespaces(w http.ResponseWriter, r *http.Request) bool {
	path := r.URL.Path
	if strings.HasPrefix(path, nsPrefix) {
		s.serveNamespace(w, r)
		return true
	}
	if s.ns.live.Load() == 0 {
		return false // as without namespaces
	}
	ns := s.ns.byBearer(r.Header)
	switch {
	case ns == nil || path == Prefix+"health":
		return false
	case !isControl(path):
		if !s.ns.enter(ns) {
			return false // it ended since: the token is nobody's
		}
		defer s.ns.leave(ns)
		ns.serveAPI(w, r, s.ns.APIToken)
		return true
	}
	err := unauthorized("invalid_token", "a namespace's token does not open the mock's control API; "+
		"it opens the namespace's own, at its base_url followed by /__plantstore/")
	writeError(w, err)
	s.logControl(r, path, err.status)
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
		writeError(w, err)
		s.logControl(r, r.URL.Path, err.status)
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

// serveAPI serves r, a request to ns's API. Its token stands for the API
// token, which ns's fake takes: the journal shows neither.
func (ns *namespace) serveAPI(w http.ResponseWriter, r *http.Request, apiToken string) {
	if token, problem := wire.ParseBearer(r.Header); problem == wire.BearerOK && ns.owns(token) {
		v := r.Header["Authorization"][0] // ParseBearer found exactly one, ending with the token
		r.Header["Authorization"] = []string{v[:len(v)-len(token)] + apiToken}
	}
	ns.srv.fake.ServeHTTP(w, r)
}

// owns reports, in constant time, whether token is ns's.
func (ns *namespace) owns(token string) bool {
	h := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(h[:], ns.tokenHash[:]) == 1
}

// touch notes that ns was used at now, to the millisecond: a busy
// namespace writes its clock once a millisecond at most.
func (ns *namespace) touch(now time.Time) {
	t := now.UnixNano()
	if t-ns.lastUsed.Load() >= int64(time.Millisecond) {
		ns.lastUsed.Store(t)
	}
}

// enter notes a request to ns starting now, or reports that ns has ended.
// Each enter that succeeds is followed by a leave.
func (n *namespaces) enter(ns *namespace) bool {
	if ns.state.Add(1)&endedBit != 0 {
		ns.state.Add(-1)
		return false
	}
	ns.touch(n.now())
	return true
}

// leave notes the end of a request to ns: its ttl starts again.
func (n *namespaces) leave(ns *namespace) {
	ns.touch(n.now())
	ns.state.Add(-1)
}

// expire ends ns if it is idle past its ttl at now, with no request in
// flight, and reports whether it did.
func (n *namespaces) expire(ns *namespace, now time.Time) bool {
	if now.UnixNano()-ns.lastUsed.Load() <= int64(ns.ttl) || !ns.state.CompareAndSwap(0, endedBit) {
		return false
	}
	n.forget(ns)
	return true
}

// alive returns ns, or nil if it has ended or is idle past its ttl (which
// ends it).
func (n *namespaces) alive(ns *namespace) *namespace {
	if ns == nil || ns.state.Load()&endedBit != 0 || n.expire(ns, n.now()) {
		return nil
	}
	return ns
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
	v, _ := n.byID.Load(id)
	ns, _ := v.(*namespace)
	return n.alive(ns)
}

// withToken returns the live namespace whose token is token, or nil.
func (n *namespaces) withToken(token string) *namespace {
	v, _ := n.byToken.Load(sha256.Sum256([]byte(token)))
	ns, _ := v.(*namespace)
	return n.alive(ns)
}

// byBearer returns the live namespace whose token header carries, or nil.
func (n *namespaces) byBearer(header http.Header) *namespace {
	token, problem := wire.ParseBearer(header)
	if problem != wire.BearerOK {
		return nil
	}
	return n.withToken(token)
}

// validID reports whether id has the form of the ids the mock makes.
func validID(id string) bool {
	if len(id) != 2*idBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// end ends ns at once, requests in flight or not, and reports whether this
// call ended it.
func (n *namespaces) end(ns *namespace) bool {
	if ns.state.Or(endedBit)&endedBit != 0 {
		return false
	}
	n.forget(ns)
	return true
}

// forget drops ns, which has just ended: its held requests are released,
// and its memory is the garbage collector's.
func (n *namespaces) forget(ns *namespace) {
	n.byID.CompareAndDelete(ns.id, ns)
	n.byToken.CompareAndDelete(ns.tokenHash, ns)
	n.live.Add(-1)
	ns.timer.Load().Stop()
	ns.srv.fake.Close()
}

// watch ends ns after d if it is idle by then, and otherwise looks again
// when its ttl will have run out, so that an idle namespace's memory is
// given back whether or not anyone asks for it.
func (n *namespaces) watch(ns *namespace, d time.Duration) {
	t := time.AfterFunc(d, func() {
		now := n.now()
		if n.expire(ns, now) || ns.state.Load()&endedBit != 0 {
			return
		}
		left := time.Duration(ns.lastUsed.Load() + int64(ns.ttl) - now.UnixNano())
		if left <= 0 {
			left = ns.ttl // a request in flight: its end restarts the clock
		}
		n.watch(ns, left+time.Millisecond)
	})
	ns.timer.Store(t)
	if ns.state.Load()&endedBit != 0 {
		t.Stop() // it ended meanwhile, and forget may have stopped the timer before
	}
}

// Close ends every namespace, releasing the requests their faults hold, as
// [plantstoretest.Handler.Close] does the default namespace's: the command
// calls both as it shuts down.
func (s *Server) Close() {
	if s.ns != nil {
		s.ns.byID.Range(func(_, v any) bool { s.ns.end(v.(*namespace)); return true })
	}
}

// reserve takes a place for a new namespace, or reports that
// -max-namespaces live.
func (n *namespaces) reserve() bool {
	for {
		live := n.live.Load()
		if live >= int64(n.Max) {
			return false
		}
		if n.live.CompareAndSwap(live, live+1) {
			return true
		}
	}
}

// namespaceBody describes a namespace: the reply of its create, with its
// token, and an element of the list, without.
type namespaceBody struct {
	Namespace string    `json:"namespace"`
	Token     string    `json:"token,omitempty"`
	BaseURL   string    `json:"base_url"`
	Label     string    `json:"label"`
	TTL       string    `json:"ttl"`
	MaxPlants int       `json:"max_plants"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"` // if unused until then
}

// noNamespaces is the 404 of the namespace endpoints where there are none.
func noNamespaces() *controlError {
	return errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
		"no namespaces here: they are made by the mock's own control API, %s, when -max-namespaces is above 0", namespacesPath)
}

func (s *Server) createNamespace(w http.ResponseWriter, r *http.Request, body []byte) (int, *controlError) {
	if s.ns == nil {
		return 0, noNamespaces()
	}
	var req struct { // the optional body; a nil field keeps its default
		TTL       *string `json:"ttl"`
		MaxPlants *int    `json:"max_plants"`
		Label     *string `json:"label"`
	}
	if len(body) > 0 {
		if err := decodeStrict(body, &req); err != nil {
			return 0, err
		}
	}
	ns := &namespace{ttl: DefaultNamespaceTTL, maxPlants: s.ns.MaxPlants}
	if req.TTL != nil {
		d, err := time.ParseDuration(*req.TTL)
		if err != nil || d < MinNamespaceTTL || d > MaxNamespaceTTL {
			return 0, badRequest("ttl %q: want a duration from %v to %v, such as \"10m\" or \"90s\"", *req.TTL, MinNamespaceTTL, MaxNamespaceTTL)
		}
		ns.ttl = d
	}
	if req.MaxPlants != nil {
		if m := *req.MaxPlants; m < 0 || m > s.ns.MaxPlants {
			return 0, badRequest("max_plants %d: want 0 to %d, the mock's -max-plants", m, s.ns.MaxPlants)
		}
		ns.maxPlants = *req.MaxPlants
	}
	if req.Label != nil {
		if msg := labelProblem(*req.Label); msg != "" {
			return 0, badRequest("label %s", msg)
		}
		ns.label = *req.Label
	}
	var secret [idBytes + 32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return 0, errorf(http.StatusInternalServerError, CodeBadControlRequest, "reading crypto/rand: %v", err)
	}
	ns.id = hex.EncodeToString(secret[:idBytes])
	token := hex.EncodeToString(secret[idBytes:])
	ns.tokenHash = sha256.Sum256([]byte(token))
	now := s.ns.now()
	if !s.ns.reserve() {
		return 0, errorf(http.StatusConflict, CodeNamespaceLimit,
			"%d namespaces live, the most -max-namespaces allows; end one (DELETE %s/{id}), let one idle past its ttl, "+
				"or restart the mock with a larger -max-namespaces", s.ns.Max, namespacesPath)
	}
	opts := append(s.ns.Options[:len(s.ns.Options):len(s.ns.Options)],
		plantstoretest.WithToken(s.ns.APIToken), plantstoretest.WithMaxPlants(ns.maxPlants))
	ns.srv = &Server{fake: plantstoretest.NewHandler(opts...)}
	ns.created = now
	ns.lastUsed.Store(now.UnixNano())
	s.ns.watch(ns, ns.ttl+time.Millisecond)
	s.ns.byToken.Store(ns.tokenHash, ns)
	s.ns.byID.Store(ns.id, ns)
	reply := s.describe(r, ns)
	reply.Token = token
	writeJSON(w, http.StatusCreated, reply)
	return http.StatusCreated, nil
}

// labelProblem reports what is wrong with a label, or "".
func labelProblem(label string) string {
	if utf8.RuneCountInString(label) > MaxNamespaceLabel {
		return "is longer than " + strconv.Itoa(MaxNamespaceLabel) + " characters"
	}
	for _, c := range label {
		if unicode.IsControl(c) || c == unicode.ReplacementChar {
			return "must be printable text, without control characters"
		}
	}
	return ""
}

// describe is ns as its create and the list show it, without its token.
func (s *Server) describe(r *http.Request, ns *namespace) namespaceBody {
	return namespaceBody{
		Namespace: ns.id,
		BaseURL:   s.mockURL(r) + nsPrefix + ns.id,
		Label:     ns.label,
		TTL:       ns.ttl.String(),
		MaxPlants: ns.maxPlants,
		CreatedAt: ns.created.UTC(),
		ExpiresAt: time.Unix(0, ns.lastUsed.Load()+int64(ns.ttl)).UTC(),
	}
}

// mockURL is the mock's URL as the control request r reached it: its Host,
// so that a job that reaches the mock by a name of the network it runs in
// (a compose service, a Kubernetes Service) gets a base_url by that name.
// A request without a Host (HTTP/1.0) gets the listener's address.
func (s *Server) mockURL(r *http.Request) string {
	if r.Host != "" {
		return "http://" + r.Host
	}
	return clientURL(s.listenAddr)
}

func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request, _ []byte) (int, *controlError) {
	if s.ns == nil {
		return 0, noNamespaces()
	}
	var list []namespaceBody
	s.ns.byID.Range(func(_, v any) bool {
		if ns := s.ns.alive(v.(*namespace)); ns != nil {
			list = append(list, s.describe(r, ns))
		}
		return true
	})
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		return a.CreatedAt.Before(b.CreatedAt) || a.CreatedAt.Equal(b.CreatedAt) && a.Namespace < b.Namespace
	})
	writeJSONArray(w, len(list), func(i int) any { return list[i] })
	return http.StatusOK, nil
}

func (s *Server) endNamespace(w http.ResponseWriter, r *http.Request, _ []byte) (int, *controlError) {
	if s.ns == nil {
		return 0, noNamespaces()
	}
	id := strings.TrimPrefix(r.URL.Path, namespacesPath+"/")
	ns := s.ns.lookup(namespacesPath+"/", id, r.URL.EscapedPath())
	if ns == nil || !s.ns.end(ns) {
		return 0, errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
			"no namespace %q: it ended (DELETE, or idle past its ttl) or never existed", truncate(id, 64))
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent, nil
}
