package plantstore

import (
	"context"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// newRetryClient returns the go-retryablehttp client that runs the
// attempts of every call of c over hc. Its hooks are the steps of a call:
// each finds the call's state with [stateOf] and hands it on.
// go-retryablehttp's request keeps the call's context throughout, so its
// loop checks retries and waits by the call's context; an attempt's own
// context is applied below it, by [attemptTransport].
func (c *Client) newRetryClient(hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient: hc,
		// judge enforces each call's own limit.
		RetryMax: math.MaxInt,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, _ int) {
			c.attemptStart(req.Context(), stateOf(req.Context()))
		},
		CheckRetry: func(ctx context.Context, resp *http.Response, err error) (bool, error) {
			return c.checkRetry(ctx, stateOf(ctx), resp, err)
		},
		Backoff:      noBackoff,
		ErrorHandler: keepLastResponse,
		PrepareRetry: func(req *http.Request) error {
			return c.prepareRetry(req.Context(), stateOf(req.Context()), req)
		},
	}
}

// checkRetry runs after every attempt, with ctx, the call's context, and
// the attempt's outcome, resp or err. It has [Client.judge] decide, records
// the outcome in st, and returns go-retryablehttp's answer: whether to
// retry and, when not, the error that ends the call (none after an
// answer; else the attempt's error, or the call context's when that ended
// first). An attempt that is retried is closed here (its response drained,
// its hooks told, its context released), and the wait before the retry is
// taken here too, so that the wait the hooks are told is the wait taken;
// go-retryablehttp's Backoff, which cannot see the call, adds nothing. The
// last attempt is left open for [Client.send] to close once the answer's
// body is read.
func (c *Client) checkRetry(ctx context.Context, st *callState, resp *http.Response, err error) (bool, error) {
	if err != nil && st.attemptTimedOut(ctx) {
		err = &attemptTimeoutError{d: st.attemptTimeout, err: err}
	}
	v := c.judge(ctx, st, resp, err)
	st.maybeCreated = st.maybeCreated || st.mayCreate && v.maybeStored
	if resp != nil {
		st.info.StatusCode, st.header = resp.StatusCode, resp.Header
	}
	if !v.WillRetry {
		st.last = v.Attempt
		if v.stop != nil {
			return false, v.stop
		}
		return false, err
	}
	if resp != nil {
		// Give the connection back to the pool before waiting.
		io.CopyN(io.Discard, resp.Body, drainBytes)
		resp.Body.Close()
	}
	c.attemptClose(st, v.Attempt)
	if err := wait(ctx, v.Wait); err != nil {
		return false, err
	}
	return true, nil
}

// noBackoff is go-retryablehttp's Backoff: checkRetry has already waited.
func noBackoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration { return 0 }

// keepLastResponse replaces go-retryablehttp's default ErrorHandler, which
// discards the last response and returns a bare "giving up" error. The
// call gets the error that ended it, and the last response, from which
// send makes an *APIError.
func keepLastResponse(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}

// wait waits d, or until ctx ends, which it then reports.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// drainBytes is how much of a retried response's body is read so that its
// connection can be reused; a longer body costs the connection instead.
const drainBytes = 4096

// prepareRetry readies req, go-retryablehttp's copy of the last
// attempt's request (the transport may still be closing the original's
// body), for the next attempt of the call whose context is ctx: a fresh
// body, its own header map with the retry's number, and a fresh token when
// a token func supplies them.
func (c *Client) prepareRetry(ctx context.Context, st *callState, req *http.Request) error {
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return err
		}
		req.Body = body
	}
	req.Header = req.Header.Clone()
	req.Header[headerRetryCount] = []string{strconv.Itoa(st.attempts)}
	if c.refreshAuth {
		token, auth, err := c.bearer(ctx)
		if err != nil {
			return err
		}
		req.Header["Authorization"] = []string{auth}
		st.sent(token)
	}
	return nil
}
