package traffic

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/plantstore/plantstore-go/internal/latency"
	"github.com/plantstore/plantstore-go/internal/strictjson"
)

// Recording is what a [Recorder] saw: every attempt's outcome, counted, with
// its latency histogram and, for 429 and 5xx answers, the Retry-After they
// asked for; and the lengths of the runs of consecutive failures. It is the
// "traffic" object of a profile document (see the package doc).
//
// Its bounds, which a Recorder keeps within and [Recording.Check]
// enforces: at most 32 outcomes (a Recorder keeps a place for each kind
// without a status, for 429, and for a catch-all outcome of kinds 2xx, 4xx
// and 5xx, status 0, which counts a status or code first seen once the
// other places are taken); at most 64 distinct Retry-After values an
// outcome (a value first seen past them counts as the nearest one kept),
// each at most 86,400 s (one day; a longer one counts as that); run lengths
// up to 1,000 (a longer run counts as that); every count at most 2^53, so
// that any language reads it exactly.
type Recording struct {
	// Attempts counts every attempt recorded: the sum of the outcomes'
	// counts.
	Attempts int64 `json:"attempts"`
	// Outcomes are the distinct outcomes seen, sorted by kind (in the order of the Kind constants), status and code
	// (absent first).
	Outcomes []Outcome `json:"outcomes"`
	// FailureRuns are the runs of consecutive failures other than 4xx
	// answers (see [Runs]).
	FailureRuns Runs `json:"failure_runs"`
	// AfterBreaks counts how the attempt after a break after sending, in
	// the same call, was answered: the evidence of whether the break
	// stored the plant. Nil in a recording made before v0.4.0.
	AfterBreaks *AfterBreaks `json:"after_breaks,omitempty"`
}

// AfterBreaks counts the answers to the attempts that followed a break
// after sending ([KindBrokenAfterSend]) in the same call, which sent the
// same create again: a 2xx says the break stored nothing; a 4xx, the
// answer to a repeated id, says it stored the plant. A replay stores a
// break's plant in the share Refused / (OK + Refused), and in every break
// when there is no such answer. Their sum is at most broken_after_send's
// count.
type AfterBreaks struct {
	OK      int64 `json:"ok"`
	Refused int64 `json:"refused"`
}

// Kind is the class of an attempt's outcome, in the client's own terms.
type Kind string

// The kinds, in the order a [Recording] sorts them.
const (
	// KindOK is a 2xx answer whose body was read.
	KindOK Kind = "2xx"
	// Kind4xx is a 4xx answer other than 429, by status and code.
	Kind4xx Kind = "4xx"
	// Kind429 is a 429 answer, with its Retry-After.
	Kind429 Kind = "429"
	// Kind5xx is a 5xx answer, by status, with its Retry-After.
	Kind5xx Kind = "5xx"
	// KindBrokenBeforeSend is a transport failure of a request that
	// certainly did not reach the server.
	KindBrokenBeforeSend Kind = "broken_before_send"
	// KindBrokenAfterSend is a transport failure of a request that may have
	// reached it (the client's [plantstore.ErrMaybeCreated] rule), or a
	// 2xx answer whose body broke off.
	KindBrokenAfterSend Kind = "broken_after_send"
	// KindAttemptTimeout is an attempt that ran out of its own time
	// (plantstore.WithAttemptTimeout), not the caller's.
	KindAttemptTimeout Kind = "attempt_timeout"
)

// kinds lists the kinds in their order.
var kinds = [...]Kind{KindOK, Kind4xx, Kind429, Kind5xx, KindBrokenBeforeSend, KindBrokenAfterSend, KindAttemptTimeout}

// rank returns k's place in kinds, or -1 for an unknown kind.
func (k Kind) rank() int {
	return slices.Index(kinds[:], k)
}

// Failure reports whether k is a failure: every kind but [KindOK].
func (k Kind) Failure() bool { return k != KindOK }

// hasRetryAfter reports whether outcomes of kind k carry Retry-After.
func (k Kind) hasRetryAfter() bool { return k == Kind429 || k == Kind5xx }

// statusFits reports whether status belongs to kind k; 0 is the catch-all
// status of the kinds with several.
func (k Kind) statusFits(status int) bool {
	switch k {
	case KindOK:
		return status == 0 || status >= 200 && status <= 299
	case Kind4xx:
		return status == 0 || status >= 400 && status <= 499 && status != 429
	case Kind429:
		return status == 429
	case Kind5xx:
		return status == 0 || status >= 500 && status <= 599
	}
	return status == 0
}

