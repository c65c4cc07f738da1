package wire

import (
	"encoding/json"
	"strconv"
)

// ReadError reads an answer's body as the specification's Error, the one
// reading that the client, the fake's profile and the conformance kit
// share, so that the pair a conformance run prints is the pair the client
// matches. The body is an Error when it is a JSON object whose "error" is
// an integer that fits an int32: that is code, and message the "message"
// when it is a string (hasMessage). Whatever else the object holds, or
// lacks ("message" missing or null), is not asked. For a body that is not
// an Error (HTML, nothing, "error" a string), code is 0, as
// plantstore.WithAlreadyExists has it.
func ReadError(body []byte) (code int32, message string, hasMessage bool) {
	var doc struct {
		Code    json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return 0, "", false
	}
	n, err := strconv.ParseInt(string(doc.Code), 10, 32)
	if err != nil {
		return 0, "", false
	}
	hasMessage = len(doc.Message) > 0 && doc.Message[0] == '"' && json.Unmarshal(doc.Message, &message) == nil
	return int32(n), message, hasMessage
}
