// Package conformance checks a Plant Store server against the
// specification, and records the answers the specification leaves open (how
// a repeated id is refused, which error codes exist, what a 401 looks like,
// how long a name may be), so that a team can tell where the fake (package
// plantstoretest, and plantstore-mock) and their deployment differ, and make
// the fake answer like the deployment.
//
// [Run] is the entry point for tests, as testing/fstest's TestFS is:
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
// and no id; every 400 of the run an Error with an int32 "error" and a
// string "message"; the bearer scheme required; a NewPlant without name or
// id, or with a field of the wrong type, refused); when it does not, its
// subtest fails and shows the exchange. An [Observed] check records an
// answer the specification leaves open (a repeated id; missing, malformed
// and wrong credentials; 404 and 405; each 400's code; unknown fields, "123"
// and 123.0 as an id, an empty name, a null tag; content types; the longest
// name and largest body accepted, searched up to 1 MiB with two creates
// each, so a range; Retry-After on a scripted 429 and 503) and never fails.
// Every run also runs the checks against the fake, in-process, and the
// [Report] puts the answers side by side. The kit talks raw HTTP, not
// through package plantstore's client, and asks a check again after a
// transient fault ([CheckResult.Asked]).
// plantstore-mock conformance runs the checks from the command line.
//
// # Calibrating the fake
//
// [Report.Profile] turns the target's answers to a repeated id and to
// refused credentials into a plantstoretest.Profile, which makes the fake
// (plantstoretest.WithProfile, plantstore-mock -profile) answer those like
// the target.
//
// # Fake time
//
// Inside a testing/synctest bubble (Go 1.25+), run the kit against
// plantstoretest.NewServer(t, plantstoretest.WithInMemoryNetwork()), with
// Target.Client the server's HTTPClient and Target.Fake the server, and take
// the report with [RunReport] (t.Run may not be called there). A run takes
// about 0.1 s of wall time.
//
// # Safety against a real deployment
//
// The API has no delete: every plant a run creates stays. So a run refuses
// a URL not on loopback without [Target.Live], creates at most
// [Target.MaxCreates] plants, takes ids from [FirstIDMin] up and names from
// [Target.NamePrefix], sends one request at a time (about 35 in all, none
// over 1 MiB and 1 KiB: no load, so never a real 429 or 503), stops after
// two timeouts in a row ([Target.Client]), calls a control API only to
// script faults and read the plants ([Target.Control], [Target.Fake]), and
// follows no redirect.
//
// # What a report shows of a hostile target
//
// A report, [Run]'s log and [Report.Profile] never show [Target.Token] or
// [Control.AdminToken]: an exchange shows "Bearer REDACTED", and a token the
// target echoes, as written, JSON-escaped, percent-encoded or HTML-escaped,
// reads REDACTED, as in the client's errors (a token shorter than 8 bytes
// only where "Bearer " precedes it). The kit reads at most 64 KiB of an
// answer; a cut inside a token ends the body before it. Nor can a target
// drive the user's terminal: the text report, Run's log and a check's
// Problem quote what it sent as strconv.Quote does (an ESC, a
// CR, a line break or a C1 control reads \x1b, \r, \n or \u009b), and the
// JSON report ([Report.MarshalJSON]) writes such characters as \u escapes.
package conformance
