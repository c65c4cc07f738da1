package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/plantstore/plantstore-go/internal/plural"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// check is one check of the kit.
type check struct {
	id           string
	tag          Tag
	title        string
	needsControl bool
	search       bool // a limit search (runner.search), which asks each probe again itself
	run          func(c *CheckResult)
}

// sent is a create a check sent and its answer, which later checks read.
type sent struct {
	e *Exchange
	p storedPlant
}

// keep sets *to to s unless s is nil: an ask of a check that sent nothing
// (the run's creates used up) leaves what an earlier ask sent.
func keep(to **sent, s *sent) {
	if s != nil {
		*to = s
	}
}

// checks returns the checks of r's run, in the order they run. A check that
// reads what an earlier one sent is handed it, nil if that one sent nothing.
func (r *runner) checks() []check {
	var created, untagged, noAuth, basicAuth, wrongToken *sent
	codes := map[string]*Exchange{} // the invalid bodies' answers, by check, for error-codes
	return []check{
		// What a valid create gets.
		{id: "create", tag: Spec, title: "a valid NewPlant with a tag is answered 200 with a Plant: the name sent, no id", run: func(c *CheckResult) { keep(&created, r.checkCreate(c, "create", "conformance")) }},
		{id: "create-without-tag", tag: Spec, title: "a NewPlant without tag is answered 200 with a Plant", run: func(c *CheckResult) { keep(&untagged, r.checkCreate(c, "no-tag", "")) }},
		{id: "tag-echo", tag: Observed, title: "whether the 200 body echoes the tag sent", run: func(c *CheckResult) { observeTagEcho(c, created) }},
		{id: "tag-omitted", tag: Observed, title: "the 200 body of a create without a tag", run: func(c *CheckResult) { observeSent(c, "create-without-tag", untagged) }},
		{id: "response-content-type", tag: Observed, title: "the exact Content-Type of a 200 and of a 400", run: func(c *CheckResult) { r.observeContentTypes(c, created) }},
		{id: "duplicate-id", tag: Observed, title: "the answer to a create whose id is already stored", run: func(c *CheckResult) { r.observeDuplicate(c, created) }},

		// Authentication.
		{id: "auth-required", tag: Spec, title: "a create without Authorization is refused", run: func(c *CheckResult) { keep(&noAuth, r.specAuth(c, "auth-missing", nil)) }},
		{id: "auth-bearer-scheme", tag: Spec, title: "a create with another scheme (Basic) is refused", run: func(c *CheckResult) {
			keep(&basicAuth, r.specAuth(c, "auth-wrong-scheme", []string{"Basic Y29uZm9ybWFuY2U6a2l0"}))
		}},
		{id: "auth-token-checked", tag: Spec, title: "a create with a wrong bearer token is refused", run: func(c *CheckResult) {
			keep(&wrongToken, r.specAuth(c, "auth-wrong-token", []string{"Bearer conformance-wrong-token"}))
		}},
		{id: "auth-missing", tag: Observed, title: "the answer to a create without Authorization", run: func(c *CheckResult) { observeSent(c, "auth-required", noAuth) }},
		{id: "auth-wrong-scheme", tag: Observed, title: "the answer to a create with Basic credentials", run: func(c *CheckResult) { observeSent(c, "auth-bearer-scheme", basicAuth) }},
		{id: "auth-wrong-token", tag: Observed, title: "the answer to a create with a wrong bearer token", run: func(c *CheckResult) { observeSent(c, "auth-token-checked", wrongToken) }},
		{id: "auth-scheme-case", tag: Observed, title: `whether "bearer" in lower case is accepted (RFC 7235 says it should be)`, run: r.observeVariant(nil, func(h http.Header) { h.Set("Authorization", "bearer "+r.s.token) })},

		// Bodies the specification makes invalid: 400 with an Error.
		{id: "missing-name", tag: Spec, title: "a NewPlant without name is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte { return plantJSON("id", itoa(p.id)) })},
		{id: "missing-id", tag: Spec, title: "a NewPlant without id is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte { return plantJSON("name", quote(p.name)) })},
		{id: "null-name", tag: Spec, title: "a NewPlant whose name is null is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte { return plantJSON("id", itoa(p.id), "name", "null") })},
		{id: "name-not-string", tag: Spec, title: "a NewPlant whose name is a number is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte { return plantJSON("id", itoa(p.id), "name", "42") })},
		{id: "id-not-integer", tag: Spec, title: "a NewPlant whose id is 1.5 (not an integer) is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte {
			return plantJSON("id", itoa(p.id)+".5", "name", quote(p.name))
		})},
		{id: "id-out-of-range", tag: Spec, title: "a NewPlant whose id is past int64 is answered 400 with an Error", run: r.specInvalid(codes, func(p storedPlant) []byte {
			return plantJSON("id", "9223372036854775808", "name", quote(p.name))
		})},
		{id: "empty-object", tag: Spec, title: "an empty JSON object is answered 400 with an Error", run: r.specInvalid(codes, func(storedPlant) []byte { return []byte("{}") })},
		{id: "not-an-object", tag: Spec, title: "a JSON array is answered 400 with an Error", run: r.specInvalid(codes, func(storedPlant) []byte { return []byte("[]") })},
		{id: "invalid-json", tag: Spec, title: "a body that is not JSON is answered 400 with an Error", run: r.specInvalid(codes, func(storedPlant) []byte { return []byte(`{"id":`) })},
		{id: "empty-body", tag: Spec, title: "an empty body is answered 400 with an Error", run: r.specInvalid(codes, func(storedPlant) []byte { return []byte{} })},
		{id: "error-codes", tag: Observed, title: `the "error" code of each 400 above`, run: func(c *CheckResult) { observeErrorCodes(c, codes) }},

		// What the specification leaves open about bodies.
		{id: "unknown-field", tag: Observed, title: "the answer to a NewPlant with a field the specification does not name", run: r.observeVariant(func(p storedPlant) []byte {
			return plantJSON("id", itoa(p.id), "name", quote(p.name), "colour", `"green"`)
		}, nil)},
		{id: "id-as-string", tag: Observed, title: `the answer to an id sent as a string ("123")`, run: r.observeVariant(func(p storedPlant) []byte {
			return plantJSON("id", quote(itoa(p.id)), "name", quote(p.name))
		}, nil)},
		{id: "id-as-float", tag: Observed, title: "the answer to an integral id written as a float (123.0)", run: r.observeVariant(func(p storedPlant) []byte {
			return plantJSON("id", itoa(p.id)+".0", "name", quote(p.name))
		}, nil)},
		{id: "empty-name", tag: Observed, title: `the answer to a name that is ""`, run: r.observeVariant(func(p storedPlant) []byte {
			return plantJSON("id", itoa(p.id), "name", `""`)
		}, nil)},
		{id: "tag-null", tag: Observed, title: "the answer to a tag that is null", run: r.observeVariant(func(p storedPlant) []byte {
			return plantJSON("id", itoa(p.id), "name", quote(p.name), "tag", "null")
		}, nil)},
		{id: "content-type-missing", tag: Observed, title: "the answer to a valid NewPlant without Content-Type", run: r.observeVariant(nil, func(h http.Header) { h.Del("Content-Type") })},
		{id: "content-type-text-plain", tag: Observed, title: "the answer to a valid NewPlant sent as text/plain", run: r.observeVariant(nil, func(h http.Header) { h.Set("Content-Type", "text/plain") })},
		{id: "content-type-charset", tag: Observed, title: "the answer to a valid NewPlant sent as application/json; charset=utf-8", run: r.observeVariant(nil, func(h http.Header) { h.Set("Content-Type", "application/json; charset=utf-8") })},
		{id: "not-found", tag: Observed, title: "the answer to POST /plants/conformance, a path the API does not have", run: r.observeNotFound},
		{id: "method-not-allowed", tag: Observed, title: "the answer to GET /plants", run: r.observeMethod},

		// Limits, searched with a bounded number of creates.
		{id: "longest-name", tag: Observed, title: "the longest name accepted, searched up to 1 MiB", search: true, run: r.observeLongestName},
		{id: "largest-body", tag: Observed, title: "the largest body accepted (padded with spaces), searched up to 1 MiB", search: true, run: r.observeLargestBody},

		// Only with a control API: what a real deployment cannot show without load.
		{id: "retry-after-429", tag: Observed, title: "a 429 scripted through the control API, and its Retry-After", needsControl: true, run: r.observeScripted(429)},
		{id: "retry-after-503", tag: Observed, title: "a 503 scripted through the control API, and its Retry-After", needsControl: true, run: r.observeScripted(503)},
		// Every 400 of the run, observed checks' included: the specification
		// gives each an Error body.
		{id: "error-shape", tag: Spec, title: "every 400 the run got, to any check, has an Error body: an int32 error and a string message", run: r.specErrorShape},
		{id: "control-stored", tag: Spec, title: "the control API lists every plant answered 200 as sent, and none refused", needsControl: true, run: r.specStored},
	}
}

// fail marks c failed, adding the problem to those already found.
func fail(c *CheckResult, format string, args ...any) {
	c.Outcome = Fail
	msg := fmt.Sprintf(format, args...)
	if c.Problem != "" {
		msg = c.Problem + "; " + msg
	}
	c.Problem = msg
}

// skip marks c skipped, for the reason given.
func skip(c *CheckResult, format string, args ...any) {
	c.Outcome = Skipped
	c.Problem = fmt.Sprintf(format, args...)
}

// noResponse fails c if e got no response, and reports whether it did.
func noResponse(c *CheckResult, e *Exchange) bool {
	if e.Status == 0 {
		fail(c, "no response: %s", e.Error)
		return true
	}
	return false
}

// decodeObject decodes body as one JSON object, numbers kept as text.
func decodeObject(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("null, not an object")
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the object")
	}
	return m, nil
}

// jsonObject returns e's body, which must be one JSON object sent as
// application/json, failing c where it is not; nil if it is no object.
func jsonObject(c *CheckResult, e *Exchange) map[string]any {
	ct := e.ResponseHeader["Content-Type"]
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		fail(c, "Content-Type %q, want application/json", ct)
	}
	m, err := decodeObject(e.body)
	if err != nil {
		fail(c, "the body is not a JSON object: %v", err)
	}
	return m
}

