package plantstore

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// logAttempt writes the log lines [WithLogger] promises for an attempt: one
// at debug level for every attempt, and one at info level when it is
// retried, or at warn level when the retry budget refused its retry. The
// attributes come in a fixed order, and never include a header (so neither
// the token nor a WithHeader value can appear).
func (c *Client) logAttempt(ctx context.Context, st *callState, a Attempt) {
	var outcome slog.Attr
	if a.Err != nil {
		outcome = slog.String("error", a.Err.Error())
	} else {
		outcome = slog.Int("status", a.StatusCode)
	}
	attrs := [...]slog.Attr{
		slog.String("method", st.info.Method),
		slog.String("url", st.info.URL),
		slog.String("request_id", st.info.RequestID),
		slog.Int("attempt", a.Number),
		outcome,
		slog.Duration("duration", time.Since(st.attemptStart)),
		slog.String("server_request_id", st.info.ServerRequestID),
	}
	n := len(attrs)
	if a.StatusCode == 0 || st.info.ServerRequestID == "" {
		n-- // no answer, or one without an id of the server's
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "plantstore: attempt", attrs[:n]...)
	if !a.WillRetry && !a.RetryDenied {
		return
	}
	reason := outcome.Value.String()
	if a.Err == nil {
		reason = "status " + strconv.Itoa(a.StatusCode)
	}
	// The records below begin as the attempt's does, in attrs' own array.
	head := attrs[:4] // method, url, request_id, attempt
	if a.RetryDenied {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "plantstore: retry budget exhausted", append(head, slog.String("reason", reason))...)
		return
	}
	c.logger.LogAttrs(ctx, slog.LevelInfo, "plantstore: retrying", append(head, slog.String("reason", reason),
		slog.Duration("wait", a.Wait), slog.Duration("retry_after", a.RetryAfter))...)
}
