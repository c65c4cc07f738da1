package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
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
	run          func(r *runner, c *CheckResult)
}

// checks are the kit's checks, in the order they run: later ones read what
// earlier ones stored (duplicate-id repeats create's plant).
var checks = []check{
	// What a valid create gets.
	{id: "create", tag: Spec, title: "a valid NewPlant with a tag is answered 200 with a Plant: the name sent, no id", run: checkCreate},
	{id: "create-without-tag", tag: Spec, title: "a NewPlant without tag is answered 200 with a Plant", run: checkCreateWithoutTag},
	{id: "tag-echo", tag: Observed, title: "whether the 200 body echoes the tag sent", run: observeTagEcho},
	{id: "tag-omitted", tag: Observed, title: "the 200 body of a create without a tag", run: observeTagOmitted},
	{id: "response-content-type", tag: Observed, title: "the exact Content-Type of a 200 and of a 400", run: observeContentTypes},
	{id: "duplicate-id", tag: Observed, title: "the answer to a create whose id is already stored", run: observeDuplicate},

	// Authentication.
	{id: "auth-required", tag: Spec, title: "a create without Authorization is refused", run: specAuth("auth-missing", nil)},
	{id: "auth-bearer-scheme", tag: Spec, title: "a create with another scheme (Basic) is refused", run: specAuth("auth-wrong-scheme", []string{"Basic Y29uZm9ybWFuY2U6a2l0"})},
	{id: "auth-token-checked", tag: Spec, title: "a create with a wrong bearer token is refused", run: specAuth("auth-wrong-token", []string{"Bearer conformance-wrong-token"})},
	{id: "auth-missing", tag: Observed, title: "the answer to a create without Authorization", run: observeMemo("auth-missing")},
	{id: "auth-wrong-scheme", tag: Observed, title: "the answer to a create with Basic credentials", run: observeMemo("auth-wrong-scheme")},
	{id: "auth-wrong-token", tag: Observed, title: "the answer to a create with a wrong bearer token", run: observeMemo("auth-wrong-token")},
	{id: "auth-scheme-case", tag: Observed, title: `whether "bearer" in lower case is accepted (RFC 7235 says it should be)`, run: observeSchemeCase},

	// Bodies the specification makes invalid: 400 with an Error.
	{id: "missing-name", tag: Spec, title: "a NewPlant without name is answered 400 with an Error", run: specInvalid("missing-name", func(r *runner, id int64) []byte { return plantJSON("id", itoa(id)) })},
	{id: "missing-id", tag: Spec, title: "a NewPlant without id is answered 400 with an Error", run: specInvalid("missing-id", func(r *runner, id int64) []byte { return plantJSON("name", quote(r.name("missing-id"))) })},
	{id: "null-name", tag: Spec, title: "a NewPlant whose name is null is answered 400 with an Error", run: specInvalid("null-name", func(r *runner, id int64) []byte { return plantJSON("id", itoa(id), "name", "null") })},
	{id: "name-not-string", tag: Spec, title: "a NewPlant whose name is a number is answered 400 with an Error", run: specInvalid("name-not-string", func(r *runner, id int64) []byte { return plantJSON("id", itoa(id), "name", "42") })},
	{id: "id-not-integer", tag: Spec, title: "a NewPlant whose id is 1.5 (not an integer) is answered 400 with an Error", run: specInvalid("id-not-integer", func(r *runner, id int64) []byte {
		return plantJSON("id", itoa(id)+".5", "name", quote(r.name("id-not-integer")))
	})},
	{id: "id-out-of-range", tag: Spec, title: "a NewPlant whose id is past int64 is answered 400 with an Error", run: specInvalid("id-out-of-range", func(r *runner, id int64) []byte {
		return plantJSON("id", "9223372036854775808", "name", quote(r.name("id-out-of-range")))
	})},
	{id: "empty-object", tag: Spec, title: "an empty JSON object is answered 400 with an Error", run: specInvalid("empty-object", func(*runner, int64) []byte { return []byte("{}") })},
	{id: "not-an-object", tag: Spec, title: "a JSON array is answered 400 with an Error", run: specInvalid("not-an-object", func(*runner, int64) []byte { return []byte("[]") })},
	{id: "invalid-json", tag: Spec, title: "a body that is not JSON is answered 400 with an Error", run: specInvalid("invalid-json", func(*runner, int64) []byte { return []byte(`{"id":`) })},
	{id: "empty-body", tag: Spec, title: "an empty body is answered 400 with an Error", run: specInvalid("empty-body", func(*runner, int64) []byte { return []byte{} })},
	{id: "error-codes", tag: Observed, title: `the "error" code of each 400 above`, run: observeErrorCodes},

	// What the specification leaves open about bodies.
	{id: "unknown-field", tag: Observed, title: "the answer to a NewPlant with a field the specification does not name", run: observeVariant(func(r *runner, p storedPlant) []byte {
		return plantJSON("id", itoa(p.id), "name", quote(p.name), "colour", `"green"`)
	}, nil)},
	{id: "id-as-string", tag: Observed, title: `the answer to an id sent as a string ("123")`, run: observeVariant(func(r *runner, p storedPlant) []byte {
		return plantJSON("id", quote(itoa(p.id)), "name", quote(p.name))
	}, nil)},
	{id: "id-as-float", tag: Observed, title: "the answer to an integral id written as a float (123.0)", run: observeVariant(func(r *runner, p storedPlant) []byte {
		return plantJSON("id", itoa(p.id)+".0", "name", quote(p.name))
	}, nil)},
	{id: "empty-name", tag: Observed, title: `the answer to a name that is ""`, run: observeVariant(func(r *runner, p storedPlant) []byte {
		return plantJSON("id", itoa(p.id), "name", `""`)
	}, nil)},
	{id: "tag-null", tag: Observed, title: "the answer to a tag that is null", run: observeVariant(func(r *runner, p storedPlant) []byte {
		return plantJSON("id", itoa(p.id), "name", quote(p.name), "tag", "null")
	}, nil)},
	{id: "content-type-missing", tag: Observed, title: "the answer to a valid NewPlant without Content-Type", run: observeVariant(nil, func(h http.Header) { h.Del("Content-Type") })},
	{id: "content-type-text-plain", tag: Observed, title: "the answer to a valid NewPlant sent as text/plain", run: observeVariant(nil, func(h http.Header) { h.Set("Content-Type", "text/plain") })},
	{id: "content-type-charset", tag: Observed, title: "the answer to a valid NewPlant sent as application/json; charset=utf-8", run: observeVariant(nil, func(h http.Header) { h.Set("Content-Type", "application/json; charset=utf-8") })},
	{id: "not-found", tag: Observed, title: "the answer to POST /plants/conformance, a path the API does not have", run: observeNotFound},
	{id: "method-not-allowed", tag: Observed, title: "the answer to GET /plants", run: observeMethod},

	// Limits, searched with a bounded number of creates.
	{id: "longest-name", tag: Observed, title: "the longest name accepted, searched up to 1 MiB", search: true, run: observeLongestName},
	{id: "largest-body", tag: Observed, title: "the largest body accepted (padded with spaces), searched up to 1 MiB", search: true, run: observeLargestBody},

	// Only with a control API: what a real deployment cannot show without load.
	{id: "retry-after-429", tag: Observed, title: "a 429 scripted through the control API, and its Retry-After", needsControl: true, run: observeScripted(429)},
	{id: "retry-after-503", tag: Observed, title: "a 503 scripted through the control API, and its Retry-After", needsControl: true, run: observeScripted(503)},
	// Every 400 of the run, observed checks' included: the specification
	// gives each an Error body.
	{id: "error-shape", tag: Spec, title: "every 400 the run got, to any check, has an Error body: an int32 error and a string message", run: specErrorShape},
	{id: "control-stored", tag: Spec, title: "the control API lists every plant answered 200 as sent, and none refused", needsControl: true, run: specStored},
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

// noResponse fails c if e got no response, and reports whether it did.
func noResponse(c *CheckResult, e *Exchange) bool {
	if e.Status == 0 {
		fail(c, "no response: %s", e.Error)
		return true
	}
	return false
}

// isJSON reports whether the Content-Type ct is application/json.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
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

// wantPlant checks that e is a 200 with a Plant body for p.
func wantPlant(c *CheckResult, e *Exchange, p storedPlant) map[string]any {
	if noResponse(c, e) {
		return nil
	}
	if e.Status != http.StatusOK {
		fail(c, "status %d, want 200", e.Status)
		return nil
	}
	if ct := e.ResponseHeader["Content-Type"]; !isJSON(ct) {
		fail(c, "Content-Type %q, want application/json", ct)
	}
	m, err := decodeObject(e.body)
	if err != nil {
		fail(c, "the body is not a JSON object: %v", err)
		return nil
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
	return m
}

// wantError checks that e is a 400 with an Error body.
func wantError(c *CheckResult, e *Exchange) {
	if noResponse(c, e) {
		return
	}
	if e.Status != http.StatusBadRequest {
		fail(c, "status %d, want 400", e.Status)
		return
	}
	wantErrorBody(c, e)
}

// wantErrorBody checks that e's body is an Error, sent as JSON.
func wantErrorBody(c *CheckResult, e *Exchange) {
	if ct := e.ResponseHeader["Content-Type"]; !isJSON(ct) {
		fail(c, "Content-Type %q, want application/json", ct)
	}
	m, err := decodeObject(e.body)
	if err != nil {
		fail(c, "the body is not a JSON object: %v", err)
		return
	}
	switch code, ok := m["error"].(json.Number); {
	case !ok:
		fail(c, `"error" is %v, want an int32`, m["error"])
	default:
		if n, err := strconv.ParseInt(code.String(), 10, 64); err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			fail(c, `"error" is %s, want an int32`, code)
		}
	}
	if _, ok := m["message"].(string); !ok {
		fail(c, `"message" is %v, want a string`, m["message"])
	}
}

func checkCreate(r *runner, c *CheckResult) {
	p := storedPlant{id: r.id(), name: r.name("create"), tag: "conformance", hasTag: true}
	e := r.create(c, r.headers(), plantJSON("id", itoa(p.id), "name", quote(p.name), "tag", quote(p.tag)), p)
	if e == nil {
		return
	}
	r.memo["create"] = e
	r.plants["create"] = p
	wantPlant(c, e, p)
}

func checkCreateWithoutTag(r *runner, c *CheckResult) {
	p := storedPlant{id: r.id(), name: r.name("no-tag")}
	e := r.create(c, r.headers(), plantJSON("id", itoa(p.id), "name", quote(p.name)), p)
	if e == nil {
		return
	}
	r.memo["create-without-tag"] = e
	r.plants["create-without-tag"] = p
	wantPlant(c, e, p)
}

// needMemo returns the exchange an earlier check kept under key, or marks
// c skipped.
func needMemo(r *runner, c *CheckResult, key string) *Exchange {
	e := r.memo[key]
	if e == nil {
		c.Outcome = Skipped
		c.Problem = "check " + key + " did not run"
	}
	return e
}

func observeTagEcho(r *runner, c *CheckResult) {
	e := needMemo(r, c, "create")
	if e == nil {
		return
	}
	p := r.plants["create"]
	echo := "no response"
	if e.Status != 0 {
		echo = "not a JSON object"
		if m, err := decodeObject(e.body); err == nil {
			switch tag, ok := m["tag"]; {
			case !ok:
				echo = "absent"
			case tag == p.tag:
				echo = "echoed"
			default:
				echo = fmt.Sprintf("changed to %v", tag)
			}
		}
	}
	c.Answer = map[string]string{"status": strconv.Itoa(e.Status), "tag": echo}
}

func observeTagOmitted(r *runner, c *CheckResult) {
	if e := needMemo(r, c, "create-without-tag"); e != nil {
		c.Answer = answer(e, r.plants["create-without-tag"])
	}
}

func observeContentTypes(r *runner, c *CheckResult) {
	e := needMemo(r, c, "create")
	if e == nil {
		return
	}
	bad := r.create(c, r.headers(), []byte("{}"), storedPlant{id: r.id()})
	if bad == nil {
		return
	}
	c.Answer = map[string]string{
		"200":                    e.ResponseHeader["Content-Type"],
		strconv.Itoa(bad.Status): bad.ResponseHeader["Content-Type"],
	}
}

func observeDuplicate(r *runner, c *CheckResult) {
	e := needMemo(r, c, "create")
	if e == nil {
		return
	}
	p := r.plants["create"]
	if e.Status != http.StatusOK {
		c.Outcome = Skipped
		c.Problem = fmt.Sprintf("check create got %d, not 200, so no plant is stored to repeat", e.Status)
		return
	}
	dup := p
	dup.name = r.name("duplicate")
	d := r.create(c, r.headers(), plantJSON("id", itoa(dup.id), "name", quote(dup.name), "tag", quote(p.tag)), dup)
	if d != nil {
		c.Answer = answer(d, dup)
	}
}

// specAuth checks that a valid create with the given Authorization values
// (none for nil) is refused, and keeps the exchange for the observed check
// key.
func specAuth(key string, authorization []string) func(*runner, *CheckResult) {
	return func(r *runner, c *CheckResult) {
		p := storedPlant{id: r.id(), name: r.name(key)}
		h := r.headers()
		if authorization == nil {
			h.Del("Authorization")
		} else {
			h["Authorization"] = authorization
		}
		e := r.create(c, h, plantJSON("id", itoa(p.id), "name", quote(p.name)), p)
		if e == nil {
			return
		}
		r.memo[key] = e
		r.plants[key] = p
		if noResponse(c, e) {
			return
		}
		if e.Status >= 200 && e.Status <= 299 {
			fail(c, "status %d: the create was accepted, and may have stored a plant", e.Status)
		}
	}
}

// observeMemo records the answer to the exchange kept under key.
func observeMemo(key string) func(*runner, *CheckResult) {
	return func(r *runner, c *CheckResult) {
		if e := needMemo(r, c, key); e != nil {
			c.Answer = answer(e, r.plants[key])
		}
	}
}

func observeSchemeCase(r *runner, c *CheckResult) {
	p := storedPlant{id: r.id(), name: r.name("scheme-case")}
	h := r.headers()
	h.Set("Authorization", "bearer "+r.s.token)
	if e := r.create(c, h, plantJSON("id", itoa(p.id), "name", quote(p.name)), p); e != nil {
		c.Answer = answer(e, p)
	}
}

// specInvalid checks that the body body builds is answered 400 with an
// Error, and keeps the exchange under key for error-codes.
func specInvalid(key string, body func(r *runner, id int64) []byte) func(*runner, *CheckResult) {
	return func(r *runner, c *CheckResult) {
		p := storedPlant{id: r.id(), name: r.name(key)}
		e := r.create(c, r.headers(), body(r, p.id), p)
		if e == nil {
			return
		}
		r.memo[key] = e
		r.plants[key] = p
		wantError(c, e)
	}
}

// specErrorShape checks the body of every 400 the target gave the run's
// requests to the API, whichever check sent them: the specification gives
// every 400 an Error body. A body cut at maxResponseBody is not judged.
func specErrorShape(r *runner, c *CheckResult) {
	for _, a := range r.answered400 {
		if a.e.Error != "" {
			continue
		}
		var one CheckResult
		wantErrorBody(&one, a.e)
		if one.Outcome == Fail {
			fail(c, "the 400 to check %s: %s", a.check, one.Problem)
			c.Exchanges = append(c.Exchanges, a.e)
		}
	}
	if len(r.answered400) == 0 {
		c.Outcome = Skipped
		c.Problem = "the target answered no request of the run with 400"
	}
}

// errorCodeChecks are the spec checks whose codes error-codes reports.
var errorCodeChecks = []string{"missing-name", "missing-id", "null-name", "name-not-string", "id-not-integer", "id-out-of-range", "empty-object", "not-an-object", "invalid-json", "empty-body"}

func observeErrorCodes(r *runner, c *CheckResult) {
	c.Answer = map[string]string{}
	for _, key := range errorCodeChecks {
		e := r.memo[key]
		if e == nil {
			continue
		}
		v := "status " + strconv.Itoa(e.Status)
		if m, err := decodeObject(e.body); err == nil {
			if code, ok := m["error"].(json.Number); ok {
				v = code.String()
			}
		}
		c.Answer[key] = v
	}
}

// observeVariant records the answer to a create changed by body (nil: a
// valid NewPlant) and header (nil: the usual headers).
func observeVariant(body func(*runner, storedPlant) []byte, header func(http.Header)) func(*runner, *CheckResult) {
	return func(r *runner, c *CheckResult) {
		p := storedPlant{id: r.id(), name: r.name(c.ID)}
		h := r.headers()
		if header != nil {
			header(h)
		}
		b := plantJSON("id", itoa(p.id), "name", quote(p.name))
		if body != nil {
			b = body(r, p)
		}
		if e := r.create(c, h, b, p); e != nil {
			c.Answer = answer(e, p)
		}
	}
}

func observeNotFound(r *runner, c *CheckResult) {
	p := storedPlant{id: r.id(), name: r.name("not-found")}
	if e := r.createAt(c, "/plants/conformance", r.headers(), plantJSON("id", itoa(p.id), "name", quote(p.name)), p); e != nil {
		c.Answer = answer(e, p)
	}
}

func observeMethod(r *runner, c *CheckResult) {
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
// probes cost no create. A probe whose answer met a transient fault is
// asked again, afresh, as a check is (see run), and c.Asked is the most
// any probe was asked. It records what it found in c; "short" in the
// answer says the run's creates ran out first, and the answer is then a
// bracket that the fake's need only fall in (see [Report.compareWith]).
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
		c.Outcome = Skipped
		c.Problem = "the run had used up its " + plural.Count(r.s.maxCreates, "create") + " (Target.MaxCreates, -max-creates) before the search could send a probe"
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

func observeLongestName(r *runner, c *CheckResult) {
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

func observeLargestBody(r *runner, c *CheckResult) {
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
func observeScripted(status int) func(*runner, *CheckResult) {
	return func(r *runner, c *CheckResult) {
		if r.s.fake != nil {
			if _, err := r.s.fake.AddFault(plantstoretest.Fault{Status: status, Header: http.Header{"Retry-After": {"1"}}}); err != nil {
				c.Outcome = Skipped
				c.Problem = fmt.Sprintf("Target.Fake did not take the fault: %v", err)
				return
			}
		} else {
			f := r.control(c, http.MethodPost, "/faults", []byte(fmt.Sprintf(`{"status":%d,"headers":{"Retry-After":"1"},"times":1}`, status)), maxResponseBody)
			if f.Status != http.StatusCreated {
				c.Outcome = Skipped
				c.Problem = fmt.Sprintf("the control API did not take the fault: status %d %s", f.Status, f.Error)
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

// listedPlant is a plant as the control API lists it.
type listedPlant struct {
	ID   int64   `json:"id"`
	Name string  `json:"name"`
	Tag  *string `json:"tag"`
}

// maxPlantList bounds what control-stored reads of the stored plants.
const maxPlantList = 16 << 20

func specStored(r *runner, c *CheckResult) {
	var list []listedPlant
	if r.s.fake != nil {
		for _, p := range r.s.fake.Plants() {
			tag := p.Tag
			list = append(list, listedPlant{p.ID, p.Name, &tag})
		}
	} else {
		e := r.control(c, http.MethodGet, "/plants", nil, maxPlantList)
		if noResponse(c, e) {
			return
		}
		if e.Status != http.StatusOK || e.Error != "" {
			c.Outcome = Skipped
			c.Problem = fmt.Sprintf("GET %s/plants: status %d %s", r.s.control.URL, e.Status, e.Error)
			return
		}
		if err := json.Unmarshal(e.body, &list); err != nil {
			fail(c, "the plant list is not a JSON array of plants: %v", err)
			return
		}
		// The list is the whole store: keep the report small.
		e.ResponseBody = "(" + plural.Count(len(list), "plant") + ")"
	}
	byID := map[int64][]int{}
	for i, p := range list {
		byID[p.ID] = append(byID[p.ID], i)
	}
	for _, want := range r.stored {
		found := false
		for _, i := range byID[want.id] {
			got := list[i]
			tag := ""
			if got.Tag != nil {
				tag = *got.Tag
			}
			found = found || (want.name == "" || got.Name == want.name) && tag == want.tag
		}
		if !found {
			fail(c, "plant %d, answered 200, is not listed as sent", want.id)
		}
	}
	for _, id := range r.refused {
		if len(byID[id]) > 0 && !r.storedID(id) {
			fail(c, "plant %d, refused, is listed", id)
		}
	}
}

// storedID reports whether a create with id was answered 2xx.
func (r *runner) storedID(id int64) bool {
	for _, p := range r.stored {
		if p.id == id {
			return true
		}
	}
	return false
}
