// Package conformance checks a Plant Store server against the
// specification, and records the answers the specification leaves open, so
// that a team can tell where the fake (package plantstoretest, and
// plantstore-mock) and their deployment differ, and make the fake answer
// like the deployment.
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
// follows the specification (a 200 body shaped as Plant, with no id; a 400
// with an Error body; the bearer scheme required; a NewPlant without name or
// id refused); when it does not hold, its subtest fails and shows the
// exchange, the token redacted. An [Observed] check records an answer the
// specification leaves open (the answer to a repeated id, the 401 and 404
// shapes, the longest name accepted, content-type strictness, …); it never
// fails. Every run also runs the checks against the fake, in-process, and
// the [Report] puts the two answers side by side and lists where they
// differ. [Report.Profile] turns the target's answers into a
// plantstoretest.Profile, which makes the fake answer a repeated id and
// refused credentials as the target does.
//
// plantstore-mock conformance runs the same checks from the command line,
// with a text or a JSON report.
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
//   - Its plant ids come from [FirstIDMin] (9,000,000,000,000,000,000) up, a
//     random start per run, and its names start with a run-unique prefix
//     ("conformance-" and 8 hex digits), so its plants are easy to find.
//   - It sends one request at a time, about 35 in all, none larger than
//     1 MiB and 1 KiB: no load. So it never sees a real 429 or 503.
//   - It calls a control API only when [Target.Control] names one (or, for
//     an in-process fake, [Target.Fake] gives its Handler).
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
