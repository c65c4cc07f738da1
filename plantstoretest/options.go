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

// An Option configures a [Server] or a [Handler]. Options apply in order;
// the last wins. An invalid option is misuse: [NewServer] fails the test
// with tb.Fatalf at the test's line, and [NewHandler] panics, each with a
// message that starts with "plantstoretest:".
type Option func(*config)

// config is what the options build.
type config struct {
	token       []byte
	tls         bool
	http2       bool // WithHTTP2
	inMemory    bool // WithInMemoryNetwork
	allowDupIDs bool
	maxRequests *int // nil for no limit
	rules       []func(plantstore.NewPlant) *ErrorBody
	logger      *slog.Logger
	logToTB     bool
	tb          testing.TB // set by NewServer only: nil for NewHandler's
	site        string     // set by NewServer only: see callSite

	plants    []plantstore.NewPlant // WithPlants
	routes    []route               // added to the route table by tests
	maxPlants int
	bodyLimit int
	rateN     int           // WithRateLimit; 0 for none
	ratePer   time.Duration // WithRateLimit
	chaos     float64       // WithChaos; 0 for none
	chaosSeed int64
	profile   *Profile // WithProfile; nil for none
	budget    *Budget  // WithBudget; nil for none
	schedule  schedule // WithSchedule
	scheduled bool     // WithSchedule was given, even empty: HTTPClient guards the requests
	errs      []error  // of options whose argument does not parse
	watch     *reached // Explore's record of the outcomes its run reached
}

// DefaultMaxPlants is how many plants a [Handler] stores at most unless
// [WithMaxPlants] says otherwise.
const DefaultMaxPlants = 1_000_000

