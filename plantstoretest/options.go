package plantstoretest

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/h2c"
	"github.com/plantstore/plantstore-go/internal/wire"
)

// DefaultToken is the bearer token the fake accepts unless [WithToken]
// chooses another.
const DefaultToken = "plantstoretest-token"

// An Option configures a [Server] or a [Handler]. Options apply in order, and
// when two set the same thing the last one wins. An invalid option is
// misuse: [NewServer] fails the test with tb.Fatalf, at the test's line that
// called it, and [NewHandler] panics, each with a message that starts with
// "plantstoretest:".
type Option func(*config)

// config is what the options build.
type config struct {
	token       string
	tls         bool
	http2       bool // WithHTTP2
	inMemory    bool // WithInMemoryNetwork
	allowDupIDs bool
	maxRequests *int // nil for no limit
	rules       []func(plantstore.NewPlant) *ErrorBody
	logger      *slog.Logger
	logToTB     bool
	tb          testing.TB // set by NewServer only
	site        string     // set by NewServer only: see callSite

	plants     []plantstore.NewPlant // WithPlants
	routes     []route               // added to the route table; set by tests only
	maxPlants  int
	bodyLimit  int
	rateN      int           // WithRateLimit; 0 for none
	ratePer    time.Duration // WithRateLimit
	chaos      float64       // WithChaos; 0 for none
	chaosSeed  int64
	serverOnly []string // options that only NewServer can honour, by name
	profile    *Profile // WithProfile; nil for none
	budget     *Budget  // WithBudget; nil for none
	schedule   schedule // WithSchedule
	scheduled  bool     // WithSchedule was given, even empty
	errs       []error  // of options whose argument does not parse
}

// DefaultMaxPlants is how many plants a [Handler] stores at most unless
// [WithMaxPlants] says otherwise.
const DefaultMaxPlants = 1_000_000

