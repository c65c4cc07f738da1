package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/plantstore/plantstore-go/plantstoretest/conformance"
)

// conformanceUsage heads the -h output of plantstore-mock conformance.
const conformanceUsage = `Usage: plantstore-mock conformance -url URL [flags]

Runs the conformance kit (package plantstoretest/conformance) against the
Plant Store API at URL, and against the fake in-process, and prints a report:
spec checks (which any server that follows the specification passes) and
observed checks (the answers the specification leaves open, the target's next
to the fake's). It exits with 0 when every spec check passed, 1 when one
failed, and 2 for bad usage or a target it refuses.

A URL that is not on loopback is taken to be a real deployment, and needs
-live: the run creates up to -max-creates plants there, with ids from
9000000000000000000 up and names starting "conformance-", and the API has no
delete. -profile-out writes what it observed as a profile for
plantstore-mock -profile and plantstoretest.WithProfile.

`

// runConformance is plantstore-mock conformance; it returns the exit status.
func runConformance(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plantstore-mock conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), conformanceUsage)
		fs.PrintDefaults()
	}
	var (
		t          conformance.Target
		controlURL string
		adminToken string
		asJSON     bool
		profileOut string
	)
	fs.StringVar(&t.URL, "url", "", "the API's base `URL` (default $PLANTSTORE_URL)")
	fs.StringVar(&t.Token, "token", "", "the API's bearer `token` (default $PLANTSTORE_TOKEN)")
	fs.BoolVar(&t.Live, "live", false, "allow a URL that is not on loopback: a real deployment, where the run leaves its plants")
	fs.StringVar(&controlURL, "control-url", "", "the target's control API, such as URL/__plantstore, if it has one (a real deployment has none)")
	fs.StringVar(&adminToken, "admin-token", "", "the control API's bearer `token` (default $PLANTSTORE_ADMIN_TOKEN)")
	fs.IntVar(&t.MaxCreates, "max-creates", conformance.DefaultMaxCreates, "create at most `N` plants (1 or more)")
	fs.Int64Var(&t.FirstID, "first-id", 0, "the first plant `id` to use (default a random one from 9000000000000000000 up)")
	fs.StringVar(&t.NamePrefix, "name-prefix", "", "start every plant name with `prefix` (default conformance-<8 hex digits>-)")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&profileOut, "profile-out", "", "write the observed answers a profile can reproduce to `file`, for plantstore-mock -profile")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		return fail(stderr, 2, "plantstore-mock conformance: unexpected arguments: %q", fs.Args())
	}
	set := given(fs, getenv)
	switch {
	case t.URL == "":
		return fail(stderr, 2, "plantstore-mock conformance: -url (or $PLANTSTORE_URL) is required")
	case t.Token == "":
		return fail(stderr, 2, "plantstore-mock conformance: -token (or $PLANTSTORE_TOKEN) is required")
	case t.MaxCreates < 1:
		// Target.MaxCreates 0 means the default, 10: here it would read as
		// "create nothing" and create 10.
		return fail(stderr, 2, "plantstore-mock conformance: -max-creates is %d, want 1 or more", t.MaxCreates)
	case set["admin-token"] && controlURL == "":
		return fail(stderr, 2, "plantstore-mock conformance: -admin-token needs -control-url")
	}
	if controlURL != "" {
		t.Control = &conformance.Control{URL: controlURL, AdminToken: adminToken}
	}
	rep, err := conformance.RunReport(ctx, t)
	if err != nil {
		return fail(stderr, 2, "plantstore-mock conformance: %s", flagTerms(err, set))
	}
	if profileOut != "" {
		// Markup stays as it came: a gateway's HTML page is read as it is.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err := enc.Encode(rep.Profile())
		if err == nil {
			err = os.WriteFile(profileOut, b.Bytes(), 0o644)
		}
		if err != nil {
			return fail(stderr, 2, "plantstore-mock conformance: -profile-out: %v", err)
		}
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return fail(stderr, 2, "plantstore-mock conformance: writing the report: %v", err)
	}
	if !rep.Passed {
		return 1
	}
	return 0
}

// flagTerms is the message of err, an error of conformance.RunReport, for
// the command line: the kit's messages name the fields of
// conformance.Target that a Go user sets ("Target.URL ... set Target.Live"),
// and here they name the flag, or the environment variable, that the user
// gave instead ("-url ... pass -live"). set holds the flags given.
func flagTerms(err error, set map[string]bool) string {
	// At one position, the first that matches wins: phrases first. Where
	// a message names a value, it names where that came from; where it
	// says where to give one, both places.
	return strings.NewReplacer(
		"set Target.Live (plantstore-mock conformance -live)", "pass -live",
		"set Target.Live", "pass -live",
		"in Target.Token", "in -token (or $PLANTSTORE_TOKEN)",
		"in Control.AdminToken", "in -admin-token (or $PLANTSTORE_ADMIN_TOKEN)",
		"Target.Control.URL", "-control-url",
		"Target.Control.AdminToken", source(set, "admin-token"),
		"Control.URL", "-control-url",
		"Control.AdminToken", source(set, "admin-token"),
		"Target.URL", source(set, "url"),
		"Target.Token", source(set, "token"),
		"Target.Live", "-live",
		"Target.MaxCreates", "-max-creates",
		"Target.FirstID", "-first-id",
		"Target.NamePrefix", "-name-prefix",
	).Replace(strings.TrimPrefix(err.Error(), "conformance: "))
}
