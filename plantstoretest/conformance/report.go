package conformance

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// Tag says what a check holds the target to.
type Tag string

const (
	// Spec checks hold for any server that follows the specification: a
	// difference fails [Run].
	Spec Tag = "spec"
	// Observed checks record an answer the specification leaves open. They
	// never fail; the report puts the target's answer next to the fake's.
	Observed Tag = "observed"
)

// Outcomes of a check.
const (
	Pass     = "pass"     // a spec check held
	Fail     = "fail"     // a spec check did not hold
	Recorded = "recorded" // an observed check recorded the target's answer
	Skipped  = "skipped"  // the check could not run; Problem says why
)

// Report is the result of a run, in a form that marshals to JSON (the
// -json output of plantstore-mock conformance).
type Report struct {
	// Target is the URL checked; Reference names what the observed answers
	// are compared with: the fake, in-process.
	Target    string    `json:"target"`
	Reference string    `json:"reference,omitempty"`
	Started   time.Time `json:"started"`
	// Seconds is how long the run took, the reference's run included.
	Seconds float64 `json:"seconds"`
	// Passed reports whether every spec check passed.
	Passed bool `json:"passed"`
	// Creates is how many requests may have stored a plant (those not
	// refused with a 4xx), at most MaxCreates.
	Creates    int `json:"creates"`
	MaxCreates int `json:"max_creates"`
	// FirstID and LastID bound the plant ids the run used, and NamePrefix
	// starts every name it sent.
	FirstID    int64  `json:"first_id"`
	LastID     int64  `json:"last_id"`
	NamePrefix string `json:"name_prefix"`
	// Control reports whether the run used the target's control API.
	Control bool `json:"control"`
	// Checks are the results, in the order the checks ran.
	Checks []CheckResult `json:"checks"`
	// Differences lists the observed checks whose answer differs from the
	// reference's.
	Differences []string `json:"differences"`
}

// CheckResult is one check's result.
type CheckResult struct {
	ID    string `json:"id"`
	Tag   Tag    `json:"tag"`
	Title string `json:"title"`
	// Outcome is one of [Pass], [Fail], [Recorded] and [Skipped].
	Outcome string `json:"outcome"`
	// Problem says why a check failed or was skipped, on one line, what
	// the target sent escaped (see the package doc).
	Problem string `json:"problem,omitempty"`
	// Answer is what the target answered, in a form that compares across
	// runs: the run's plant id in a body reads "{id}", the plant's name
	// "{name}".
	Answer map[string]string `json:"answer,omitempty"`
	// Reference is the fake's answer to the same check, for observed
	// checks; Differs reports whether it differs from Answer.
	Reference map[string]string `json:"reference,omitempty"`
	Differs   bool              `json:"differs,omitempty"`
	// Calibrated reports whether a [plantstoretest.Profile] taken from this
	// report ([Report.Profile]) makes the fake give this check's answer.
	Calibrated bool `json:"calibrated,omitempty"`
	// Exchanges are the requests the check sent and what came back.
	Exchanges []*Exchange `json:"exchanges,omitempty"`
	// Asked is how many times the check was asked, when more than once:
	// an answer that met a transient fault (no answer, or 429, 502, 503
	// or 504) is asked again, afresh, up to 3 times, and the last answer
	// decides; a limit search asks each probe so, and Asked is the most
	// one was asked. A check scripted through a control API is asked once.
	Asked int `json:"asked,omitempty"`
}

// Check returns the result of the check with the given id, or nil.
func (r *Report) Check(id string) *CheckResult {
	i := slices.IndexFunc(r.Checks, func(c CheckResult) bool { return c.ID == id })
	if i < 0 {
		return nil
	}
	return &r.Checks[i]
}

// Compare returns the ids of the observed checks whose answers differ
// between a and b, in a's order: checks that ran in one and not the other
// count as different.
func Compare(a, b *Report) []string {
	var diff []string
	for _, ca := range a.Checks {
		if ca.Tag != Observed {
			continue
		}
		cb := b.Check(ca.ID)
		if cb == nil || ca.Outcome != cb.Outcome || !maps.Equal(ca.Answer, cb.Answer) {
			diff = append(diff, ca.ID)
		}
	}
	return diff
}

// compareWith fills in the reference answers from ref, and Differences.
func (r *Report) compareWith(ref *Report) {
	r.Differences = []string{}
	for i := range r.Checks {
		c := &r.Checks[i]
		if c.Tag != Observed {
			continue
		}
		rc := ref.Check(c.ID)
		switch {
		case rc == nil:
		case rc.Outcome == Skipped:
			c.Reference = map[string]string{"skipped": rc.Problem}
		default:
			c.Reference = maps.Clone(rc.Answer) // ref may be kept: see runReference
		}
		c.Differs = rc == nil || c.Outcome != rc.Outcome || !maps.Equal(c.Answer, rc.Answer) && !bracketHolds(c.Answer, rc.Answer)
		if c.Differs {
			r.Differences = append(r.Differences, c.ID)
		}
	}
}

// bracketHolds reports whether a, a limit search that the run's creates
// cut short, is consistent with ref, the fake's whole search: the limit
// between a's largest accepted size and its smallest refused one may be
// ref's, and a's refusal, if any, reads as ref's: a search cut short by
// creates that transient faults spent is no difference.
func bracketHolds(a, ref map[string]string) bool {
	if a["short"] == "" {
		return false
	}
	size := func(m map[string]string, key string, none int) int {
		if n, err := strconv.Atoi(m[key]); err == nil {
			return n
		}
		return none
	}
	const inf = 1 << 62
	lo, hi := size(a, "accepted", -1), size(a, "refused", inf)
	refLo, refHi := size(ref, "accepted", -1), size(ref, "refused", inf)
	return lo < refHi && refLo < hi && (a["refusal"] == "" || a["refusal"] == ref["refusal"])
}

