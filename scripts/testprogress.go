//go:build ignore

// testprogress reads `go test -json` on its standard input and prints what
// `go test` prints without -json, but as each package finishes instead of
// in the order of the packages: a line for each package that passes, and
// the output of each test that fails. scripts/test.sh runs it, so that a
// run shows its progress. Lines that are not JSON pass through.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// event is the part of a test2json event this program reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	// held is the output of each test (or, under "", of each package) not
	// yet known to have failed.
	held := make(map[string]map[string][]string)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for in.Scan() {
		line := in.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Printf("%s\n", line)
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Print(e.Output)
		case "output":
			if held[e.Package] == nil {
				held[e.Package] = make(map[string][]string)
			}
			held[e.Package][e.Test] = append(held[e.Package][e.Test], e.Output)
		case "pass", "skip":
			if e.Test != "" {
				delete(held[e.Package], e.Test)
				continue
			}
			// The package's summary: its last line, "ok ..." or "? ...".
			if out := held[e.Package][""]; len(out) > 0 {
				fmt.Print(out[len(out)-1])
			}
			delete(held, e.Package)
		case "fail":
			if e.Test != "" {
				printOutput(held[e.Package][e.Test])
				delete(held[e.Package], e.Test)
				continue
			}
			// What is left: tests that never ended (a panic, a timeout),
			// then the package's own lines, which end in its FAIL line.
			for test, out := range held[e.Package] {
				if test != "" {
					printOutput(out)
				}
			}
			printOutput(held[e.Package][""])
			delete(held, e.Package)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testprogress:", err)
		os.Exit(1)
	}
}

// printOutput prints a test's output but for the lines with which -v marks
// when it runs, pauses and continues.
func printOutput(lines []string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Print(l)
		}
	}
}