// wantPlant checks that e is a 200 with a Plant body for p.
func wantPlant(c *CheckResult, e *Exchange, p storedPlant) {
	if noResponse(c, e) {
		return
	}
	if e.Status != http.StatusOK {
		fail(c, "status %d, want 200", e.Status)
		return
	}
	m := jsonObject(c, e)
	if m == nil {
		return
	}
	if _, ok := m["id"]; ok {
		fail(c, `the body has an "id"; a Plant has none`)
	}
	switch name, ok := m["name"].(string); {
	case !ok:
		fail(c, `"name" is %v, want the string sent`, m["name"])
	case name != p.name:
		fail(c, `"name" is %q, want %q as sent`, name, p.name)
	}
	if tag, ok := m["tag"]; ok {
		if _, isString := tag.(string); !isString {
			fail(c, `"tag" is %v, want a string`, tag)
		}
	}
}

// wantError checks that e's body is an Error, sent as JSON.
func wantError(c *CheckResult, e *Exchange) {
	m := jsonObject(c, e)
	if m == nil {
		return
	}
	code, _ := m["error"].(json.Number)
	if _, err := strconv.ParseInt(code.String(), 10, 32); err != nil {
		fail(c, `"error" is %v, want an int32`, m["error"])
	}
	if _, ok := m["message"].(string); !ok {
		fail(c, `"message" is %v, want a string`, m["message"])
	}
}