func newConfig(opts []Option) *config {
	c := &config{token: DefaultToken, maxPlants: DefaultMaxPlants, bodyLimit: maxBodyBytes}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// check reports whether the configuration is usable.
func (c *config) check() error {
	if len(c.errs) > 0 {
		return c.errs[0]
	}
	if p := wire.TokenProblem(c.token); p != "" {
		return fmt.Errorf("plantstoretest: token %s", p)
	}
	if c.http2 && !c.tls && !h2c.Supported {
		return errors.New(errH2CNeedsGo124)
	}
	if c.maxRequests != nil && *c.maxRequests < 0 {
		return fmt.Errorf("plantstoretest: WithJournalLimit(%d): the limit must be 0 or more", *c.maxRequests)
	}
	if c.maxPlants < 0 {
		return fmt.Errorf("plantstoretest: WithMaxPlants(%d): the limit must be 0 or more", c.maxPlants)
	}
	if c.bodyLimit < 0 {
		return fmt.Errorf("plantstoretest: WithJournalBodyLimit(%d): the limit must be 0 or more", c.bodyLimit)
	}
	if c.rateN != 0 || c.ratePer != 0 {
		if c.rateN <= 0 || c.ratePer <= 0 {
			return fmt.Errorf("plantstoretest: WithRateLimit(%d, %v): want at least 1 request per positive duration", c.rateN, c.ratePer)
		}
		if c.ratePer/time.Duration(c.rateN) == 0 {
			return fmt.Errorf("plantstoretest: WithRateLimit(%d, %v): more than one request per nanosecond", c.rateN, c.ratePer)
		}
	}
	if c.profile != nil {
		if err := c.profile.Check(); err != nil {
			return err
		}
	}
	if !(c.chaos >= 0 && c.chaos <= 1) { // also rejects NaN; 0 is the default
		return fmt.Errorf("plantstoretest: WithChaos(%v, %d): the fraction must be from 0 to 1", c.chaos, c.chaosSeed)
	}
	return nil
}

// WithToken sets the one bearer token the fake accepts. The default is
// [DefaultToken]. The token must be non-empty visible ASCII, as
// [plantstore.WithToken] requires.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// WithTLS makes [NewServer] serve HTTPS with a self-signed certificate that
// [Server.Client] trusts. [NewHandler] refuses it.
func WithTLS() Option {
	return func(c *config) {
		c.tls = true
		c.serverOnly = append(c.serverOnly, "WithTLS")
	}
}

// WithAllowDuplicateIDs makes the fake store a plant whose id is already
// stored, next to the earlier one. By default the id is an idempotency key:
// such a create gets [CodeDuplicateID] ("plant 7 already exists"), as does
// the retry of a create that a [Fault] with Store and Drop stored.
func WithAllowDuplicateIDs() Option {
	return func(c *config) { c.allowDupIDs = true }
}

// WithJournalLimit keeps only the n most recent requests for
// [Handler.Requests], so that a long-running fake, such as
// cmd/plantstore-mock, holds bounded memory (each keeps its body up to
// [WithJournalBodyLimit]). With n = 0 nothing is recorded; a negative n is
// invalid. The default keeps every request.
func WithJournalLimit(n int) Option {
	return func(c *config) { c.maxRequests = &n }
}

// WithRule adds a domain rule, such as "tag must be one of …". Each rule is
// called with every plant that passed the fake's own checks, before it is
// stored; a non-nil *ErrorBody rejects the plant with 400 and that body, and
// nothing is stored. Rules run in the order given and the first rejection
// wins. A rule is called from the server's goroutines, possibly
// concurrently, and must not call the Handler's methods. A nil rule is
// ignored. A rule that panics fails the test under [NewServer], and the
// request is answered with 500 and [CodeCallbackPanic]; in a Handler from
// [NewHandler] the panic goes on out of ServeHTTP, as any handler's would.
func WithRule(rule func(plantstore.NewPlant) *ErrorBody) Option {
	return func(c *config) {
		if rule != nil {
			c.rules = append(c.rules, rule)
		}
	}
}

// WithLogger logs one line per request to l at debug level: method, path,
// status, duration, and the kind of fault that answered it, if any. Headers
// and bodies, and so the token, are never logged. The default, like a nil l,
// logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithLogging makes [NewServer] log one line per request to the test's log,
// with the fields of [WithLogger], and the server's own errors (such as
// failed TLS handshakes), at the test's line that called NewServer (see
// [NewServer]). [NewHandler] refuses it; use WithLogger there.
func WithLogging() Option {
	return func(c *config) {
		c.logToTB = true
		c.serverOnly = append(c.serverOnly, "WithLogging")
	}
}

// WithPlants makes the fake start with plants stored, in the order given,
// each checked as [Handler.Seed] checks it, whatever the order of the
// options; a plant that fails is an invalid option, named by its index.
// Repeated WithPlants options add their plants after those of the earlier
// ones. [Handler.Reset] forgets these plants too. The slice is copied.
func WithPlants(plants ...plantstore.NewPlant) Option {
	return func(c *config) { c.plants = append(c.plants, plants...) }
}

// WithMaxPlants bounds how many plants the fake stores ([WithBudget] bounds
// their bytes): a create past it is refused as the package documentation
// says, and so are [Handler.Seed] and [WithPlants]. The default is
// [DefaultMaxPlants]; with n = 0 every create is refused; a negative n is
// invalid. Each stored plant costs at most about 100 bytes besides its
// name and tag.
func WithMaxPlants(n int) Option {
	return func(c *config) { c.maxPlants = n }
}

// WithJournalBodyLimit makes [Handler.Requests] keep at most n bytes of each
// request's body (see [Request.BodyTruncated]). The default, 1 MiB, keeps
// every body the fake accepts; with n = 0 no body is kept; a negative n is
// invalid. Every body is still read and checked in full. With
// [WithJournalLimit] it bounds the journal's bodies to their product;
// headers are kept whole, within http.Server.MaxHeaderBytes.
func WithJournalBodyLimit(n int) Option {
	return func(c *config) { c.bodyLimit = n }
}

// WithRateLimit answers requests beyond n per period per with 429 Too Many
// Requests, a Retry-After header and [CodeRateLimited], before an injected
// [Fault] is used (see the package documentation for the order); such a
// request stores nothing. The limit is a token bucket shared by every
// client of the Handler, whatever the path or method: it holds n tokens,
// starts full and refills at n per per, so a burst of n requests passes at
// once. Retry-After is the whole seconds, rounded up, until the next token:
// a client that waits that long is not refused for the rate unless other
// requests took the token first. By default there is no limit; n < 1,
// per <= 0 and a rate over one request per nanosecond are invalid.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateN, c.ratePer = n, per }
}

// WithChaos answers about that fraction of requests, chosen at random, with
// a random fault, for soak tests of a client's retries: a 503 with
// "Retry-After: 1", a 502, a dropped connection, a plant stored and then the
// connection dropped, or a delay of 10ms to 500ms before the usual reply.
// Requests that something earlier answered take no part (see the package
// documentation for the order). The choices are pseudo-random from seed,
// which WithChaos sets as [WithChaosSeed] does (see there for replaying a
// run). fraction 0 turns chaos off and 1 answers every request with a
// fault; outside 0 to 1 (or NaN) is invalid.
func WithChaos(fraction float64, seed int64) Option {
	return func(c *config) { c.chaos, c.chaosSeed = fraction, seed }
}

// WithChaosSeed seeds the pseudo-random choices of [WithChaos] and of the
// replay of a [Profile]'s Traffic, as plantstore-mock -chaos-seed does: with
// the same seed (and fraction), the i-th request to reach the choice gets
// the same fate in every run, whatever the concurrency, so a failing soak
// test can be replayed. The default seed is 0 (or WithChaos's), so a test
// replays the same sequence every time; vary the seed to explore others.
// Of WithChaos and WithChaosSeed, the last given wins.
func WithChaosSeed(seed int64) Option {
	return func(c *config) { c.chaosSeed = seed }
}