// Outcome is one distinct outcome and what it cost.
type Outcome struct {
	Kind Kind `json:"kind"`
	// Status is the HTTP status of an answer; zero for the kinds without
	// one, and for the catch-all outcome of its kind.
	Status int `json:"status,omitempty"`
	// Code is, for a 4xx answer that ended its call, the Error body's
	// "error" field when the body was an Error; nil otherwise (a retried
	// answer's body is not parsed).
	Code *int32 `json:"code,omitempty"`
	// Count is how many attempts had this outcome: at least 1, the sum of
	// Latency's counts.
	Count int64 `json:"count"`
	// Latency is the histogram of the attempts' durations, from the start
	// of the attempt to its end (the whole answer read, or the failure):
	// the non-empty buckets of the shared scheme (see [Bucket]), in order.
	Latency []Bucket `json:"latency"`
	// RetryAfter is, for kinds 429 and 5xx, the Retry-After the answers
	// asked for, in order with none (null) first; the counts sum to
	// Count.
	RetryAfter []RetryAfter `json:"retry_after,omitempty"`
}

// Bucket is one non-empty bucket of a latency histogram, which holds the
// latencies in (FromUS, ToUS] microseconds. The buckets are those of
// OpenTelemetry's base-2 exponential histogram at scale 3, base 2^(1/8):
// bucket i is (2^(i/8), 2^((i+1)/8)] µs for i from 0 to 255, the bounds
// written to 7 significant digits; the first also holds every latency of
// 1 µs or less, the last every latency over 2^32 µs (about 71 minutes).
// Each is 9.05 % wider than where it starts, which bounds the error of a
// quantile read from the histogram.
type Bucket struct {
	FromUS float64 `json:"from_us"`
	ToUS   float64 `json:"to_us"`
	Count  int64   `json:"count"`
}

// RetryAfter counts the answers that asked for one wait.
type RetryAfter struct {
	// Seconds is the wait in whole seconds, or nil for an answer without
	// a Retry-After the client could read.
	Seconds *int64 `json:"seconds"`
	Count   int64  `json:"count"`
}

// Runs describes the runs of consecutive failures: maximal sequences of
// attempts whose outcome is a failure, in the order the attempts started.
// A 4xx answer, which answers what the request said and not how the
// service was, neither ends nor continues a run, and is not in one: so the
// runs are those of the failures a replay plays, and a mix of 4xx among
// them does not cut them short. The mean run length is that of Lengths.
type Runs struct {
	// Runs counts the runs, the sum of Lengths' counts; Failures the
	// attempts that failed, the sum of the failure outcomes' counts.
	Runs     int64 `json:"runs"`
	Failures int64 `json:"failures"`
	// Lengths is the distribution of the runs' lengths, in order.
	Lengths []RunLength `json:"lengths"`
}

// RunLength counts the runs of one length.
type RunLength struct {
	Length int   `json:"length"`
	Count  int64 `json:"count"`
}

// The bounds of a [Recording], as its doc states them.
const (
	maxOutcomes          = 32
	maxRetryAfters       = 64
	maxRetryAfterSeconds = 86400
	maxRunLength         = 1000
	maxCount             = 1 << 53
)

// The bounds of a document, which [Read] and plantstoretest.ParseProfile
// enforce.
const (
	// MaxDocumentSize bounds the document [Read] reads, in bytes, and is
	// plantstoretest.MaxProfileSize: room for the largest profile Check
	// accepts, with the largest Recording.
	MaxDocumentSize = 2 << 20
	// MaxDocumentValues bounds the JSON values (objects, arrays, their
	// members and the scalars) of a document Read decodes, and of a
	// plantstoretest profile: room for a Recording at its bounds.
	MaxDocumentValues = 1 << 16
)

