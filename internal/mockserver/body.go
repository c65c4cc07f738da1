package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore-go/internal/strictjson"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Bounds on control request bodies. A body is read as it arrives, never
// into a buffer sized by its Content-Length, so a client that announces a
// large body and sends little costs little.
const (
	// MaxFaultBody bounds the body of POST /__plantstore/faults: room for a
	// scripted reply body of several hundred KiB.
	MaxFaultBody = 1 << 20
	// MaxSeedBody bounds the body of POST /__plantstore/plants: about
	// 200,000 plants with short names. Seed more with -seed, or in several
	// calls.
	MaxSeedBody = 16 << 20
	// maxEmptyBody bounds what is read of the body of an endpoint that
	// takes none: a small body is read whole, so that the refusal keeps the
	// connection open; past it net/http closes it.
	maxEmptyBody = 4 << 10
	// maxValues bounds the JSON values (objects, arrays, their members and
	// elements, and the scalars) of a control body that is decoded whole: a
	// fault's. A fault needs a few dozen; the bound keeps the memory a
	// decoded body takes in proportion to its size.
	maxValues = 1000
)

// CodeBadControlRequest is the "error" code of a 400 from the control API
// for a request that is well-formed JSON but asks for something the control
// API cannot do: a Fault that contradicts itself, a bad delay, a bad since
// query parameter, a body sent to an endpoint that takes none. Malformed
// JSON, a field of the wrong type and an unknown field are
// [plantstoretest.CodeInvalidJSON]; a body over the endpoint's limit is 413
// with [plantstoretest.CodeTooLarge]; a bad seed is answered with the code
// POST /plants would give the plant.
const CodeBadControlRequest int32 = 100

// controlError is a failed control request: the status and the ErrorBody to
// send.
type controlError struct {
	status    int
	body      plantstoretest.ErrorBody
	challenge string // the WWW-Authenticate value of a 401
	allow     string // the Allow value of a 405
}

func (e *controlError) Error() string { return e.body.Message }

func errorf(status int, code int32, format string, args ...any) *controlError {
	return &controlError{status: status, body: plantstoretest.ErrorBody{Code: code, Message: fmt.Sprintf(format, args...)}}
}

func badRequest(format string, args ...any) *controlError {
	return errorf(http.StatusBadRequest, CodeBadControlRequest, format, args...)
}

// readBody reads r's body, at most limit bytes of it, into a buffer that
// grows with what arrived, never twice past it. A limit of 0 takes no body,
// and refuses any.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, *controlError) {
	if r.Body == nil {
		return nil, nil
	}
	bound := limit
	if limit == 0 {
		bound = maxEmptyBody
	}
	body, err := wire.ReadBodyAtMost(nil, http.MaxBytesReader(w, r.Body, bound), bound)
	var tooLarge *http.MaxBytesError
	switch {
	case err != nil && !errors.As(err, &tooLarge):
		return nil, errorf(http.StatusBadRequest, plantstoretest.CodeInvalidJSON, "reading body: %v", err)
	case limit == 0 && (err != nil || len(body) > 0):
		return nil, badRequest("%s %s takes no body", r.Method, r.URL.Path)
	case err != nil:
		return nil, errorf(http.StatusRequestEntityTooLarge, plantstoretest.CodeTooLarge,
			"body is larger than %d bytes, the limit of %s %s", limit, r.Method, r.URL.Path)
	}
	return body, nil
}

// refused is the 400 for a fault or schedule the Handler refused with err,
// told as msg: [plantstoretest.CodeStoreFull] when its budget has no room,
// else [CodeBadControlRequest].
func refused(err error, msg string) *controlError {
	code := CodeBadControlRequest
	if errors.Is(err, plantstoretest.ErrStoreFull) {
		code = plantstoretest.CodeStoreFull
	}
	return errorf(http.StatusBadRequest, code, "%s", msg)
}

func invalidJSON(format string, args ...any) *controlError {
	return errorf(http.StatusBadRequest, plantstoretest.CodeInvalidJSON, format, args...)
}

// decodeStrict decodes body into v by strictjson's rule, which every body
// the module reads follows, with at most maxValues values. Every problem is
// a 400 with [plantstoretest.CodeInvalidJSON] and a message naming it.
func decodeStrict(body []byte, v any) *controlError {
	if err := strictjson.Decode(body, maxValues, v); err != nil {
		return invalidJSON("%v", err)
	}
	return nil
}

// writeJSON sends v, a plain struct that always marshals, as the JSON body
// of a reply with status, and returns status.
func writeJSON(w http.ResponseWriter, status int, v any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // A client that went away gets nothing either way.
	return status
}

// writeJSONArray sends the n values that at(i) gives as a JSON array on one
// line, and 200, which it returns. It encodes one at a time, so that a long
// array is never held twice.
func writeJSONArray(w http.ResponseWriter, n int, at func(i int) any) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	var elem bytes.Buffer
	enc := json.NewEncoder(&elem)
	enc.SetEscapeHTML(false)
	bw.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		elem.Reset()
		if err := enc.Encode(at(i)); err != nil {
			panic(fmt.Sprintf("mockserver: marshal %T: %v", at(i), err))
		}
		bw.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
	}
	bw.WriteString("]\n")
	_ = bw.Flush() // A client that went away gets nothing either way.
	return http.StatusOK
}

// writeError sends e as an ErrorBody, and returns its status.
func writeError(w http.ResponseWriter, e *controlError) int {
	if e.challenge != "" {
		w.Header().Set("WWW-Authenticate", e.challenge)
	}
	if e.allow != "" {
		w.Header().Set("Allow", e.allow)
	}
	return writeJSON(w, e.status, e.body)
}
