// Package plural writes a count and its noun for the module's messages:
// "1 fault", "2 faults".
package plural

import "strconv"

// Count returns n and noun, a regular noun in the singular, with an s
// unless n is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return strconv.Itoa(n) + " " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
