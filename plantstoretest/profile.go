package plantstoretest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/strictjson"
	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/traffic"
)

// Profile makes the fake answer like a given deployment where the
// specification leaves the answer open: a repeated id, and missing,
// malformed and wrong credentials. The conformance kit (package
// plantstoretest/conformance, or plantstore-mock conformance) writes one
// from a deployment; [WithProfile] and plantstore-mock -profile give it to
// the fake. A nil field keeps the fake's own reply. Its JSON, which
// [ParseProfile] reads:
//
//	{
//	  "source": "https://plants.example.com",
//	  "duplicate_id": {"status": 409, "content_type": "application/json",
//	                   "body": "{\"error\":1009,\"message\":\"id {id} is taken\"}"},
//	  "auth_missing": {"status": 401, "content_type": "application/json",
//	                   "body": "{\"error\":401,\"message\":\"unauthorized\"}",
//	                   "challenge": "Bearer"}
//	}
//
// A profile changes replies only: the checks and their order stay the
// fake's, and [Request.Invalid] keeps the fake's [ErrorBody]. Source, and a
// reply's ContentType and Challenge, hold at most 1 KiB; a Body 16 KiB. A
// DuplicateID reply with its placeholders put in holds at most 16 KiB plus
// twice the length of the id and of the escaped name, and never over 1
// MiB, so what it holds follows the bytes received; a repeated create whose
// reply would be longer gets the fake's own (400, [CodeDuplicateID]), whose
// message says so.
type Profile struct {
	// Source says where the profile was observed, for people.
	Source string `json:"source,omitempty"`
	// DuplicateID is the reply to a create whose id is stored. Its body may
	// hold [IDPlaceholder] and [NamePlaceholder], for the id and the name sent
	// (escaped as in a JSON string).
	DuplicateID *ProfileReply `json:"duplicate_id,omitempty"`
	// AuthMissing is the reply to a request without an Authorization
	// header.
	AuthMissing *ProfileReply `json:"auth_missing,omitempty"`
	// AuthMalformed is the reply to an Authorization header that is not
	// "Bearer <token>", or to more than one.
	AuthMalformed *ProfileReply `json:"auth_malformed,omitempty"`
	// AuthInvalid is the reply to a bearer token other than the fake's.
	AuthInvalid *ProfileReply `json:"auth_invalid,omitempty"`

	// Traffic, if not nil, makes the fake answer with a deployment's recorded
	// mix (package traffic), deterministic for [WithChaosSeed]'s seed, as
	// TRAFFIC.md, beside this package, details: a request no other source
	// took (see [Fault]) fails at the recorded rates, in runs of the recorded
	// mean length, after a latency drawn from its outcome's histogram; 4xx
	// are not replayed.
	Traffic *traffic.Recording `json:"traffic,omitempty"`
}

// ProfileReply is one reply of a [Profile], sent exactly as given.
type ProfileReply struct {
	// Status is the HTTP status, 400 to 499: a profile says how a request is
	// refused.
	Status int `json:"status"`
	// ContentType is the Content-Type header; "" sends none.
	ContentType string `json:"content_type,omitempty"`
	// Body is sent as it is: any UTF-8 text, JSON or not.
	Body string `json:"body"`
	// Challenge is the WWW-Authenticate header; "" sends none.
	Challenge string `json:"challenge,omitempty"`
}

// The bounds of a [Profile], in bytes, as its doc states.
const (
	maxProfileBody  = 16 << 10
	maxProfileField = 1 << 10
	maxProfileReply = maxBodyBytes
)

// MaxProfileSize bounds the JSON [ParseProfile] reads, as
// traffic.MaxDocumentSize bounds a recording: any profile [Profile.Check]
// accepts loads again however encoding/json escapes it.
const MaxProfileSize = traffic.MaxDocumentSize

// IDPlaceholder and NamePlaceholder stand in a [Profile]'s DuplicateID body
// where the deployment's reply held the id and the name sent.
const (
	IDPlaceholder   = "{id}"
	NamePlaceholder = "{name}"
)

