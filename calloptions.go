package plantstore

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// A CallOption changes one call of a [Client] method, such as
// [Client.CreatePlant], without changing the Client. Options apply in
// order; when two set the same thing, the last one wins. A nil CallOption,
// or one given an invalid value, makes the call fail before anything is
// sent, with a [*CallError] whose Call.Attempts is zero.
type CallOption func(*callConfig) error

// callConfig is what the call options build. It exists only for calls that
// were given options, so a call without any allocates nothing for them.
type callConfig struct {
	header         http.Header
	maxRetries     int // negative: the Client's
	attemptTimeout time.Duration
	requestID      string
	info           *CallInfo
}

// maxHeaderValueBytes is the longest value [WithHeader] accepts.
const maxHeaderValueBytes = 4096

// ownedHeaders are the request headers the client sets or the transport
// manages, with the option to use instead where there is one.
var ownedHeaders = map[string]string{
	"Authorization":       "WithToken or WithTokenFunc",
	"Content-Type":        "",
	"Content-Length":      "",
	"Accept":              "",
	"Accept-Encoding":     "",
	"User-Agent":          "WithUserAgent",
	headerRequestID:       "WithRequestID",
	headerRetryCount:      "",
	"Host":                "",
	"Connection":          "",
	"Keep-Alive":          "",
	"Proxy-Authorization": "",
	"Proxy-Connection":    "",
	"Te":                  "",
	"Trailer":             "",
	"Transfer-Encoding":   "",
	"Upgrade":             "",
}

// WithHeader sends the header key: value on every attempt of the call, for
// what the API does not model but a gateway in front of it may want (a
// tenant, a feature flag). A second WithHeader with the same key (in any
// case) replaces the first.
//
// The client owns some headers and refuses to let a call set them: those
// it sends (Authorization, Content-Type, Accept, User-Agent, X-Request-Id,
// X-Retry-Count), those the transport manages (Host, Content-Length,
// Accept-Encoding, Connection, Keep-Alive, Proxy-Authorization,
// Proxy-Connection, TE, Trailer, Transfer-Encoding, Upgrade). Use
// [WithToken], [WithUserAgent] or [WithRequestID] where they apply. A key
// that is not a valid header name, or a value longer than 4096 bytes or
// containing a control character other than tab, is refused too.
//
// Values are never logged and never put in an error.
func WithHeader(key, value string) CallOption {
	return func(cc *callConfig) error {
		if !wire.ValidHeaderName(key) {
			return fmt.Errorf("plantstore: header name %q is not a valid token", key)
		}
		key = http.CanonicalHeaderKey(key)
		if use, owned := ownedHeaders[key]; owned {
			if use != "" {
				return fmt.Errorf("plantstore: header %s is set by the client: use %s", key, use)
			}
			return fmt.Errorf("plantstore: header %s is set by the client", key)
		}
		if len(value) > maxHeaderValueBytes {
			return fmt.Errorf("plantstore: header %s: value is longer than %d bytes", key, maxHeaderValueBytes)
		}
		if i := wire.HeaderValueControl(value); i >= 0 {
			return fmt.Errorf("plantstore: header %s: value has a control character at byte %d", key, i)
		}
		if cc.header == nil {
			cc.header = make(http.Header)
		}
		cc.header[key] = []string{value}
		return nil
	}
}

// WithCallRetries sets how many times this call's failed attempts are
// retried, in place of the Client's [WithMaxRetries]: the call makes at
// most n+1 attempts. Zero makes a single attempt; a negative n is an error.
func WithCallRetries(n int) CallOption {
	return func(cc *callConfig) error {
		if n < 0 {
			return fmt.Errorf("plantstore: call retries must not be negative, got %d", n)
		}
		cc.maxRetries = n
		return nil
	}
}

// WithAttemptTimeout bounds each attempt of the call, from sending the
// request to reading the whole response, to d. An attempt that runs out of
// time before the response's status arrives fails like a broken
// connection, so it is retried (it may have reached the server: see
// [ErrMaybeCreated]). One that runs out while reading the body of a 2xx
// response is not retried, since the server has answered that it stored
// the plant: the call fails, matching [ErrMaybeCreated]. Either way the
// error says "attempt timed out" and matches [context.DeadlineExceeded].
// The context's deadline still bounds the whole call, waits between
// attempts included. The default, like zero, leaves attempts unbounded but
// for the context and [WithHTTPClient]'s Timeout; a negative d is an error.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(cc *callConfig) error {
		if d < 0 {
			return fmt.Errorf("plantstore: attempt timeout must not be negative, got %v", d)
		}
		cc.attemptTimeout = d
		return nil
	}
}

// WithRequestID sends id as the call's X-Request-Id, on every attempt, in
// place of the random one the client makes up for each call: use it to
// carry an id the caller already logs, such as the one of an incoming
// request. id must be 1 to 128 bytes of visible ASCII; anything else is an
// error. Reusing an id across calls is allowed but defeats its purpose.
func WithRequestID(id string) CallOption {
	return func(cc *callConfig) error {
		if problem := requestIDProblem(id); problem != "" {
			return errors.New("plantstore: request id " + problem)
		}
		cc.requestID = id
		return nil
	}
}

// WithCallInfo stores in *dst what the call sent and got back: its request
// id, attempts, the last response's status and headers, and its duration.
// *dst is written once, when the call returns, whether it succeeded or not
// (a plant refused before sending leaves Attempts at zero); a call that
// fails on an invalid CallOption leaves it alone. A nil dst is an error.
// dst must not be read while the call is running.
func WithCallInfo(dst *CallInfo) CallOption {
	return func(cc *callConfig) error {
		if dst == nil {
			return errors.New("plantstore: call info destination must not be nil")
		}
		cc.info = dst
		return nil
	}
}