// checkCreate checks that a valid NewPlant named name, with tag unless it
// is "", is answered 200 with a Plant.
func (r *runner) checkCreate(c *CheckResult, name, tag string) *sent {
	p := storedPlant{id: r.id(), name: r.name(name), tag: tag}
	fields := []string{"id", itoa(p.id), "name", quote(p.name)}
	if tag != "" {
		fields = append(fields, "tag", quote(tag))
	}
	e := r.create(c, r.headers(), plantJSON(fields...), p)
	if e == nil {
		return nil
	}
	wantPlant(c, e, p)
	return &sent{e, p}
}

// need reports whether s, what the check named check sent, is there, and
// marks c skipped if not.
func need(c *CheckResult, check string, s *sent) bool {
	if s == nil {
		skip(c, "check %s did not run", check)
	}
	return s != nil
}

// observeSent records the answer to s, what the check named check sent.
func observeSent(c *CheckResult, check string, s *sent) {
	if need(c, check, s) {
		c.Answer = answer(s.e, s.p)
	}
}

func observeTagEcho(c *CheckResult, created *sent) {
	if !need(c, "create", created) {
		return
	}
	e := created.e
	echo := "no response"
	if e.Status != 0 {
		echo = "not a JSON object"
		if m, err := decodeObject(e.body); err == nil {
			switch tag, ok := m["tag"]; {
			case !ok:
				echo = "absent"
			case tag == created.p.tag:
				echo = "echoed"
			default:
				echo = fmt.Sprintf("changed to %v", tag)
			}
		}
	}
	c.Answer = map[string]string{"status": strconv.Itoa(e.Status), "tag": echo}
}

