package plantstore

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// What the client makes of HTTP/2's signals that the server did not
// process a request (RFC 9113 §8.7), and of its other resets, is told on
// [Client]; this file reads them.
//
// net/http gives these signals no exported type. Its stream error has an
// As method (since Go 1.20) that copies it into any struct with the same
// fields, h2StreamError here; the GOAWAY, and a signal its HTTP/2
// transport would have re-sent the request on had the request had a
// GetBody (see attemptTransport), come only as text, unchanged since the
// transport's first release; wiretest's fault matrix holds this file to
// every Go version the module supports.

// h2StreamError receives net/http's (unexported) HTTP/2 stream error.
type h2StreamError struct {
	StreamID uint32
	Code     h2ErrCode
	Cause    error
}

func (e h2StreamError) Error() string { return "stream error: " + e.Code.String() }

// h2ErrCode is an HTTP/2 error code (RFC 9113 §7).
type h2ErrCode uint32

const h2RefusedStream h2ErrCode = 0x7

var h2ErrCodeNames = [...]string{
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
	"CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
	"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
}

func (c h2ErrCode) String() string {
	if int(c) < len(h2ErrCodeNames) {
		return h2ErrCodeNames[c]
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

// notProcessedError is an attempt the server said it did not process.
type notProcessedError struct {
	signal string // "REFUSED_STREAM" or "GOAWAY"
	err    error
}

func (e *notProcessedError) Error() string {
	return "the server did not process the request (HTTP/2 " + e.signal + ")"
}
func (e *notProcessedError) Unwrap() error { return e.err }

// streamResetError is an attempt whose stream the server reset.
type streamResetError struct {
	code h2ErrCode
	err  error
}

func (e *streamResetError) Error() string {
	return "the server reset the request (HTTP/2 " + e.code.String() + ")"
}
func (e *streamResetError) Unwrap() error { return e.err }

// refusedAnswerError is an answer the transport refused: over HTTP/2, a
// connection error the client raised, which is how a header value
// (COMPRESSION_ERROR) or header list (PROTOCOL_ERROR) over the transport's
// limit shows, and how any other breach of the protocol by the server
// does. The server would answer a retry the same way. Its text is the
// transport's.
type refusedAnswerError struct{ err error }

func (e *refusedAnswerError) Error() string { return e.err.Error() }
func (e *refusedAnswerError) Unwrap() error { return e.err }

// h2Signal returns err, a transport's error, as a *notProcessedError or
// a *streamResetError when it is the server's HTTP/2 signal, as a
// *refusedAnswerError when the client refused the server's frames, and
// else unchanged.
func h2Signal(err error) error {
	var se h2StreamError
	if errors.As(err, &se) {
		if se.Cause == nil || se.Cause.Error() != h2FromPeerText {
			return err // the client's own verdict on the stream
		}
		return h2Reset(se.Code, err)
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
		return &notProcessedError{signal: "GOAWAY", err: err}
	case is(h2ConnText + "PROTOCOL_ERROR"), is(h2ConnText + "COMPRESSION_ERROR"):
		return &refusedAnswerError{err: err}
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
	if c := slices.Index(h2ErrCodeNames[:], fields[1]); c >= 0 {
		return h2Reset(h2ErrCode(c), err)
	}
	return err
}

// h2Reset is the meaning of a reset with code that the server sent.
func h2Reset(code h2ErrCode, err error) error {
	if code == h2RefusedStream {
		return &notProcessedError{signal: code.String(), err: err}
	}
	return &streamResetError{code: code, err: err}
}