// profileChecks maps each check a [plantstoretest.Profile] can reproduce to
// the profile's reply it fills.
var profileChecks = []struct {
	id    string
	reply func(*plantstoretest.Profile) **plantstoretest.ProfileReply
}{
	{"duplicate-id", func(p *plantstoretest.Profile) **plantstoretest.ProfileReply { return &p.DuplicateID }},
	{"auth-missing", func(p *plantstoretest.Profile) **plantstoretest.ProfileReply { return &p.AuthMissing }},
	{"auth-wrong-scheme", func(p *plantstoretest.Profile) **plantstoretest.ProfileReply { return &p.AuthMalformed }},
	{"auth-wrong-token", func(p *plantstoretest.Profile) **plantstoretest.ProfileReply { return &p.AuthInvalid }},
}

// Profile returns the calibration this report holds: the target's answers
// to a repeated id and to refused credentials, for [plantstoretest.WithProfile]
// and plantstore-mock -profile, so that the fake answers them as the target
// did; the checks it reproduces are marked [CheckResult.Calibrated], and the
// other answers are only reported. An answer the fake cannot reproduce (a
// status outside 400 to 499, a body or header too long, text that is not
// UTF-8) is left out, as are skipped checks and a Source too long to keep:
// the profile passes [plantstoretest.Profile.Check]. Its DuplicateIDError
// gives the pair a production client takes with
// plantstore.WithAlreadyExists, which plantstore.Client.EnsurePlant needs.
func (r *Report) Profile() plantstoretest.Profile {
	p := plantstoretest.Profile{Source: r.Target}
	if p.Check() != nil { // a URL too long to keep
		p.Source = ""
	}
	for _, pc := range profileChecks {
		c := r.Check(pc.id)
		if c == nil || c.Outcome != Recorded {
			continue
		}
		var status int
		if _, err := fmt.Sscan(c.Answer["status"], &status); err != nil {
			continue
		}
		reply := &plantstoretest.ProfileReply{
			Status:      status,
			ContentType: c.Answer["content_type"],
			Body:        c.Answer["body"],
			Challenge:   c.Answer["challenge"],
		}
		one := plantstoretest.Profile{DuplicateID: reply}
		if one.Check() != nil {
			continue
		}
		*pc.reply(&p) = reply
	}
	return p
}

// WriteText writes r for people: a line per check, the target's answer
// next to the fake's for observed checks, and the exchanges of failures.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "conformance of %s (reference: %s)\n", r.Target, r.Reference)
	fmt.Fprintf(&b, "ids %d to %d, names starting %q, %d of at most %d creates, control API: %v, %.2fs\n\n",
		r.FirstID, r.LastID, r.NamePrefix, r.Creates, r.MaxCreates, r.Control, r.Seconds)
	failed := 0
	for _, c := range r.Checks {
		mark := strings.ToUpper(c.Outcome)
		if c.Tag == Observed && c.Outcome == Recorded {
			mark = "SAME"
			if c.Differs {
				mark = "DIFFERS"
			}
		}
		fmt.Fprintf(&b, "%-8s %-8s %-22s %s\n", mark, c.Tag, c.ID, c.Title)
		if c.Problem != "" {
			fmt.Fprintf(&b, "         %s\n", c.Problem)
		}
		if c.Asked > 0 {
			fmt.Fprintf(&b, "         asked %d times: an answer met a transient fault\n", c.Asked)
		}
		if c.Outcome == Fail {
			failed++
			for _, e := range c.Exchanges {
				b.WriteString(e.String())
			}
		}
		if c.Tag == Observed && c.Answer != nil {
			fmt.Fprintf(&b, "         target: %s\n", formatAnswer(c.Answer))
		}
		if c.Differs && c.Reference != nil { // also when skipped on the target only
			fmt.Fprintf(&b, "         fake:   %s\n", formatAnswer(c.Reference))
		}
	}
	// Differences also counts an observed check skipped on one side only.
	fmt.Fprintf(&b, "\n%d checks: %d spec failed, %d observed differ from the fake", len(r.Checks), failed, len(r.Differences))
	if len(r.Differences) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(r.Differences, ", "))
	}
	b.WriteString("\n")
	p := r.Profile()
	if status, code, ok := p.DuplicateIDError(); ok {
		fmt.Fprintf(&b, "repeated id: status %d, error code %d (plantstore.WithAlreadyExists(%d, %d))\n", status, code, status, code)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// answerOrder is the order formatAnswer shows these keys in, before any
// other (in name order).
var answerOrder = map[string]int{"status": 1, "content_type": 2, "challenge": 3, "allow": 4, "retry_after": 5, "body": 6}

// formatAnswer shows an answer on one line, each value cut to a snippet.
func formatAnswer(a map[string]string) string {
	rank := func(k string) int { return cmp.Or(answerOrder[k], len(answerOrder)+1) }
	keys := slices.Sorted(maps.Keys(a))
	slices.SortStableFunc(keys, func(x, y string) int { return rank(x) - rank(y) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		shown := snippet([]byte(a[k]), responseSnippet) // the JSON report has it whole
		parts[i] = fmt.Sprintf("%s=%q%s", k, shown, more(len(shown), len(a[k])))
	}
	return strings.Join(parts, " ")
}