// WithProfile makes the fake answer as p says; a p that [Profile.Check]
// refuses is an invalid [Option]. p is copied.
func WithProfile(p Profile) Option {
	p = p.clone()
	return func(c *config) { c.profile = &p }
}

// clone returns a copy of p that shares no reply or traffic with it.
func (p Profile) clone() Profile {
	for _, r := range p.replies() {
		*r.reply = copyOf(*r.reply)
	}
	if t := p.Traffic; t != nil {
		c := *t
		c.Outcomes = append([]traffic.Outcome(nil), t.Outcomes...)
		for i := range c.Outcomes {
			o := &c.Outcomes[i]
			o.Latency = append([]traffic.Bucket(nil), o.Latency...)
			o.RetryAfter = append([]traffic.RetryAfter(nil), o.RetryAfter...)
			for j := range o.RetryAfter {
				o.RetryAfter[j].Seconds = copyOf(o.RetryAfter[j].Seconds)
			}
			o.Code = copyOf(o.Code)
		}
		c.FailureRuns.Lengths = append([]traffic.RunLength(nil), t.FailureRuns.Lengths...)
		c.AfterBreaks = copyOf(t.AfterBreaks)
		p.Traffic = &c
	}
	return p
}

// copyOf returns a pointer to a copy of *p, or nil.
func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// ParseProfile decodes a [Profile] from JSON as strictly as every body the
// module reads: a document over [MaxProfileSize] bytes or of more than
// traffic.MaxDocumentValues JSON values, anything but one JSON object in
// UTF-8, an unknown or repeated field (names match exactly), and a reply
// [Profile.Check] refuses are errors that name the field or the byte
// offset at fault.
func ParseProfile(data []byte) (Profile, error) {
	var p Profile
	if len(data) > MaxProfileSize {
		return p, fmt.Errorf("plantstoretest: profile is %d bytes, more than the %d allowed", len(data), MaxProfileSize)
	}
	if err := strictjson.Decode(data, traffic.MaxDocumentValues, &p); err != nil {
		return Profile{}, fmt.Errorf("plantstoretest: profile: %v", err)
	}
	if err := p.Check(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// Check reports what makes p unusable, or nil: a status outside 400 to
// 499, text over its bound or not UTF-8, a header value with a control
// character, traffic that (*traffic.Recording).Check refuses.
func (p *Profile) Check() error {
	if p.Traffic != nil {
		if err := p.Traffic.Check(); err != nil {
			return fmt.Errorf("plantstoretest: profile: %w", err)
		}
	}
	if err := checkText("source", p.Source, maxProfileField, false); err != nil {
		return fmt.Errorf("plantstoretest: profile: %v", err)
	}
	for _, r := range p.replies() {
		if *r.reply == nil {
			continue
		}
		if err := (*r.reply).check(); err != nil {
			return fmt.Errorf("plantstoretest: profile: %s: %v", r.name, err)
		}
	}
	return nil
}

// namedReply is a reply field of a Profile, its JSON name and the kind of
// reply it replaces.
type namedReply struct {
	name  string
	kind  kind
	reply **ProfileReply
}

// replies returns p's reply fields, in order.
func (p *Profile) replies() [4]namedReply {
	return [...]namedReply{{"duplicate_id", duplicateID, &p.DuplicateID}, {"auth_missing", authMissing, &p.AuthMissing},
		{"auth_malformed", authMalformed, &p.AuthMalformed}, {"auth_invalid", authInvalid, &p.AuthInvalid}}
}

// check reports what makes r unusable, as [Profile.Check] lists it.
func (r *ProfileReply) check() error {
	if r.Status < 400 || r.Status > 499 {
		return fmt.Errorf("status %d: want 400 to 499", r.Status)
	}
	return cmp.Or(checkText("content_type", r.ContentType, maxProfileField, true),
		checkText("body", r.Body, maxProfileBody, false),
		checkText("challenge", r.Challenge, maxProfileField, true))
}

// checkText reports the text s of the field name if it is over limit bytes,
// not UTF-8, or, in a header, holds a control character.
func checkText(name, s string, limit int, header bool) error {
	switch {
	case len(s) > limit:
		return fmt.Errorf("%s is %d bytes, more than the %d allowed", name, len(s), limit)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not UTF-8", name)
	case header && wire.HeaderValueControl(s) >= 0:
		return fmt.Errorf("%s holds a control character", name)
	}
	return nil
}

// DuplicateIDError returns the status and "error" code with which the
// profiled deployment refuses a repeated id, for plantstore.WithAlreadyExists:
// the code is 0 for a body that is not an Error (HTML, nothing), as the
// client reads it; ok is false without a DuplicateID, or for a nil p.
func (p *Profile) DuplicateIDError() (status int, code int32, ok bool) {
	if p == nil || p.DuplicateID == nil {
		return 0, 0, false
	}
	// Read as the client reads an answer: with a plant put in for the
	// placeholders, which may stand where JSON needs a value ({"id":{id}}).
	body, _ := expand(p.DuplicateID.Body, &plantstore.NewPlant{ID: 1, Name: "x"})
	code, _, _ = wire.ReadError([]byte(body))
	return p.DuplicateID.Status, code, true
}

// expand returns body, a DuplicateID body, with p's id and name put in for
// its placeholders, or an error if the reply would be over the bound
// [Profile] states. It works the length out first, so memory follows the
// bytes received.
func expand(body string, p *plantstore.NewPlant) (string, error) {
	id := strconv.FormatInt(p.ID, 10)
	ids := int64(strings.Count(body, IDPlaceholder))
	names := int64(strings.Count(body, NamePlaceholder))
	base := int64(len(body)) + ids*int64(len(id)-len(IDPlaceholder)) - names*int64(len(NamePlaceholder))
	var escaped int64
	if names > 0 {
		escapeName(p.Name, func(b []byte) { escaped += int64(len(b)) })
	}
	n, limit := base+names*escaped, min(maxProfileReply, maxProfileBody+2*(int64(len(id))+escaped))
	if n > limit {
		return "", fmt.Errorf("the profile's duplicate_id reply, with the id and name put in, would be %d bytes or more, "+
			"over the %d it may hold (16 KiB and twice the id and name, at most 1 MiB)", n, limit)
	}
	var b strings.Builder // built once, to its length: no copy of the name, no growing
	b.Grow(int(n))
	for {
		i := strings.IndexByte(body, '{')
		if i < 0 {
			b.WriteString(body)
			return b.String(), nil
		}
		b.WriteString(body[:i])
		body = body[i:]
		switch {
		case strings.HasPrefix(body, IDPlaceholder):
			b.WriteString(id)
			body = body[len(IDPlaceholder):]
		case strings.HasPrefix(body, NamePlaceholder):
			escapeName(p.Name, func(e []byte) { b.Write(e) })
			body = body[len(NamePlaceholder):]
		default:
			b.WriteByte('{')
			body = body[1:]
		}
	}
}

// escapeName passes name to emit escaped as encoding/json does, without
// quotes, in pieces of a few KiB cut where a character starts, so escaping
// holds no copy of a long name.
func escapeName(name string, emit func([]byte)) {
	const piece = 4 << 10
	for name != "" {
		n := min(len(name), piece)
		for n > 0 && n < len(name) && !utf8.RuneStart(name[n]) {
			n--
		}
		if n == 0 { // no character starts in the piece: not UTF-8 anyway
			n = piece
		}
		q, _ := json.Marshal(name[:n]) // a string cannot fail
		emit(q[1 : len(q)-1])
		name = name[n:]
	}
}

// apply returns rep, or in its place p's reply of rep's kind, with the
// placeholders put in for a duplicate id; a nil p has none.
func (p *Profile) apply(rep reply) reply {
	if p == nil {
		return rep
	}
	var r *ProfileReply
	for _, f := range p.replies() {
		if f.kind == rep.kind {
			r = *f.reply
		}
	}
	if r == nil {
		return rep
	}
	body := r.Body
	if rep.kind == duplicateID {
		var err error
		if body, err = expand(r.Body, &rep.refused); err != nil {
			rep.body = &ErrorBody{Code: rep.body.Code, Message: rep.body.Message + "; " + err.Error()}
			return rep
		}
	}
	rep.status, rep.profiled, rep.raw = r.Status, r, []byte(body)
	return rep
}