// Check reports what makes r inconsistent or out of bounds, or nil: an
// unknown kind, a status or code its kind does not have, outcomes, buckets
// or values out of order or repeated, any of Recording's bounds passed, a
// count below 1, counts that do not add up as the fields' docs say, more
// runs than failures or none when there are failures.
func (r *Recording) Check() error {
	if len(r.Outcomes) > maxOutcomes {
		return fmt.Errorf("traffic: %d outcomes, more than the %d allowed", len(r.Outcomes), maxOutcomes)
	}
	if err := checkCount("attempts", r.Attempts, 0); err != nil {
		return fmt.Errorf("traffic: %w", err)
	}
	var sum, failures, inRuns, breaks int64 // inRuns: the failures but 4xx
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		if err := o.check(); err != nil {
			return fmt.Errorf("traffic: outcome %d (%s): %w", i+1, o.name(), err)
		}
		if i > 0 && compareOutcomes(&r.Outcomes[i-1], o) >= 0 {
			return fmt.Errorf("traffic: outcome %d (%s) is out of order or repeated", i+1, o.name())
		}
		sum += o.Count // at most 32 · 2^53: no overflow
		if o.Kind.Failure() {
			failures += o.Count
		}
		if o.Kind.Failure() && o.Kind != Kind4xx {
			inRuns += o.Count
		}
		if o.Kind == KindBrokenAfterSend {
			breaks += o.Count
		}
	}
	if sum != r.Attempts {
		return fmt.Errorf("traffic: the outcomes count %d attempts, attempts says %d", sum, r.Attempts)
	}
	fr := &r.FailureRuns
	if fr.Failures != failures {
		return fmt.Errorf("traffic: the failure outcomes count %d attempts, failure_runs.failures says %d", failures, fr.Failures)
	}
	var runs, least int64
	for i, l := range fr.Lengths {
		if l.Length < 1 || l.Length > maxRunLength {
			return fmt.Errorf("traffic: run length %d is not in [1, %d]", l.Length, maxRunLength)
		}
		if i > 0 && fr.Lengths[i-1].Length >= l.Length {
			return fmt.Errorf("traffic: run length %d is out of order or repeated", l.Length)
		}
		if err := checkCount(fmt.Sprintf("run length %d: count", l.Length), l.Count, 1); err != nil {
			return fmt.Errorf("traffic: %w", err)
		}
		runs += l.Count
		least += l.Count * int64(l.Length) // < 2^53 + 1000·2^53 before the check: no overflow
		if runs > maxCount || least > maxCount {
			return fmt.Errorf("traffic: the runs count more than %d", int64(maxCount))
		}
	}
	switch {
	case runs != fr.Runs:
		return fmt.Errorf("traffic: the run lengths count %d runs, failure_runs.runs says %d", runs, fr.Runs)
	case least > fr.Failures:
		return fmt.Errorf("traffic: the run lengths add up to at least %d failures, failure_runs.failures says %d", least, fr.Failures)
	case inRuns > 0 && fr.Runs == 0:
		return fmt.Errorf("traffic: %d failures but 4xx in no run", inRuns)
	}
	if ab := r.AfterBreaks; ab != nil {
		if err := cmp.Or(checkCount("after_breaks.ok", ab.OK, 0), checkCount("after_breaks.refused", ab.Refused, 0)); err != nil {
			return fmt.Errorf("traffic: %w", err)
		}
		if ab.OK+ab.Refused > breaks {
			return fmt.Errorf("traffic: after_breaks counts %d answers after %d breaks after sending", ab.OK+ab.Refused, breaks)
		}
	}
	return nil
}

