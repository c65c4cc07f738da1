package mockserver

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go/internal/plural"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// The mock's control endpoints of namespaces: create, list and end.

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

func (s *Server) createNamespace(w http.ResponseWriter, r *http.Request, body []byte) (int, *controlError) {
	base, err := s.mockURL(r)
	if err != nil {
		return 0, err
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
		d, ok := wire.ParseDuration(*req.TTL)
		if !ok || d < MinNamespaceTTL || d > MaxNamespaceTTL {
			return 0, badRequest("ttl %.40q: want a duration from %v to %v, such as \"10m\" or \"90s\"", *req.TTL, MinNamespaceTTL, MaxNamespaceTTL)
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
			"%s live, the most -max-namespaces allows; end one (DELETE %s/{id}), let one idle past its ttl, "+
				"or restart the mock with a larger -max-namespaces", plural.Count(s.ns.Max, "namespace"), namespacesPath)
	}
	opts := append(s.ns.Options[:len(s.ns.Options):len(s.ns.Options)],
		plantstoretest.WithToken(s.ns.APIToken), plantstoretest.WithMaxPlants(ns.maxPlants))
	ns.srv = &Server{fake: plantstoretest.NewHandler(opts...)}
	ns.created, ns.lastUsed = now, now
	reply := describe(base, ns)
	reply.Token = token
	s.ns.add(ns)
	return writeJSON(w, http.StatusCreated, reply), nil
}

// labelProblem reports what is wrong with a label, or "".
func labelProblem(label string) string {
	if utf8.RuneCountInString(label) > MaxNamespaceLabel {
		return "is longer than " + strconv.Itoa(MaxNamespaceLabel) + " characters"
	}
	unprintable := strings.ContainsRune(label, utf8.RuneError) // what JSON made of invalid UTF-8
	wire.ReplaceUnprintable(label, func(dst []byte, _ rune, _ string) []byte {
		unprintable = true
		return dst
	})
	if unprintable {
		return "must be printable text: no control or bidirectional characters, no space but U+0020"
	}
	return ""
}

// describe is ns as its create and the list show it, without its token;
// base is the mock's URL.
func describe(base string, ns *namespace) namespaceBody {
	return namespaceBody{
		Namespace: ns.id,
		BaseURL:   base + nsPrefix + ns.id,
		Label:     ns.label,
		TTL:       ns.ttl.String(),
		MaxPlants: ns.maxPlants,
		CreatedAt: ns.created.UTC(),
		ExpiresAt: ns.lastUsed.Add(ns.ttl).UTC(),
	}
}

// mockURL is the mock's URL as the control request r reached it: its Host,
// so that a job that reaches the mock by a name of the network it runs in
// (a compose service, a Kubernetes Service) gets a base_url by that name.
// A request without a Host (HTTP/1.0) gets the listener's address. A Host
// that cannot make a base URL a client accepts (wire.ParseBaseURL, the
// client's own rule) is refused, not replaced: the listener's address is
// not the name the job reached the mock by.
func (s *Server) mockURL(r *http.Request) (string, *controlError) {
	if r.Host == "" {
		base := ClientURL(s.listenAddr)
		if baseURLProblem(base) != "" {
			return "", badRequest("no Host (HTTP/1.0), and the listener's address %q cannot make a base_url: send a Host", s.listenAddr)
		}
		return base, nil
	}
	if msg := baseURLProblem("http://" + r.Host); msg != "" {
		return "", badRequest("Host %q cannot make a base_url: %s", truncate(r.Host, 100), msg)
	}
	return "http://" + r.Host, nil
}

// baseURLProblem reports why base, "http://" and a host, is not a base URL
// a client accepts, or "".
func baseURLProblem(base string) string {
	u, err := wire.ParseBaseURL(base)
	switch {
	case err != nil:
		return strings.TrimPrefix(err.Error(), "plantstore: ")
	case u.Path != "":
		return "it holds a path"
	}
	return ""
}

func (s *Server) listNamespaces(w http.ResponseWriter, r *http.Request, _ []byte) (int, *controlError) {
	base, err := s.mockURL(r)
	if err != nil {
		return 0, err
	}
	var list []namespaceBody
	s.ns.each(func(ns *namespace) { list = append(list, describe(base, ns)) })
	slices.SortFunc(list, func(a, b namespaceBody) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.Namespace, b.Namespace))
	})
	return writeJSONArray(w, len(list), func(i int) any { return list[i] }), nil
}

func (s *Server) endNamespace(w http.ResponseWriter, r *http.Request, _ []byte) (int, *controlError) {
	id := r.PathValue("namespace")
	ns := s.ns.lookup(namespacesPath+"/", id, r.URL.EscapedPath())
	if ns == nil || !s.ns.end(ns) {
		return 0, errorf(http.StatusNotFound, plantstoretest.CodeNotFound,
			"no namespace %q: it ended (DELETE, or idle past its ttl) or never existed", truncate(id, 64))
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent, nil
}
