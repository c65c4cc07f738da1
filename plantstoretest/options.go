package plantstoretest

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/plantstore/plantstore-go"
)

// DefaultToken is the bearer token the fake accepts unless [WithToken]
// chooses another.
const DefaultToken = "plantstoretest-token"

// An Option configures a [Server] or a [Handler]. Options apply in order, and
// when two set the same thing the last one wins.
type Option func(*config)

// config is what the options build.
type config struct {
	token       string
	tls         bool
	allowDupIDs bool
	maxRequests *int // nil for no limit
	rules       []func(plantstore.NewPlant) *ErrorBody
	logger      *slog.Logger
	logToTB     bool
	tb          testing.TB // set by NewServer only
}

func newConfig(opts []Option) *config {
	c := &config{token: DefaultToken}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// check reports whether the configuration is usable.
func (c *config) check() error {
	if c.token == "" {
		return fmt.Errorf("plantstoretest: token must not be empty")
	}
	for i := 0; i < len(c.token); i++ {
		if b := c.token[i]; b <= ' ' || b >= 0x7f {
			return fmt.Errorf("plantstoretest: token has an invalid character at byte %d (want visible ASCII)", i)
		}
	}
	if c.maxRequests != nil && *c.maxRequests < 0 {
		return fmt.Errorf("plantstoretest: WithRequestLimit(%d): the limit must be 0 or more", *c.maxRequests)
	}
	return nil
}

// WithToken sets the one bearer token the fake accepts. The default is
// [DefaultToken]. The token must be non-empty visible ASCII, as
// plantstore.WithToken requires; otherwise [NewServer] fails the test and
// [NewHandler] panics.
func WithToken(token string) Option {
	return func(c *config) { c.token = token }
}

// WithTLS makes [NewServer] serve HTTPS with a self-signed certificate that
// [Server.Client] trusts. [NewHandler] ignores it: TLS is a property of the
// server a Handler is mounted in.
func WithTLS() Option {
	return func(c *config) { c.tls = true }
}

// WithAllowDuplicateIDs makes the fake store a plant whose id is already
// stored, next to the earlier one.
//
// By default a second create with an id already stored is rejected with 400
// and [CodeDuplicateID] ("plant 7 already exists"), and nothing is stored.
// The specification is silent on duplicate ids; rejecting them makes the
// client-chosen id an idempotency key, which is what a test of retrying a
// create needs to observe: after a [Fault] with Store and Drop, the retry is
// answered with the duplicate error.
func WithAllowDuplicateIDs() Option {
	return func(c *config) { c.allowDupIDs = true }
}

// WithRequestLimit keeps only the n most recent requests for
// [Handler.Requests], so that a fake that runs for long, such as
// cmd/plantstore-mock, holds bounded memory: each recorded request keeps its
// body, up to 1 MiB. With n = 0 nothing is recorded. The default, right for
// a test, keeps every request. A negative n is invalid: [NewServer] fails
// the test and [NewHandler] panics. Stored plants are not affected.
func WithRequestLimit(n int) Option {
	return func(c *config) { c.maxRequests = &n }
}

// WithRule adds a domain rule, such as "tag must be one of …" or "names
// must not contain digits". Each rule is called with every plant that passed
// the fake's own checks, before it is stored; a non-nil *ErrorBody rejects the
// plant with 400 and that ErrorBody as the body, and nothing is stored. Rules run
// in the order given and the first rejection wins. A rule is called from the
// server's goroutines, possibly concurrently, and must not call the Handler's
// methods. A nil rule is ignored.
//
// A rule that panics is a bug in the test. Under [NewServer] it fails the
// test, and the request is answered with 500 and [CodeCallbackPanic]. A
// Handler from [NewHandler] has no test to fail, so the panic goes on out of
// ServeHTTP, as any handler's would: net/http logs it and drops the
// connection.
func WithRule(rule func(plantstore.NewPlant) *ErrorBody) Option {
	return func(c *config) {
		if rule != nil {
			c.rules = append(c.rules, rule)
		}
	}
}

// WithLogger logs one line per request to l at info level: method, path,
// status, duration, and the kind of fault that answered it, if any. Headers
// and bodies, and so the token, are never logged. The default, like a nil l,
// logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithLogging makes [NewServer] log one line per request through the test's
// Logf, with the same fields as [WithLogger], and log the server's own
// errors (such as failed TLS handshakes) the same way. [NewHandler] ignores
// it, having no test to log to.
func WithLogging() Option {
	return func(c *config) { c.logToTB = true }
}
