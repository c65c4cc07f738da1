// Package h2signal reads what net/http's HTTP/2 errors mean: a signal
// that the server did not process a request (RFC 9113 §8.7), a reset of
// its stream, or the client's refusal of the server's frames. What the
// client makes of them is told on plantstore.Client.
//
// net/http gives these errors no exported type. Its stream error has an
// As method (since Go 1.20) that copies it into any struct with the same
// fields, [StreamError] here; the GOAWAY, and a signal its HTTP/2
// transport would have re-sent the request on had the request had a
// GetBody, come only as text, unchanged since the transport's first
// release; wiretest's fault matrix holds this package to every Go version
// the module supports.
package h2signal

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// StreamError receives net/http's (unexported) HTTP/2 stream error.
type StreamError struct {
	StreamID uint32
	Code     ErrCode
	Cause    error
}

func (e StreamError) Error() string { return "stream error: " + e.Code.String() }

// ErrCode is an HTTP/2 error code (RFC 9113 §7).
type ErrCode uint32

const refusedStream ErrCode = 0x7

var codeNames = [...]string{
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
	"CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
	"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
}

func (c ErrCode) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "error code 0x" + strconv.FormatUint(uint64(c), 16)
}

const (
	// h2GoAwayText is the error of a stream above a GOAWAY's
	// last-stream-id.
	h2GoAwayText = "http2: Transport received Server's graceful shutdown GOAWAY"
	// h2NoResendText begins the error of a signal the transport would
	// have re-sent the request on, and h2StreamText the stream error it
	// quotes.
	h2NoResendText = "http2: Transport: cannot retry err ["
	h2StreamText   = "stream error: stream ID "
	// h2FromPeerText ends a stream error the server sent.
	h2FromPeerText = "received from peer"
	// h2GoAwayCodeText begins the error of a connection's first stream
	// when the server's GOAWAY, with an error code other than NO_ERROR,
	// put it above the last stream processed (net/http since Go 1.22).
	h2GoAwayCodeText = "http2: Transport received GOAWAY from server ErrCode:"
	// h2ConnText begins a connection error the client raised, such as
	// "connection error: PROTOCOL_ERROR".
	h2ConnText = "connection error: "
)

// NotProcessedError is an attempt the server said it did not process.
type NotProcessedError struct {
	signal string // "REFUSED_STREAM" or "GOAWAY"
	err    error
}

func (e *NotProcessedError) Error() string {
	return "the server did not process the request (HTTP/2 " + e.signal + ")"
}
func (e *NotProcessedError) Unwrap() error { return e.err }

// StreamResetError is an attempt whose stream the server reset.
type StreamResetError struct {
	code ErrCode
	err  error
}

func (e *StreamResetError) Error() string {
	return "the server reset the request (HTTP/2 " + e.code.String() + ")"
}
func (e *StreamResetError) Unwrap() error { return e.err }

// RefusedAnswerError is an answer the transport refused: over HTTP/2, a
// connection error the client raised, which is how a header value
// (COMPRESSION_ERROR) or header list (PROTOCOL_ERROR) over the transport's
// limit shows, and how any other breach of the protocol by the server
// does. The server would answer a retry the same way. Its text is the
// transport's.
type RefusedAnswerError struct{ err error }

func (e *RefusedAnswerError) Error() string { return e.err.Error() }
func (e *RefusedAnswerError) Unwrap() error { return e.err }

// Of returns err, a transport's error, as a *NotProcessedError or
// a *StreamResetError when it is the server's HTTP/2 signal, as a
// *RefusedAnswerError when the client refused the server's frames, and
// else unchanged.
func Of(err error) error {
	var se StreamError
	if errors.As(err, &se) {
		if se.Cause == nil || se.Cause.Error() != h2FromPeerText {
			return err // the client's own verdict on the stream
		}
		return reset(se.Code, err)
	}
	// The texts are matched whole or as a prefix, never as a part: the
	// error of a stream at or below a GOAWAY quotes the GOAWAY's debug
	// data, which the server chooses, and that must not make a stream the
	// server may have processed read as not processed.
	msg := err.Error()
	quoted, noResend := strings.CutPrefix(msg, h2NoResendText)
	if !noResend {
		quoted = msg
	}
	// is reports whether the error is text: all of it, or all that the
	// transport's "cannot retry" error quotes, up to its "]".
	is := func(text string) bool {
		return quoted == text || noResend && strings.HasPrefix(quoted, text+"]")
	}
	switch {
	case is(h2GoAwayText), strings.HasPrefix(quoted, h2GoAwayCodeText):
		return &NotProcessedError{signal: "GOAWAY", err: err}
	case is(h2ConnText + "PROTOCOL_ERROR"), is(h2ConnText + "COMPRESSION_ERROR"):
		return &RefusedAnswerError{err: err}
	}
	// "stream error: stream ID 1; REFUSED_STREAM; received from peer":
	// x/net's transport's stream error, which has no As method, or one the
	// "cannot retry" error quotes.
	rest, ok := strings.CutPrefix(quoted, h2StreamText)
	if !ok {
		return err
	}
	fields := strings.SplitN(rest, "; ", 3)
	if len(fields) < 3 || !(fields[2] == h2FromPeerText || noResend && strings.HasPrefix(fields[2], h2FromPeerText+"]")) {
		return err
	}
	if c := slices.Index(codeNames[:], fields[1]); c >= 0 {
		return reset(ErrCode(c), err)
	}
	return err
}

// reset is the meaning of a reset with code that the server sent.
func reset(code ErrCode, err error) error {
	if code == refusedStream {
		return &NotProcessedError{signal: code.String(), err: err}
	}
	return &StreamResetError{code: code, err: err}
}
