package conformance

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Target is the server a run checks, and the limits it keeps to.
type Target struct {
	// URL is the base URL of the Plant Store API, such as
	// "http://127.0.0.1:8080"; the kit sends POST {URL}/plants. Required,
	// and without a user or password (a report shows it).
	URL string
	// Token is the bearer token the target accepts. Required. No report
	// shows it, nor Control.AdminToken (see the package doc).
	Token string

	// Live must be set to run against a URL whose host is not a loopback
	// address (127.0.0.0/8, ::1 or "localhost"): that is taken to be a real
	// deployment, where the run leaves plants behind, since the API has no
	// delete. Without it, such a URL is refused before anything is sent.
	Live bool

	// Control, when not nil, is the target's control API (plantstore-mock's
	// /__plantstore/), which the kit uses to read back what it stored and to
	// script a 429 and a 503 for the Retry-After checks. A real deployment
	// has none: leave it nil. A Control URL not on loopback needs Live too.
	Control *Control

	// Fake, when not nil, is the in-process fake that serves URL (a
	// *plantstoretest.Server, or the *plantstoretest.Handler mounted
	// there), whose Go API the kit uses as it would a control API. Set at
	// most one of Control and Fake.
	Fake Fake

	// MaxCreates bounds how many plants a run may create: the kit sends a
	// request the target might accept only while fewer than MaxCreates of
	// them have gone unrefused (a 4xx answer stored nothing). Checks that
	// would need more are skipped, or, for the searches of the longest name
	// and largest body, give a coarser answer, which differs from the
	// fake's only if the fake's limit is outside it. 0 means
	// [DefaultMaxCreates]; a negative value is an error.
	MaxCreates int

	// FirstID is the first plant id the run uses; later ids count up from
	// it, one for each request, up to about 100 in a run. 0 picks a random
	// one from [FirstIDMin] up, so two runs do not collide.
	FirstID int64

	// NamePrefix starts the name of every plant the run sends. "" picks a
	// run-unique one, "conformance-" and 8 random hex digits and "-".
	NamePrefix string

	// Client sends the requests; nil means a client with a 10-second
	// timeout. Whatever Client says, each request ends after at most 30 s,
	// and redirects are never followed, so the token goes nowhere but URL.
	// After two requests in a row time out, the run sends no more, and
	// skips the checks left.
	Client *http.Client

	// Report, when not nil, receives the report of the run (by [Run]).
	Report *Report
}

// Fake is what the kit uses of an in-process fake: *plantstoretest.Server
// and *plantstoretest.Handler have both methods.
type Fake interface {
	AddFault(plantstoretest.Fault) (id int, err error)
	Plants() []plantstore.NewPlant
}

// Control is the control API of a fake: plantstore-mock's /__plantstore/.
type Control struct {
	// URL is the control API's base, such as
	// "http://127.0.0.1:8080/__plantstore".
	URL string
	// AdminToken is the mock's admin token (-admin-token), or "" when its
	// control API is open (on loopback, without one).
	AdminToken string
}

// requestTimeout bounds each request of a run (see [Target.Client]).
const requestTimeout = 30 * time.Second

// DefaultMaxCreates is how many plants a run creates at most unless
// [Target.MaxCreates] says otherwise.
const DefaultMaxCreates = 10

// FirstIDMin is the lowest id a run picks when [Target.FirstID] is 0:
// 9 × 10¹⁸. The ids from there to the largest int64 are the kit's; give
// your own plants other ids (those of plantstore.NewID meet them with odds
// of about 10⁻¹² a million).
const FirstIDMin int64 = 9_000_000_000_000_000_000

// idsPerRun bounds the ids one run uses: a FirstID must leave room for them.
const idsPerRun = 1000

// settings is a Target checked and with its defaults filled in.
type settings struct {
	base       string // URL without a trailing slash
	token      string
	control    *Control
	fake       Fake
	maxCreates int
	firstID    int64
	prefix     string
	client     *http.Client
	secrets    []string // the tokens, taken out of what the target answers
}

func (t *Target) settings() (*settings, error) {
	s := &settings{token: t.Token, maxCreates: cmp.Or(t.MaxCreates, DefaultMaxCreates), firstID: t.FirstID, prefix: t.NamePrefix}
	if t.URL == "" {
		return nil, errors.New("conformance: Target.URL is empty")
	}
	if t.Token == "" {
		return nil, errors.New("conformance: Target.Token is empty")
	}
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("conformance: Target.URL %q is not an http or https base URL", t.URL)
	}
	if u.User != nil {
		// The kit's Authorization header would override them anyway, and
		// the report would show them.
		return nil, fmt.Errorf("conformance: Target.URL %q holds a user or password; give the bearer token in Target.Token", u.Redacted())
	}
	if t.Control != nil && t.Fake != nil {
		return nil, errors.New("conformance: Target.Control and Target.Fake are both set; set the one the target has")
	}
	s.fake = t.Fake
	if t.MaxCreates < 0 {
		return nil, fmt.Errorf("conformance: Target.MaxCreates is %d, want 0 or more", t.MaxCreates)
	}
	if !t.Live && !wire.IsLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("conformance: Target.URL %q is not a loopback address, so it may be a real deployment: "+
			"a run creates up to %d plants there, which the API cannot delete; "+
			"set Target.Live (plantstore-mock conformance -live) to run against it", t.URL, s.maxCreates)
	}
	s.base = strings.TrimSuffix(t.URL, "/")
	if t.Control != nil {
		c, err := url.Parse(t.Control.URL)
		if err != nil || (c.Scheme != "http" && c.Scheme != "https") || c.Host == "" {
			return nil, fmt.Errorf("conformance: Target.Control.URL %q is not an http or https URL", t.Control.URL)
		}
		if c.User != nil {
			return nil, fmt.Errorf("conformance: Target.Control.URL %q holds a user or password; give the token in Control.AdminToken", c.Redacted())
		}
		if !t.Live && !wire.IsLoopbackHost(c.Hostname()) {
			return nil, fmt.Errorf("conformance: Target.Control.URL %q is not a loopback address; set Target.Live to use it", t.Control.URL)
		}
		s.control = &Control{URL: strings.TrimSuffix(t.Control.URL, "/"), AdminToken: t.Control.AdminToken}
	}
	var random [12]byte // for the ids and the name prefix
	if _, err := rand.Read(random[:]); err != nil {
		return nil, fmt.Errorf("conformance: picking the ids and names: %v", err)
	}
	if s.firstID == 0 {
		s.firstID = FirstIDMin + int64(binary.BigEndian.Uint64(random[:8])>>8)
	}
	if s.firstID < 0 || s.firstID > 1<<63-1-idsPerRun {
		return nil, fmt.Errorf("conformance: Target.FirstID %d leaves no room for the run's ids; want 1 to %d", s.firstID, int64(1<<63-1-idsPerRun))
	}
	if s.prefix == "" {
		s.prefix = "conformance-" + hex.EncodeToString(random[8:]) + "-"
	}
	base := t.Client
	if base == nil {
		base = &http.Client{Timeout: 10 * time.Second}
	}
	c := *base
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	s.client = &c
	s.secrets = []string{s.token}
	if s.control != nil {
		s.secrets = append(s.secrets, s.control.AdminToken)
	}
	return s, nil
}
