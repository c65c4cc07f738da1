package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsEveryFlag checks that the flags table of the mock's guide,
// README.md, has a row for every flag -h prints, and no row for a flag that
// does not exist: a newcomer reads the table, not -h.
func TestREADMEListsEveryFlag(t *testing.T) {
	var usage bytes.Buffer
	if _, status := parseFlags([]string{"-h"}, func(string) string { return "" }, &usage); status != 0 {
		t.Fatalf("-h exited with status %d", status)
	}
	printed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(usage.String(), -1) {
		printed[m[1]] = true
	}
	if len(printed) == 0 {
		t.Fatalf("-h printed no flags:\n%s", usage.String())
	}
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(data), "\n## Flags\n")
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `-([a-z-]+)").FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	for name := range printed {
		if !listed[name] {
			t.Errorf("README.md's flags table has no row for -%s, which -h prints", name)
		}
	}
	for name := range listed {
		if !printed[name] {
			t.Errorf("README.md's flags table has a row for -%s, which -h does not print", name)
		}
	}
}