func (r *runner) observeContentTypes(c *CheckResult, created *sent) {
	if !need(c, "create", created) {
		return
	}
	bad := r.create(c, r.headers(), []byte("{}"), storedPlant{id: r.id()})
	if bad == nil {
		return
	}
	c.Answer = map[string]string{
		"200":                    created.e.ResponseHeader["Content-Type"],
		strconv.Itoa(bad.Status): bad.ResponseHeader["Content-Type"],
	}
}

func (r *runner) observeDuplicate(c *CheckResult, created *sent) {
	if !need(c, "create", created) {
		return
	}
	if created.e.Status != http.StatusOK {
		skip(c, "check create got %d, not 200, so no plant is stored to repeat", created.e.Status)
		return
	}
	dup := created.p
	dup.name = r.name("duplicate")
	if d := r.create(c, r.headers(), plantJSON("id", itoa(dup.id), "name", quote(dup.name), "tag", quote(dup.tag)), dup); d != nil {
		c.Answer = answer(d, dup)
	}
}

// specAuth checks that a valid create named name, with the given
// Authorization values (none for nil), is refused.
func (r *runner) specAuth(c *CheckResult, name string, authorization []string) *sent {
	p := storedPlant{id: r.id(), name: r.name(name)}
	h := r.headers()
	if authorization == nil {
		h.Del("Authorization")
	} else {
		h["Authorization"] = authorization
	}
	e := r.create(c, h, plantJSON("id", itoa(p.id), "name", quote(p.name)), p)
	if e == nil {
		return nil
	}
	if !noResponse(c, e) && e.Status >= 200 && e.Status <= 299 {
		fail(c, "status %d: the create was accepted, and may have stored a plant", e.Status)
	}
	return &sent{e, p}
}

// specInvalid checks that the body body builds is answered 400 with an
// Error, and keeps the answer in codes, by check, for error-codes.
func (r *runner) specInvalid(codes map[string]*Exchange, body func(storedPlant) []byte) func(*CheckResult) {
	return func(c *CheckResult) {
		p := storedPlant{id: r.id(), name: r.name(c.ID)}
		e := r.create(c, r.headers(), body(p), p)
		if e == nil {
			return
		}
		codes[c.ID] = e
		switch {
		case noResponse(c, e):
		case e.Status != http.StatusBadRequest:
			fail(c, "status %d, want 400", e.Status)
		default:
			wantError(c, e)
		}
	}
}

// specErrorShape checks the body of every 400 the target gave the run's
// requests to the API, whichever check sent them: the specification gives
// every 400 an Error body. A body cut at maxResponseBody is not judged.
func (r *runner) specErrorShape(c *CheckResult) {
	for _, a := range r.answered400 {
		if a.e.Error != "" {
			continue
		}
		var one CheckResult
		wantError(&one, a.e)
		if one.Outcome == Fail {
			fail(c, "the 400 to check %s: %s", a.check, one.Problem)
			c.Exchanges = append(c.Exchanges, a.e)
		}
	}
	if len(r.answered400) == 0 {
		skip(c, "the target answered no request of the run with 400")
	}
}

// observeErrorCodes records the "error" code of each answer in codes, or
// its status where it has none.
func observeErrorCodes(c *CheckResult, codes map[string]*Exchange) {
	c.Answer = map[string]string{}
	for id, e := range codes {
		v := "status " + strconv.Itoa(e.Status)
		if m, err := decodeObject(e.body); err == nil {
			if code, ok := m["error"].(json.Number); ok {
				v = code.String()
			}
		}
		c.Answer[id] = v
	}
}

// observeVariant records the answer to a create changed by body (nil: a
// valid NewPlant) and header (nil: the usual headers).
func (r *runner) observeVariant(body func(storedPlant) []byte, header func(http.Header)) func(*CheckResult) {
	return func(c *CheckResult) {
		p := storedPlant{id: r.id(), name: r.name(c.ID)}
		h := r.headers()
		if header != nil {
			header(h)
		}
		b := plantJSON("id", itoa(p.id), "name", quote(p.name))
		if body != nil {
			b = body(p)
		}
		if e := r.create(c, h, b, p); e != nil {
			c.Answer = answer(e, p)
		}
	}
}

