// Package strictjson holds the one rule of JSON strictness that every body
// the module's servers read follows beyond encoding/json's syntax: a field
// name appears at most once in an object, names compared as they decode
// (so "n\u0061me" repeats "name"). JSON leaves the meaning of repeated
// names undefined, and servers differ on which one wins; encoding/json keeps
// the last, silently. It also bounds how many values a body may hold, so
// that a small body cannot cost memory out of proportion to its size once
// decoded.
//
// The fake's POST /plants applies the same rule in its own allocation-free
// walk (plantstoretest/decode.go), with the same message; the mock's
// control API applies it through [Check].
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Error is a body [Check] refused.
type Error struct {
	// Offset is the byte offset in the body where the problem starts.
	Offset int
	// Msg says what is wrong, without a package prefix.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Check walks data, one JSON value that json.Valid accepts, and returns an
// *Error for the first field name repeated within its object, or for the
// value past maxValues (counting every value: objects, arrays, their
// members and elements, and the scalars). It allocates by the names of the
// objects open at once, never by data's length: at most maxValues names.
// Check's result for data that is not valid JSON is undefined, but it does
// not panic.
func Check(data []byte, maxValues int) error {
	w := walker{data: data, max: maxValues}
	return w.run()
}

type walker struct {
	data   []byte
	max    int
	values int
	// open is the stack of open containers; names holds, for each open
	// object, the names seen so far, by their decoded text.
	open  []byte // '{' or '['
	names [][][]byte
}

func (w *walker) run() error {
	d := w.data
	for i := 0; i < len(d); i++ {
		switch c := d[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
		case '{', '[':
			if err := w.value(i); err != nil {
				return err
			}
			w.open = append(w.open, c)
			if c == '{' {
				w.names = append(w.names, nil)
			}
		case '}', ']':
			if len(w.open) == 0 {
				return nil
			}
			if w.open[len(w.open)-1] == '{' {
				w.names = w.names[:len(w.names)-1]
			}
			w.open = w.open[:len(w.open)-1]
		case '"':
			end := skipString(d, i)
			if w.isName(end) {
				name := unescape(d[i:end])
				set := &w.names[len(w.names)-1]
				for _, seen := range *set {
					if bytes.Equal(seen, name) {
						return &Error{Offset: i, Msg: fmt.Sprintf("field %q appears more than once", string(name))}
					}
				}
				*set = append(*set, name)
			} else if err := w.value(i); err != nil {
				return err
			}
			i = end - 1
		default: // a number, true, false or null
			if err := w.value(i); err != nil {
				return err
			}
			for i+1 < len(d) && bytes.IndexByte([]byte(" \t\r\n,]}"), d[i+1]) < 0 {
				i++
			}
		}
	}
	return nil
}

// value counts one more value, starting at offset i.
func (w *walker) value(i int) error {
	w.values++
	if w.values > w.max {
		return &Error{Offset: i, Msg: fmt.Sprintf("more than %d JSON values", w.max)}
	}
	return nil
}

// isName reports whether the string that ends before end is a field name:
// in an object, followed by a colon.
func (w *walker) isName(end int) bool {
	if len(w.open) == 0 || w.open[len(w.open)-1] != '{' {
		return false
	}
	for j := end; j < len(w.data); j++ {
		switch w.data[j] {
		case ' ', '\t', '\r', '\n':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// skipString returns the index just past the string literal at d[i].
func skipString(d []byte, i int) int {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(d)
}

// unescape returns the text of the string literal lit.
func unescape(lit []byte) []byte {
	if bytes.IndexByte(lit, '\\') < 0 && len(lit) >= 2 {
		return lit[1 : len(lit)-1]
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return lit
	}
	return []byte(s)
}
