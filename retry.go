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

// newRetryClient returns the go-retryablehttp client that runs every
// call's attempts over hc. Its hooks are the steps of a call, each finding
// the call's state with [stateOf]. Its request keeps the call's context,
// by which its loop checks retries and waits; an attempt's own context is
// applied below, by [attemptTransport].
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

// checkRetry runs after each attempt, with the call's context and the
// attempt's outcome. [Client.judge] decides; checkRetry records the outcome
// in st and returns go-retryablehttp's answer: whether to retry, and else
// the error that ends the call (none after an answer). A retried attempt is
// closed here (drained, its hooks told, its context released) and its wait
// taken here, so that the wait the hooks are told is the wait taken. The
// last attempt stays open for [Client.send] to close once its body is
// read.
func (c *Client) checkRetry(ctx context.Context, st *callState, resp *http.Response, err error) (bool, error) {
	if err != nil && st.attemptTimedOut(ctx) {
		err = &attemptTimeoutError{d: st.attemptTimeout, err: err}
	}
	v := c.judge(ctx, st, resp, err)
	st.maybeCreated = st.maybeCreated || st.mayCreate && v.maybeStored
	if resp != nil {
		st.info.StatusCode, st.header, st.idRead = resp.StatusCode, resp.Header, false
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

// keepLastResponse replaces go-retryablehttp's ErrorHandler, which drops
// the last response for a bare "giving up": the call gets its own error,
// and the response send makes an *APIError of.
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

// drainBytes is how much of a retried response's body is read to reuse its
// connection; a longer body costs the connection instead.
const drainBytes = 4096

// prepareRetry readies req, go-retryablehttp's copy of the last request
// (the transport may still be closing the original's body), for the next
// attempt: a fresh body, its own header map with the retry's number, and a
// fresh token from a token func.
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
