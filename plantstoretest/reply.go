package plantstoretest

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/memnet"
)

// reply is the fake's answer to a request, worked out before it is
// written: a plant created, or a refusal of a kind.
type reply struct {
	kind      kind
	status    int
	result    any                 // the body of a 200, such as a *plantstore.Plant
	body      *ErrorBody          // the body of a refusal
	raw       []byte              // the body of a scripted or profiled reply, sent as it is
	challenge string              // the WWW-Authenticate value of a 401
	allow     string              // the Allow value of a 405
	refused   plantstore.NewPlant // the plant a duplicateID refusal refused
	duplicate *Duplicate          // what a duplicateID refusal found stored
	profiled  *ProfileReply       // the profile's reply in its place (Profile.apply)
}

// kind names what a reply says, so that send can tell replies apart (a
// [Profile] replaces some) and the checks need not know.
type kind uint8

const (
	created kind = iota
	notFound
	methodNotAllowed
	authMissing   // no Authorization header
	authMalformed // not "Bearer <token>", or more than one header
	authInvalid   // a token other than the fake's
	malformed     // a 400 of the checks: content type, body size, JSON, plant
	ruleRefused   // a WithRule rule's own 400
	rulePanicked
	duplicateID
	storeFull
	scripted // a [Fault]'s Status, Header and Body
)

// statuses is the HTTP status of each kind; a scripted reply has its Fault's.
var statuses = [...]int{created: 200, notFound: 404, methodNotAllowed: 405,
	authMissing: 401, authMalformed: 401, authInvalid: 401, malformed: 400, ruleRefused: 400,
	rulePanicked: 500, duplicateID: 400, storeFull: 400}

// send writes rep, the reply to request seq that arrived at start, with
// extra headers, or in its place the profile's reply of its kind: the one
// place that applies the profile. The journal has the status before the
// reply goes out; send returns it, and the Duration.
func (h *Handler) send(w http.ResponseWriter, rep reply, extra http.Header, seq uint64, start time.Time) (int, time.Duration) {
	rep = h.cfg.profile.apply(rep)
	d := h.now().Sub(start)
	h.mu.Lock()
	h.journal.complete(seq, rep.status, d, rep.duplicate)
	h.mu.Unlock()
	if p := rep.profiled; p != nil {
		addHeaders(w, extra)
		w.Header()["Content-Type"] = nil // net/http would sniff one
		if p.ContentType != "" {
			w.Header().Set("Content-Type", p.ContentType)
		}
		if p.Challenge != "" {
			w.Header().Set("WWW-Authenticate", p.Challenge)
		}
		setLength(w, rep.status, len(rep.raw))
		w.WriteHeader(rep.status)
		_, _ = w.Write(rep.raw)
		return rep.status, d
	}
	if rep.kind == scripted {
		return writeRaw(w, rep.status, extra, rep.raw), d
	}
	switch rep.status {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", rep.challenge)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", rep.allow)
	}
	var v any = rep.body
	if rep.status == http.StatusOK {
		v = rep.result
	}
	b, _ := json.Marshal(v) // the fake's own types cannot fail
	return writeRaw(w, rep.status, extra, b), d
}

// writeRaw sends status, extra headers and body, as JSON unless extra says
// otherwise, and returns status.
func writeRaw(w http.ResponseWriter, status int, extra http.Header, body []byte) int {
	addHeaders(w, extra)
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	setLength(w, status, len(body))
	w.WriteHeader(status)
	_, _ = w.Write(body) // A client that went away gets nothing either way.
	return status
}

// setLength sets the Content-Length of a reply of n bytes, unless extra
// headers set one or status takes no body, so that [delivered] can flush
// it without its being sent chunked.
func setLength(w http.ResponseWriter, status, n int) {
	if _, set := w.Header()["Content-Length"]; !set && status != http.StatusNoContent && status != http.StatusNotModified {
		w.Header().Set("Content-Length", strconv.Itoa(n))
	}
}

// delivered reports whether the reply written to w for r reached the
// connection. Over HTTP/1 it flushes the reply, which fails once the
// server's write timeout has passed (a held reply) or the connection has
// gone; over HTTP/2 either resets the stream, which ends r's context. A
// ResponseWriter that cannot flush is taken at its word, and so is the
// in-memory network, which has no write timeout: its net.Pipe would hold
// the flush until the client reads, and the handler with it.
func delivered(w http.ResponseWriter, r *http.Request) bool {
	if r.ProtoMajor >= 2 {
		return r.Context().Err() == nil
	}
	if r.RemoteAddr == memnet.ClientAddr {
		return true
	}
	err := http.NewResponseController(w).Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}

// addHeaders adds the values of extra to w's headers.
func addHeaders(w http.ResponseWriter, extra http.Header) {
	for k, vs := range extra {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
}
