package plantstore

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// A CallOption changes one call of a [Client] method. Options apply in
// order, so the last of two that set the same thing wins. A nil CallOption,
// or one given an invalid value, fails the call before anything is sent.
type CallOption func(*callConfig) error

// callConfig is what the call options build, only for calls given some.
type callConfig struct {
	header         http.Header
	maxRetries     int // negative: the Client's
	attemptTimeout time.Duration
	requestID      string
	info           *CallInfo
}

// maxHeaderValueBytes is the longest value [WithHeader] accepts.
const maxHeaderValueBytes = 4096

// ownedHeaders are the headers the client or the transport sets, with the
// option to use instead, if any.
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
// what a gateway in front of the API may want (a tenant, a feature flag); a
// later WithHeader with the same key, in any case, replaces it. Values are
// never logged nor put in an error. It is an error to name a header the
// client sets (Authorization, Content-Type, Accept, User-Agent,
// X-Request-Id, X-Retry-Count) or the transport manages (Host,
// Content-Length, Accept-Encoding, Connection, Keep-Alive,
// Proxy-Authorization, Proxy-Connection, TE, Trailer, Transfer-Encoding,
// Upgrade), an invalid name, or a value over 4096 bytes or with a control
// character other than tab.
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
// retried, in place of [WithMaxRetries]. Zero makes a single attempt; a
// negative n is an error.
func WithCallRetries(n int) CallOption {
	return func(cc *callConfig) error {
		cc.maxRetries = n
		return notNegative("call retries", n)
	}
}

// WithAttemptTimeout bounds each attempt of the call, from sending the
// request to reading the whole answer, to d. An attempt that times out
// before the status arrives is retried like a broken connection; one that
// times out reading a 2xx body is not (the plant was stored: the error
// matches [ErrMaybeCreated]). Either error says "attempt timed out" and
// matches [context.DeadlineExceeded]. Zero, the default, leaves attempts to
// the context and [WithHTTPClient]'s Timeout; a negative d is an error.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(cc *callConfig) error {
		cc.attemptTimeout = d
		return notNegative("attempt timeout", d)
	}
}

// WithRequestID sends id as the call's X-Request-Id in place of a random
// one, to carry an id the caller already logs, such as an incoming
// request's. id must be 1 to 128 bytes of visible ASCII; anything else is
// an error.
func WithRequestID(id string) CallOption {
	return func(cc *callConfig) error {
		if problem := requestIDProblem(id); problem != "" {
			return errors.New("plantstore: request id " + problem)
		}
		cc.requestID = id
		return nil
	}
}

// WithCallInfo stores the call's [CallInfo] in *dst once, when the call
// returns, whether it succeeded or not; a call that fails on an invalid
// CallOption leaves it alone. dst must not be read while the call runs. A
// nil dst is an error.
func WithCallInfo(dst *CallInfo) CallOption {
	return func(cc *callConfig) error {
		if dst == nil {
			return errors.New("plantstore: call info destination must not be nil")
		}
		cc.info = dst
		return nil
	}
}
