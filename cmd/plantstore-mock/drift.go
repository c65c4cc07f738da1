package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/plantstore/plantstore-go/traffic"
)

const driftUsage = `usage: plantstore-mock drift BEFORE AFTER
       plantstore-mock drift FILE

Compares two recordings (profile documents with traffic, as
traffic.Recorder.WriteTo writes them) and prints what moved, one line
each, with its figures and the statistical test (traffic.Compare).
With one file, prints what it recorded: each outcome's share of the
attempts, its p50, p95 and p99, its Retry-After values, and the runs
of failures. Exit status: 0 when nothing moved (or for one file), 1 when
something did, 2 for a usage error, a file it cannot read, or one
without traffic.
`

// runDrift is the drift subcommand; it returns the exit status.
func runDrift(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plantstore-mock drift", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), driftUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 && fs.NArg() != 2 {
		fmt.Fprintf(stderr, "plantstore-mock drift: want two files, BEFORE and AFTER, or one; got %d arguments\n", fs.NArg())
		fs.Usage()
		return 2
	}
	recs := make([]*traffic.Recording, fs.NArg())
	for i, name := range fs.Args() {
		rec, err := readRecording(name)
		if err != nil {
			return fail(stderr, 2, "plantstore-mock drift: %s: %v", name, err)
		}
		recs[i] = rec
	}
	if len(recs) == 1 {
		fmt.Fprint(stdout, recs[0])
		return 0
	}
	changes := traffic.Compare(recs[0], recs[1])
	for _, c := range changes {
		fmt.Fprintln(stdout, c)
	}
	if len(changes) > 0 {
		return 1
	}
	return 0
}

// readRecording reads the traffic of the profile document in file name.
func readRecording(name string) (*traffic.Recording, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return traffic.Read(f)
}
