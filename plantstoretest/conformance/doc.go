// Package conformance checks a Plant Store server against the
// specification, and records the answers the specification leaves open, so
// that a team can tell where the fake (package plantstoretest, and
// plantstore-mock) and their deployment differ, and make the fake answer
// like the deployment. The specification leaves most answers open (how a
// repeated id is refused, which error codes exist, what a 401 looks like,
// how long a name may be); the fake makes a choice for each, and tests
// written against it are only as true as those choices.
//
// [Run] is the entry point for tests, in the style of testing/fstest's
// TestFS and testing/slogtest's Run:
//
//	func TestDeployment(t *testing.T) {
//		conformance.Run(t, conformance.Target{
//			URL:   os.Getenv("PLANTSTORE_URL"),
//			Token: os.Getenv("PLANTSTORE_TOKEN"),
//			Live:  true, // it is a real deployment: see below
//		})
//	}
//
// Each check has an id and a [Tag]. A [Spec] check holds for any server that
// follows the specification (a 200 body shaped as Plant, with the name sent
// and no id; every 400 the run gets, to any check, an Error with an int32
// "error" and a string "message"; the bearer scheme required; a NewPlant
// without name or id, or with a field of the wrong type, refused); when it
// does not hold, its subtest fails and shows the exchange, the token
// redacted. An [Observed] check records an answer the specification leaves
// open (the answer to a repeated id; to no, malformed and wrong credentials,
// 401 or 403; 404 and 405; the "error" code of each 400; unknown fields,
// "123" and 123.0 as an id, an empty name, a null tag; content-type
// strictness; the longest name and the largest body accepted; Retry-After on
// a 429 and a 503, scripted through a control API); it never fails. The
// searches for the longest name and the largest body stop at a body just
// over 1 MiB and spend at most two creates each, so they give a range, not
// an exact figure. Every run also runs the checks against the fake,
// in-process, and the [Report] puts the two answers side by side and lists
// where they differ. The kit talks raw HTTP, not through package
// plantstore's client.
//
// A deployment fails now and then. A check whose answers met a transient
// fault (no answer, or 429, 502, 503 or 504) is asked again, afresh, up to
// three times, and [CheckResult.Asked] reports it: only an answer of the
// target's own decides a check, or goes into a profile. Checks scripted
// through a control API are asked once, as their faults are the point.
//
// plantstore-mock conformance runs the same checks from the command line,
// with a text or a JSON report (its README, cmd/plantstore-mock/README.md,
// shows one).
//
// # Calibrating the fake
//
// [Report.Profile] turns the target's answers to a repeated id and to
// refused credentials into a plantstoretest.Profile. Give it to
// plantstoretest.WithProfile (or, written out, to plantstoretest.ParseProfile
// or plantstore-mock -profile), and the fake answers those like the target.
// The report of the run against the target marks the checks whose answers
// the profile holds [CheckResult.Calibrated]. The other observed answers are
// reported, not calibrated: the fake keeps its own limits, codes and checks.
// The profile's plantstoretest.Profile.DuplicateIDError gives the status
// and code with which the target refuses a repeated id, which a production
// client takes with plantstore.WithAlreadyExists to settle a create that
// may have stored its plant (plantstore.Client.EnsurePlant).
//
// # Fake time
//
// Inside a testing/synctest bubble (Go 1.25 and later), run the kit against
// plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork()), with
// Target.Client set to the server's HTTPClient and Target.Fake to the
// server. t.Run may not be called in a bubble, so take the report with
// [RunReport] and check [Report.Passed]. A whole run then takes about 0.1 s
// of wall time; against a loopback NewServer of its own, 35 to 55 ms, the
// server's start and the reference run included.
//
// # Safety against a real deployment
//
// A run creates plants, and the API has no delete: every plant a run
// creates stays in the target's store. So:
//
//   - It runs against a URL that is not on loopback only when
//     [Target.Live] is set (plantstore-mock conformance -live).
//   - It creates at most [Target.MaxCreates] plants ([DefaultMaxCreates],
//     10, by default); a request refused with a 4xx counts as no create.
//     Checks that would need more are skipped.
//   - Its plant ids come from [FirstIDMin] (9,000,000,000,000,000,000) up, a
//     random start per run, and its names start with a run-unique prefix
//     ("conformance-" and 8 hex digits), so its plants are easy to find.
//     Ids from plantstore.NewID meet a run's ids with odds of about 10⁻¹²
//     a million of them; ids of a scheme of your own stay below FirstIDMin.
//   - It sends one request at a time, about 35 in all, none larger than
//     1 MiB and 1 KiB: no load. So it never sees a real 429 or 503. After
//     two requests in a row time out, it sends no more.
//   - It calls a control API only when [Target.Control] names one (or, for
//     an in-process fake, [Target.Fake] gives its Go API), and there only
//     to script faults and to read the stored plants. It follows no
//     redirect.
//
// # What a report shows of a hostile target
//
// A report (text or JSON), [Run]'s log and [Report.Profile] never show
// [Target.Token] or [Control.AdminToken]: an exchange shows
// "Bearer REDACTED", and where the target echoes a token in an answer, as
// written, JSON-escaped, percent-encoded or HTML-escaped, it reads
// REDACTED, by the rule the client's errors follow (a token shorter than 8
// bytes only where "Bearer " precedes it). The kit reads at most 64 KiB of
// an answer; where that cut falls inside a token, the body kept ends
// before the token's first byte.
//
// Nor can a target drive the terminal of the kit's user, or add a line to
// what it reads: in the text report and Run's log, what the target sent
// (a body, a header, an answer) is quoted as strconv.Quote quotes it, and a
// check's Problem and an exchange's Error, which may quote it, are escaped
// the same way without the quotes, so an ESC, a carriage return, a BEL, a
// line break or a C1 control (U+0080 to U+009F) reads \x1b, \r, \a, \n or
// \u009b. The JSON report ([Report.MarshalJSON]) writes each such character
// as a \u escape, C1 controls included, which encoding/json leaves raw.
package conformance