func (r *runner) observeNotFound(c *CheckResult) {
	p := storedPlant{id: r.id(), name: r.name("not-found")}
	if e := r.createAt(c, "/plants/conformance", r.headers(), plantJSON("id", itoa(p.id), "name", quote(p.name)), p); e != nil {
		c.Answer = answer(e, p)
	}
}

func (r *runner) observeMethod(c *CheckResult) {
	h := r.headers()
	h.Del("Content-Type")
	c.Answer = answer(r.send(c, http.MethodGet, "/plants", h, nil), storedPlant{})
}

// maxAcceptedProbes bounds the accepted probes of each limit search, which
// each store a plant.
const maxAcceptedProbes = 2

// probeSizes are the sizes a limit search tries first, largest first. The
// largest is just over 1 MiB: the kit sends no larger body.
var probeSizes = []int{1<<20 + 1<<10, 1 << 18, 1 << 16, 1 << 14, 1 << 12, 1 << 10, 1 << 8, 1 << 6}

// search finds the largest size the target accepts: it tries probeSizes
// from the largest until one is accepted, then halves the gap between the
// largest accepted and the smallest refused, while it may create. Refused
// probes cost no create; each probe is asked as [CheckResult.Asked] says.
// It records what it found in c; "short" in the answer says the run's
// creates ran out first, and the answer is then a bracket that the fake's
// need only fall in (see [Report.compareWith]).
func (r *runner) search(c *CheckResult, probe func(size int, p storedPlant) (body []byte, actual int)) {
	accepted, refused := -1, -1
	var refusal *Exchange
	var refusalPlant storedPlant
	acceptedProbes := 0
	short := false // the run's creates ran out before the search ended
	try := func(size int) (ok, stop bool) {
		for asked := 1; ; asked++ {
			if acceptedProbes >= maxAcceptedProbes {
				return false, true
			}
			if r.used >= r.s.maxCreates {
				short = true
				return false, true
			}
			p := storedPlant{id: r.id()}
			body, actual := probe(size, p)
			p.name = "" // the name is the probe's padding; it is not in any answer
			e := r.create(c, r.headers(), body, p)
			switch {
			case e.Status >= 200 && e.Status <= 299:
				acceptedProbes++
				accepted = actual
				return true, false
			case e.Status >= 400 && e.Status <= 499 && e.Status != http.StatusTooManyRequests:
				refused, refusal, refusalPlant = actual, e, p
				return false, false
			case r.askAgain(asked, transient(e)):
				c.Asked = max(c.Asked, asked+1)
				continue
			}
			refusal, refusalPlant = e, p // a 5xx, a 429 or no answer, to the last ask: stop, and say so
			return false, true
		}
	}
	lo, hi := 0, 0
	for _, size := range probeSizes {
		ok, stop := try(size)
		if stop {
			break
		}
		if ok {
			lo, hi = size, refused
			break
		}
	}
	for steps := 0; accepted >= 0 && refused >= 0 && steps < 8 && hi-lo > 1; steps++ {
		mid := lo + (hi-lo)/2
		ok, stop := try(mid)
		if stop {
			break
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	if len(c.Exchanges) == 0 {
		skip(c, "the run had used up its %s (Target.MaxCreates, -max-creates) before the search could send a probe", plural.Count(r.s.maxCreates, "create"))
		return
	}
	c.Answer = map[string]string{"accepted": "none", "refused": "none"}
	if accepted >= 0 {
		c.Answer["accepted"] = strconv.Itoa(accepted)
	}
	if refused >= 0 {
		c.Answer["refused"] = strconv.Itoa(refused)
	}
	if refusal != nil {
		a := answer(refusal, refusalPlant)
		c.Answer["refusal"] = a["status"] + " " + a["body"]
	}
	if short {
		c.Answer["short"] = "the run's " + plural.Count(r.s.maxCreates, "create") + " ran out"
	}
	// Keep the report small: the probes' bodies are large and alike.
	if len(c.Exchanges) > 3 {
		c.Exchanges = c.Exchanges[len(c.Exchanges)-3:]
	}
}

func (r *runner) observeLongestName(c *CheckResult) {
	r.search(c, func(size int, p storedPlant) ([]byte, int) {
		name := r.name("")
		b := plantJSON("id", itoa(p.id), "name", quote(name))
		// No body over the largest probe size: the name gives way.
		size = min(size, probeSizes[0]-len(b)+len(name))
		if pad := size - len(name); pad > 0 {
			// The padding goes inside the name's closing quote, before
			// the `"}` that end b: an 'n' is quoted as itself, and a MiB
			// of it is not worth quoting.
			padded := make([]byte, 0, len(b)+pad)
			padded = append(padded, b[:len(b)-2]...)
			padded = append(padded, bytes.Repeat([]byte{'n'}, pad)...)
			return append(padded, b[len(b)-2:]...), size
		}
		return b, len(name)
	})
}

func (r *runner) observeLargestBody(c *CheckResult) {
	r.search(c, func(size int, p storedPlant) ([]byte, int) {
		b := plantJSON("id", itoa(p.id), "name", quote(r.name("large-body")))
		if size > len(b) {
			b = append(b, bytes.Repeat([]byte{' '}, size-len(b))...)
		}
		return b, len(b)
	})
}

// control sends a request to the target's control API.
func (r *runner) control(c *CheckResult, method, path string, body []byte, limit int) *Exchange {
	h := http.Header{}
	if body != nil {
		h.Set("Content-Type", "application/json")
	}
	if r.s.control.AdminToken != "" {
		h.Set("Authorization", "Bearer "+r.s.control.AdminToken)
	}
	e := do(r.ctx, r.s.client, r.s.secrets, method, r.s.control.URL+path, h, body, limit)
	c.Exchanges = append(c.Exchanges, e)
	return e
}

// observeScripted scripts one reply with status through the control API,
// with a Retry-After of 1, and records what arrives. The request it
// answers is an empty object; answered with the scripted status, it counts
// as no create, since a fault without Store stores nothing.
func (r *runner) observeScripted(status int) func(*CheckResult) {
	return func(c *CheckResult) {
		if r.s.fake != nil {
			if _, err := r.s.fake.AddFault(plantstoretest.Fault{Status: status, Header: http.Header{"Retry-After": {"1"}}}); err != nil {
				skip(c, "Target.Fake did not take the fault: %v", err)
				return
			}
		} else {
			f := r.control(c, http.MethodPost, "/faults", []byte(fmt.Sprintf(`{"status":%d,"headers":{"Retry-After":"1"},"times":1}`, status)), maxResponseBody)
			if f.Status != http.StatusCreated {
				skip(c, "the control API did not take the fault: status %d %s", f.Status, f.Error)
				return
			}
		}
		p := storedPlant{id: r.id()}
		before := r.used
		e := r.create(c, r.headers(), []byte("{}"), p)
		if e == nil {
			return
		}
		if e.Status == status {
			r.used = before // the scripted fault answered, and it stores nothing
		}
		c.Answer = answer(e, p)
	}
}

// listedPlant is a plant as the control API lists it; a null tag reads "".
type listedPlant struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Tag  string `json:"tag"`
}

// maxPlantList bounds what control-stored reads of the stored plants.
const maxPlantList = 16 << 20

func (r *runner) specStored(c *CheckResult) {
	var list []listedPlant
	if r.s.fake != nil {
		for _, p := range r.s.fake.Plants() {
			list = append(list, listedPlant{p.ID, p.Name, p.Tag})
		}
	} else {
		e := r.control(c, http.MethodGet, "/plants", nil, maxPlantList)
		if noResponse(c, e) {
			return
		}
		if e.Status != http.StatusOK || e.Error != "" {
			skip(c, "GET %s/plants: status %d %s", r.s.control.URL, e.Status, e.Error)
			return
		}
		if err := json.Unmarshal(e.body, &list); err != nil {
			fail(c, "the plant list is not a JSON array of plants: %v", err)
			return
		}
		// The list is the whole store: keep the report small.
		e.ResponseBody = "(" + plural.Count(len(list), "plant") + ")"
	}
	byID := map[int64][]listedPlant{}
	for _, p := range list {
		byID[p.ID] = append(byID[p.ID], p)
	}
	for _, want := range r.stored {
		listed := slices.ContainsFunc(byID[want.id], func(got listedPlant) bool {
			return (want.name == "" || got.Name == want.name) && got.Tag == want.tag
		})
		if !listed {
			fail(c, "plant %d, answered 200, is not listed as sent", want.id)
		}
	}
	for _, id := range r.refused {
		if len(byID[id]) > 0 && !slices.ContainsFunc(r.stored, func(p storedPlant) bool { return p.id == id }) {
			fail(c, "plant %d, refused, is listed", id)
		}
	}
}