// check reports what is wrong with o alone.
func (o *Outcome) check() error {
	switch {
	case o.Kind.rank() < 0:
		return fmt.Errorf("unknown kind %q", o.Kind)
	case !o.Kind.statusFits(o.Status):
		return fmt.Errorf("status %d is not one of kind %s", o.Status, o.Kind)
	case o.Code != nil && (o.Kind != Kind4xx || o.Status == 0):
		return errors.New("a code on an outcome without one")
	case !o.Kind.hasRetryAfter() && o.RetryAfter != nil:
		return errors.New("retry_after on an outcome without one")
	case len(o.RetryAfter) > maxRetryAfters:
		return fmt.Errorf("%d retry_after values, more than the %d allowed", len(o.RetryAfter), maxRetryAfters)
	}
	if err := checkCount("count", o.Count, 1); err != nil {
		return err
	}
	var sum int64
	prev := -1
	for _, b := range o.Latency {
		i, ok := latency.Index(b.FromUS, b.ToUS)
		if !ok {
			return fmt.Errorf("latency bucket [%g, %g) µs is not one of the scheme", b.FromUS, b.ToUS)
		}
		if i <= prev {
			return fmt.Errorf("latency bucket [%g, %g) µs is out of order or repeated", b.FromUS, b.ToUS)
		}
		prev = i
		if err := checkCount("latency bucket count", b.Count, 1); err != nil {
			return err
		}
		sum += b.Count
	}
	if sum != o.Count {
		return fmt.Errorf("the latency buckets count %d attempts, count says %d", sum, o.Count)
	}
	if !o.Kind.hasRetryAfter() {
		return nil
	}
	sum = 0
	for i, ra := range o.RetryAfter {
		if ra.Seconds != nil && (*ra.Seconds < 0 || *ra.Seconds > maxRetryAfterSeconds) {
			return fmt.Errorf("retry_after %d s is not in [0, %d]", *ra.Seconds, maxRetryAfterSeconds)
		}
		if i > 0 && compareAbsentFirst(o.RetryAfter[i-1].Seconds, ra.Seconds) >= 0 {
			return errors.New("retry_after values out of order or repeated")
		}
		if err := checkCount("retry_after count", ra.Count, 1); err != nil {
			return err
		}
		sum += ra.Count
	}
	if sum != o.Count {
		return fmt.Errorf("the retry_after values count %d attempts, count says %d", sum, o.Count)
	}
	return nil
}

// checkCount reports a count outside [least, maxCount].
func checkCount(what string, n, least int64) error {
	if n < least || n > maxCount {
		return fmt.Errorf("%s %d is not in [%d, %d]", what, n, least, int64(maxCount))
	}
	return nil
}

// name names o in messages: "5xx 503", "4xx 400 code 3", "attempt_timeout".
func (o *Outcome) name() string {
	s := string(o.Kind)
	switch {
	case o.Kind == Kind429:
	case o.Status != 0:
		s += fmt.Sprintf(" %d", o.Status)
	case o.Kind == KindOK || o.Kind == Kind4xx || o.Kind == Kind5xx:
		s += " other"
	}
	if o.Code != nil {
		s += fmt.Sprintf(" code %d", *o.Code)
	}
	return s
}

// compareOutcomes orders outcomes by kind, status and code (absent first).
func compareOutcomes(a, b *Outcome) int {
	return cmp.Or(a.Kind.rank()-b.Kind.rank(), a.Status-b.Status, compareAbsentFirst(a.Code, b.Code))
}

// compareAbsentFirst orders optional values, nil first.
func compareAbsentFirst[T int32 | int64](a, b *T) int {
	switch {
	case a != nil && b != nil:
		return cmp.Compare(*a, *b)
	case a != nil:
		return 1
	case b != nil:
		return -1
	}
	return 0
}

// Read reads a profile document, as [Recorder.WriteTo] writes it, and
// returns its traffic, checked ([Recording.Check]). It refuses a document
// over [MaxDocumentSize] bytes or [MaxDocumentValues] JSON values, anything
// but one JSON object in UTF-8, a field name repeated within an object, a
// value of the wrong type or, in the traffic object, an unknown field. The
// document's other fields are the profile's (plantstoretest.Profile), which
// it leaves alone. A document without traffic is an error.
func Read(r io.Reader) (*Recording, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("traffic: read: %w", err)
	}
	if len(data) > MaxDocumentSize {
		return nil, fmt.Errorf("traffic: the document is more than the %d bytes allowed", MaxDocumentSize)
	}
	var doc map[string]json.RawMessage // the profile's fields are left alone
	if err := strictjson.Decode(data, MaxDocumentValues, &doc); err != nil {
		return nil, fmt.Errorf("traffic: document: %v", err)
	}
	if t := doc["traffic"]; len(t) == 0 || string(t) == "null" {
		return nil, errors.New("traffic: the document has no traffic")
	}
	rec := new(Recording)
	if err := strictjson.Decode(doc["traffic"], MaxDocumentValues, rec); err != nil {
		msg := err.Error()
		var strict *strictjson.Error
		if errors.As(err, &strict) {
			msg = strict.Msg // its Offset counts from the traffic's start, not the document's
		}
		return nil, fmt.Errorf("traffic: traffic: %s", msg)
	}
	if err := rec.Check(); err != nil {
		return nil, err
	}
	return rec, nil
}
