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

// An Option configures a [Client]. Options are applied in order by
// [NewClient]; when two options set the same thing, the last one wins. An
// option given an invalid value makes NewClient return an error.
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
}

func defaultConfig() config {
	return config{
		maxRetries:    defaultMaxRetries,
		retryWaitMin:  defaultRetryWaitMin,
		retryWaitMax:  defaultRetryWaitMax,
		maxRetryAfter: defaultMaxRetryAfter,
	}
}

// WithToken authenticates every request with the bearer token t. The token
// must be non-empty and consist of visible ASCII characters. It replaces any
// earlier [WithTokenFunc]. The token never appears in errors or logs, even
// when a server echoes it back, in its body, a redirect or its
// X-Request-Id (see [CallError.Error]); a token shorter than 8 bytes, such
// as a development "dev", is looked for only where "Bearer " precedes it,
// since replacing it everywhere would mangle every word that contains it.
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
// f returns, so that rotating or refreshed credentials take effect without
// building a new Client. f is called with the call's context and must be safe
// for concurrent use; an error from f fails the call with that error wrapped.
// It replaces any earlier [WithToken]. A nil f is an error.
//
// An oauth2.TokenSource fits in a few lines:
//
//	plantstore.WithTokenFunc(func(context.Context) (string, error) {
//		t, err := ts.Token()
//		if err != nil {
//			return "", err
//		}
//		return t.AccessToken, nil
//	})
func WithTokenFunc(f func(ctx context.Context) (string, error)) Option {
	return func(c *config) error {
		if f == nil {
			return errors.New("plantstore: token func must not be nil")
		}
		c.token, c.tokenFunc = "", f
		return nil
	}
}

// WithHTTPClient sends requests through hc instead of the client's own
// pooled transport: use it for proxies, mTLS or instrumented transports such
// as otelhttp. hc is never modified; the Client works on a copy that keeps
// hc's Transport, Jar and Timeout (which bounds each attempt, not the call),
// and adds retries, redirect protection for the token, and connection-pool
// preservation on top. A nil hc is an error. hc's transport sets its own
// limits: the default transport's bound of 64 KiB on response headers (see
// [Client.CreatePlant]) does not apply, and net/http's default is 10 MiB.
//
// For OAuth 2, pass the token source to [WithTokenFunc] rather than an
// oauth2 HTTP client here: the Client must set Authorization itself, so
// that it decides where the token goes.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("plantstore: HTTP client must not be nil")
		}
		c.httpClient = hc
		return nil
	}
}

// WithMaxRetries sets how many times a failed attempt is retried, so a call
// makes at most n+1 attempts. The default is 2. Zero disables retries; a
// negative n is an error. See [Client.CreatePlant] for what is retried.
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("plantstore: max retries must not be negative, got %d", n)
		}
		c.maxRetries = n
		return nil
	}
}

// WithRetryBackoff sets the exponential backoff between attempts: the wait
// after attempt n (numbered from 1, as [Attempt.Number] is) is drawn at
// random from the upper half of min(limit, base·2^(n-1)), so base, then
// 2·base, and so on. The defaults are 250ms and 5s. A base of zero
// retries at once; a negative base, or a limit below base, is an error. A
// longer Retry-After from the server takes precedence.
func WithRetryBackoff(base, limit time.Duration) Option {
	return func(c *config) error {
		if base < 0 || limit < base {
			return fmt.Errorf("plantstore: retry backoff needs 0 <= base <= limit, got base %v, limit %v", base, limit)
		}
		c.retryWaitMin, c.retryWaitMax = base, limit
		return nil
	}
}

// WithMaxRetryAfter caps how long the client waits when a response it would
// retry (429, 502, 503 or 504) carries a Retry-After header. The default is 30s. When the server
// asks for longer than d, or for longer than the context's deadline leaves,
// the call fails at once with an [*APIError] whose RetryAfter says when the
// server expects to be ready. Zero never waits for Retry-After; a negative d
// is an error.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("plantstore: max retry-after must not be negative, got %v", d)
		}
		c.maxRetryAfter = d
		return nil
	}
}

// WithLogger logs to l, after each attempt, a debug record "plantstore:
// attempt" with the attributes method, url, request_id (the id sent),
// attempt (from 1), status or error, duration and, when the answer carried
// one, server_request_id (see [CallInfo.ServerRequestID]); and when the attempt is retried, an info
// record "plantstore: retrying" with method, url, request_id, attempt,
// reason (such as "status 503" or the error), wait and retry_after (zero
// when the server sent none); and when the Client's retry budget refused
// a retry (see [WithRetryBudget]), a warn record "plantstore: retry budget
// exhausted" with method, url, request_id, attempt and reason. Attributes
// always come in that order. No header is logged, so neither the token nor
// a [WithHeader] value can appear. The default, like a nil l, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		c.logger = l
		return nil
	}
}

// WithInsecureHTTP allows a bearer token to be sent over plain http:// to a
// host that is not loopback. Without it, [NewClient] refuses such a base URL,
// because anyone on the path could read the token. Loopback hosts
// (localhost, 127.0.0.0/8, ::1) never need it.
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
// "User-Agent: inventory-sync/1.4 plantstore-go/0.2.0", so the service's
// operators can tell which application sent a request. The conventional
// form is name/version, optionally followed by more products or a comment
// in parentheses. product must be 1 to 256 bytes of printable ASCII
// (spaces allowed, but not at either end); anything else is an error. The
// default names only the SDK.
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
