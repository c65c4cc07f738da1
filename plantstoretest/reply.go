package plantstoretest

import (
	"encoding/json"
	"net/http"
)

// reply is a response worked out before it is written.
type reply struct {
	status     int
	result     any        // the 200 body, such as a *plantstore.Plant
	body       *ErrorBody // the body of any other status
	challenge  string     // the WWW-Authenticate value of a 401
	allow      string     // the Allow value of a 405
	retryAfter string     // the Retry-After value of a 429
	profiled   *profiled  // the reply WithProfile dictates instead, or nil
}

func badRequest(code int32, msg string) reply {
	return reply{status: http.StatusBadRequest, body: &ErrorBody{Code: code, Message: msg}}
}

// write sends rep, with extra headers added, and returns the status.
func (rep reply) write(w http.ResponseWriter, extra http.Header) int {
	if rep.profiled != nil {
		return rep.profiled.write(w, extra)
	}
	switch rep.status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", rep.challenge)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", rep.allow)
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", rep.retryAfter)
	}
	var v any = rep.body
	if rep.status == http.StatusOK {
		v = rep.result
	}
	b, err := json.Marshal(v)
	if err != nil {
		// The fake's bodies are its own types, which cannot fail to marshal.
		panic(err)
	}
	return writeRaw(w, rep.status, extra, b)
}

// writeRaw sends status, the headers in extra, and body, as JSON unless
// extra says otherwise, and returns status.
func writeRaw(w http.ResponseWriter, status int, extra http.Header, body []byte) int {
	for k, vs := range extra {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = w.Write(body) // A client that went away gets nothing either way.
	return status
}