func newConfig(opts []Option) *config {
	c := &config{token: []byte(DefaultToken), maxPlants: DefaultMaxPlants, bodyLimit: maxBodyBytes}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// check reports whether the configuration is usable.
func (c *config) check() error {
	tokenProblem := wire.TokenProblem(string(c.token))
	switch {
	case len(c.errs) > 0:
		return c.errs[0]
	case tokenProblem != "":
		return fmt.Errorf("plantstoretest: token %s", tokenProblem)
	case c.http2 && !c.tls && !h2c.Supported:
		return errors.New(errH2CNeedsGo124)
	case c.maxRequests != nil && *c.maxRequests < 0:
		return fmt.Errorf("plantstoretest: WithJournalLimit(%d): the limit must be 0 or more", *c.maxRequests)
	case c.maxPlants < 0:
		return fmt.Errorf("plantstoretest: WithMaxPlants(%d): the limit must be 0 or more", c.maxPlants)
	case c.bodyLimit < 0:
		return fmt.Errorf("plantstoretest: WithJournalBodyLimit(%d): the limit must be 0 or more", c.bodyLimit)
	case (c.rateN != 0 || c.ratePer != 0) && (c.rateN <= 0 || c.ratePer <= 0):
		return fmt.Errorf("plantstoretest: WithRateLimit(%d, %v): want at least 1 request per positive duration", c.rateN, c.ratePer)
	case c.rateN > 0 && c.ratePer/time.Duration(c.rateN) == 0:
		return fmt.Errorf("plantstoretest: WithRateLimit(%d, %v): more than one request per nanosecond", c.rateN, c.ratePer)
	case !(c.chaos >= 0 && c.chaos <= 1): // also rejects NaN; 0 is the default
		return fmt.Errorf("plantstoretest: WithChaos(%v, %d): the fraction must be from 0 to 1", c.chaos, c.chaosSeed)
	case c.profile != nil:
		return c.profile.Check()
	}
	return nil
}

// misuse reports that the caller used the fake wrongly, as [Option] says:
// each function on the way calls tb.Helper.
func (c *config) misuse(msg string) {
	if c.tb == nil {
		panic(msg)
	}
	c.tb.Helper()
	c.tb.Fatalf("%s", msg)
}

// WithToken sets the one bearer token the fake accepts, instead of
// [DefaultToken]: non-empty visible ASCII, as [plantstore.WithToken] needs.
func WithToken(token string) Option {
	return func(c *config) { c.token = []byte(token) }
}

// WithTLS makes [NewServer] serve HTTPS with a self-signed certificate that
// [Server.Client] trusts.
func WithTLS() Option {
	return func(c *config) { c.tls = true }
}

// WithHTTP2 makes [NewServer] serve HTTP/2 beside HTTP/1.1, and the
// Server's clients speak it, as a deployment and the default plantstore
// client do: with [WithTLS], h2 by ALPN; without, h2c with prior knowledge,
// which needs Go 1.24 or later. It works in memory too, and in a
// testing/synctest bubble from Go 1.26 (before, NewServer there fails the
// test). Only the connection differs (see [Fault]'s Drop and GoAway), not
// the answers.
func WithHTTP2() Option {
	return func(c *config) { c.http2 = true }
}

// errH2CNeedsGo124 is why NewServer refuses WithHTTP2 without WithTLS
// before Go 1.24.
const errH2CNeedsGo124 = "plantstoretest: WithHTTP2 without WithTLS serves h2c, which needs Go 1.24 or later (http.Protocols); " +
	"add WithTLS for HTTP/2 over TLS"

// WithInMemoryNetwork makes [NewServer] serve on an in-memory network of
// its own instead of a loopback socket, which would hang a testing/synctest
// bubble (NewServer there fails the test without it): call NewServer inside
// the function given to synctest.Test. Every feature works there;
// [WithRateLimit]'s clock is the bubble's. Outside a bubble it works in
// real time, with no port to allocate.
//
// Only the Server's clients ([Server.Client], [Server.ProductionClient],
// [Server.HTTPClient]) reach it, at 127.0.0.1:1: loopback, so
// plantstore.NewClient needs no WithInsecureHTTP, and nothing listens
// there. Keep the loopback default when anything else must: another
// process, a transport that cannot be replaced, tests of dialling and sockets.
//
// Under the race detector on Go 1.25 and 1.26, a bubble whose goroutines
// fire timers at the same instant on two threads, as a client retrying in
// many goroutines does, can crash the runtime (SIGSEGV in
// runtime.(*timer).maybeRunChan, or "ThreadSanitizer: CHECK failed"), a Go
// bug fixed in Go 1.27: run such tests with go test -race -cpu 1 there.
func WithInMemoryNetwork() Option {
	return func(c *config) { c.inMemory = true }
}

// WithAllowDuplicateIDs makes the fake store a plant whose id is stored,
// next to the earlier one. By default the id is an idempotency key: such a
// create gets [CodeDuplicateID], as does the retry of a create that a
// [Fault] with Store and Drop stored.
func WithAllowDuplicateIDs() Option {
	return func(c *config) { c.allowDupIDs = true }
}

// WithJournalLimit keeps only the n most recent requests for
// [Handler.Requests], so that a long-running fake holds bounded memory
// (with [WithJournalBodyLimit]). With n = 0 nothing is recorded; negative
// is invalid. The default keeps every request.
func WithJournalLimit(n int) Option {
	return func(c *config) { c.maxRequests = &n }
}

// WithRule adds a domain rule, such as "tag must be one of …", called with
// each plant that passed the fake's own checks, before it is stored: a
// non-nil *ErrorBody refuses it with 400 and that body. Rules run in order
// and the first refusal wins. A rule is called from the server's
// goroutines, possibly at once, and must not call the Handler. A nil rule
// is ignored. A rule that panics fails the test under [NewServer], and the
// request gets 500 with [CodeCallbackPanic]; under [NewHandler] the panic
// goes on out of ServeHTTP, as any handler's would.
func WithRule(rule func(plantstore.NewPlant) *ErrorBody) Option {
	return func(c *config) {
		if rule != nil {
			c.rules = append(c.rules, rule)
		}
	}
}

// WithLogger logs one line per request to l at debug level: method, path,
// status, duration and the fault that answered it. Headers and bodies, and
// so the token, are never logged. The default, like a nil l, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithLogging makes [NewServer] log those lines ([WithLogger]) and the
// server's own errors (such as failed TLS handshakes) to the test's log.
func WithLogging() Option {
	return func(c *config) { c.logToTB = true }
}

// WithPlants makes the fake start with plants stored, in order, each
// checked as [Handler.Seed] checks it; a plant that fails is an invalid
// option, named by its index. Repeated WithPlants add after the earlier.
// [Handler.Reset] forgets them too. The slice is copied.
func WithPlants(plants ...plantstore.NewPlant) Option {
	return func(c *config) { c.plants = append(c.plants, plants...) }
}

// WithMaxPlants bounds how many plants the fake stores ([WithBudget]
// bounds their bytes): a create, seed or [WithPlants] past it is refused
// with [CodeStoreFull]. The default is [DefaultMaxPlants]; 0 refuses every
// create; negative is invalid.
func WithMaxPlants(n int) Option {
	return func(c *config) { c.maxPlants = n }
}

// WithJournalBodyLimit keeps at most n bytes of each request's body in the
// journal ([Request.BodyTruncated]). The default, 1 MiB, keeps every body
// the fake accepts; 0 keeps none; negative is invalid. Every body is still
// read and checked in full. Headers are kept whole, within
// http.Server.MaxHeaderBytes.
func WithJournalBodyLimit(n int) Option {
	return func(c *config) { c.bodyLimit = n }
}

// WithRateLimit answers requests beyond n per period per with 429, a
// Retry-After header and [CodeRateLimited], storing nothing. The limit is
// a token bucket shared by every client, whatever the path: it holds n
// tokens, starts full and refills at n per per. Retry-After is the whole
// seconds, rounded up, until the next token. By default there is no
// limit; n < 1, per <= 0 and over one request per nanosecond are invalid.
func WithRateLimit(n int, per time.Duration) Option {
	return func(c *config) { c.rateN, c.ratePer = n, per }
}

// WithChaos answers about that fraction of requests with a random fault,
// for soak tests of a client's retries: a 503 with "Retry-After: 1", a
// 502, a dropped connection, a plant stored and then the connection
// dropped, or a delay of 10ms to 500ms before the usual reply. The choices
// are pseudo-random from seed ([WithChaosSeed]). The fraction is 0 (off)
// to 1 (every request); other values are invalid.
func WithChaos(fraction float64, seed int64) Option {
	return func(c *config) { c.chaos, c.chaosSeed = fraction, seed }
}

// WithChaosSeed seeds the pseudo-random choices of [WithChaos] and of a
// [Profile]'s Traffic, as plantstore-mock -chaos-seed does: with the same
// seed and fraction, the i-th request to reach the choice gets the same
// fate in every run, whatever the concurrency, so a failing soak test can
// be replayed. The default seed is 0.
func WithChaosSeed(seed int64) Option {
	return func(c *config) { c.chaosSeed = seed }
}
