package plantstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/plantstore/plantstore-go/internal/wire"
)

const (
	defaultMaxRetries    = 2
	defaultRetryWaitMin  = 250 * time.Millisecond
	defaultRetryWaitMax  = 5 * time.Second
	defaultMaxRetryAfter = 30 * time.Second
)

// An Option configures a [Client]. [NewClient] applies options in order, so
// the last of two that set the same thing wins, and fails on an invalid one.
type Option func(*config) error

// config is what the options build. NewClient turns it into a Client.
type config struct {
	token         string
	tokenFunc     func(context.Context) (string, error)
	httpClient    *http.Client
	maxRetries    int
	retryWaitMin  time.Duration
	retryWaitMax  time.Duration
	maxRetryAfter time.Duration
	logger        *slog.Logger
	insecureHTTP  bool
	app           string
	hooks         []Hooks
	jitter        rand.Source // WithRetryJitterSource; nil for math/rand/v2's
	budget        budgetConfig
	exists        *existsRule // WithAlreadyExists; nil for none
}

func defaultConfig() config {
	return config{
		maxRetries:    defaultMaxRetries,
		retryWaitMin:  defaultRetryWaitMin,
		retryWaitMax:  defaultRetryWaitMax,
		maxRetryAfter: defaultMaxRetryAfter,
		budget:        budgetConfig{ratio: defaultBudgetRatio, minPerSecond: defaultBudgetMinPerSecond},
	}
}

// WithToken authenticates every request with the bearer token t, a
// non-empty string of visible ASCII; it replaces any earlier
// [WithTokenFunc]. The token never appears in errors or logs ([CallError]).
func WithToken(t string) Option {
	return func(c *config) error {
		if problem := wire.TokenProblem(t); problem != "" {
			return errors.New("plantstore: token " + problem)
		}
		c.token, c.tokenFunc = t, nil
		return nil
	}
}

// WithTokenFunc authenticates each attempt, retries included, with the token
// f returns when called with the call's context, so that rotated credentials
// take effect without a new Client: for an oauth2.TokenSource, f returns
// its Token's AccessToken. f must be safe for concurrent use; its error
// fails the call, wrapped. It replaces any earlier [WithToken]; a nil f is
// an error.
func WithTokenFunc(f func(ctx context.Context) (string, error)) Option {
	return func(c *config) error {
		if f == nil {
			return errors.New("plantstore: token func must not be nil")
		}
		c.token, c.tokenFunc = "", f
		return nil
	}
}

// WithHTTPClient sends requests through hc, for proxies, mTLS or
// instrumented transports such as otelhttp. hc is never modified: the
// Client uses a copy that keeps hc's Transport, Jar and Timeout (which
// bounds each attempt, not the call), and adds retries, a redirect rule
// that keeps the token to its origin, and a pool that stays open after a
// failed call. hc's transport sets its own limits (net/http's bound on
// response headers is 10 MiB). A nil hc is an error. For OAuth 2, give the
// token source to [WithTokenFunc], not an oauth2 client to this: the Client
// must set Authorization itself.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("plantstore: HTTP client must not be nil")
		}
		c.httpClient = hc
		return nil
	}
}

// WithMaxRetries sets how many times a failed attempt is retried (see
// [Client]), so a call makes at most n+1 attempts. The default is 2. Zero
// disables retries; a negative n is an error.
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		c.maxRetries = n
		return notNegative("max retries", n)
	}
}

// WithRetryBackoff sets the exponential backoff between attempts: the wait
// after attempt n (from 1, as [Attempt.Number]) is drawn at random from the
// upper half of min(limit, base·2^(n-1)). The defaults are 250ms and 5s. A
// base of zero retries at once; a negative base, or a limit below base, is
// an error.
func WithRetryBackoff(base, limit time.Duration) Option {
	return func(c *config) error {
		if base < 0 || limit < base {
			return fmt.Errorf("plantstore: retry backoff needs 0 <= base <= limit, got base %v, limit %v", base, limit)
		}
		c.retryWaitMin, c.retryWaitMax = base, limit
		return nil
	}
}

// WithMaxRetryAfter caps the wait for a Retry-After on an answer the Client
// would retry; the default is 30s. When the server asks for longer than d,
// or than the context's deadline leaves, the call fails at once with an
// [*APIError] whose RetryAfter says when to come back. Zero never waits
// for Retry-After; a negative d is an error.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) error {
		c.maxRetryAfter = d
		return notNegative("max retry-after", d)
	}
}

// WithLogger logs to l a debug record "plantstore: attempt" after each
// attempt (method, url, request_id, attempt, status or error, duration, and
// server_request_id when the answer carried one); an info record
// "plantstore: retrying" when one is retried (method, url, request_id,
// attempt, reason such as "status 503", wait, retry_after or zero); and a
// warn record "plantstore: retry budget exhausted" when the budget refused
// a retry (method, url, request_id, attempt, reason), the attributes in
// that order. No header is logged, so neither the token nor a [WithHeader]
// value can appear. The default, like a nil l, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithInsecureHTTP allows a bearer token to be sent over plain http:// to a
// host other than localhost, 127.0.0.0/8 or ::1, where anyone on the path
// could read it; without it, [NewClient] refuses such a base URL.
func WithInsecureHTTP() Option {
	return func(c *config) error {
		c.insecureHTTP = true
		return nil
	}
}

// maxUserAgentBytes is the longest product [WithUserAgent] accepts.
const maxUserAgentBytes = 256

// WithUserAgent names the application in the User-Agent header, in front of
// the SDK's own product: WithUserAgent("inventory-sync/1.4") sends
// "User-Agent: inventory-sync/1.4 plantstore-go/0.5.0", so the service's
// operators can tell which application sent a request. product, by
// convention name/version, must be 1 to 256 bytes of printable ASCII, not
// starting or ending with a space; anything else is an error.
func WithUserAgent(product string) Option {
	return func(c *config) error {
		if product == "" || len(product) > maxUserAgentBytes {
			return fmt.Errorf("plantstore: user agent must be 1 to %d bytes, got %d", maxUserAgentBytes, len(product))
		}
		if product[0] == ' ' || product[len(product)-1] == ' ' {
			return errors.New("plantstore: user agent must not start or end with a space")
		}
		for i := 0; i < len(product); i++ {
			if product[i] < ' ' || product[i] >= 0x7f {
				return fmt.Errorf("plantstore: user agent has an invalid character at byte %d (want printable ASCII)", i)
			}
		}
		c.app = product
		return nil
	}
}

// notNegative returns the error for an option given a negative value, or
// nil. The option may set the value first: an error discards the config.
func notNegative[T int | time.Duration](what string, v T) error {
	if v < 0 {
		return fmt.Errorf("plantstore: %s must not be negative, got %v", what, v)
	}
	return nil
}
