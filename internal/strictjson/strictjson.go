// Package strictjson holds the one rule of JSON strictness that every body
// the module reads follows beyond encoding/json's syntax: a field name
// appears at most once in an object, names compared as they decode (so
// "n\u0061me" repeats "name"), and no string holds an unpaired surrogate
// escape such as "\ud800", which encoding/json would make U+FFFD. JSON
// leaves the meaning of repeated names undefined, and servers differ on
// which one wins; encoding/json keeps the last, silently. It also bounds how many values
// a body may hold, so that a small body cannot cost memory out of proportion to its size once decoded,
// and checks the bound before anything is decoded.
//
// [Decode] is the whole rule, with messages in JSON's terms: the mock's
// control API, plantstoretest.ParseProfile and traffic.Read decode through
// it, and the mock's seed checks its array with [Valid]. The fake's POST
// /plants checks a body with [Valid] and applies the rest of the rule in
// its own allocation-free walk (plantstoretest/decode.go), with the same
// [NameSet], [RepeatedName] and scanning helpers ([SkipSpace],
// [SkipString], [Unescape]).
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Error is a body [Decode] or [Valid] refused.
type Error struct {
	// Offset is the byte offset in the body where the problem starts, from
	// 0, or -1 where Msg says where (a field's path).
	Offset int
	// Msg says what is wrong, without a package prefix.
	Msg string
}

// Error returns Msg and, for an Offset of 0 or more, "(at byte N)".
func (e *Error) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s (at byte %d)", e.Msg, e.Offset)
}

// RepeatedName is the error for the field name, at offset i, that appears
// a second time in its object.
func RepeatedName(i int, name []byte) *Error {
	return &Error{Offset: i, Msg: fmt.Sprintf("field %q appears more than once", string(name))}
}

// check walks data, one JSON value that json.Valid accepts, and returns an
// *Error for the first field name repeated within its object, or for the
// value past maxValues (counting every value: objects, arrays, their
// members and elements, and the scalars). It allocates by the names of the
// objects open at once, never by data's length: at most maxValues names.
// Its result for data that is not valid JSON is undefined, but it does
// not panic.
//
// It also refuses, wherever v's type (a pointer) gives one, a field name
// that the struct encoding/json would decode it into has not: at the top,
// in a struct's struct fields, in slice elements and map values. Names
// match exactly, as the fake's POST /plants matches them, not in any case
// as encoding/json does; so {"Status": 1} is an unknown field where a
// struct has "status". Maps, interfaces, json.RawMessage and types with
// their own UnmarshalJSON take any names.
//
// Last, if data has none of those problems, it refuses the first value of
// the wrong type for where it goes, as encoding/json would: a kind of
// value the Go type does not take (null goes anywhere), or a number that
// does not fit it, with the message [Decode] describes: encoding/json's
// own would differ from Go 1.27 on (its v2 code adds indices and map keys).
func check(data []byte, maxValues int, v any) error {
	w := walker{data: data, max: maxValues, next: shapeOf(reflect.TypeOf(v).Elem())}
	return w.run()
}

// shape is what a JSON value may be, from the Go type it decodes into. A
// nil *shape takes anything.
type shape struct {
	t      reflect.Type
	want   byte              // the kind of value t takes, as kindOf gives it
	fields map[string]*shape // a struct's fields by JSON name; nil for a map
	elem   *shape            // a map's values or a slice's elements
	strict bool              // a struct: other names are unknown
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType          = reflect.TypeFor[json.Number]()
)

// kindOf is the kind of JSON value that encoding/json decodes into t, by
// its first byte: '{', '[', '"', 't' for true or false, '0' for a number;
// or 0 where t takes any (an interface, json.Number) or decides for
// itself (its own UnmarshalJSON).
func kindOf(t reflect.Type) byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch p, k := reflect.PointerTo(t), t.Kind(); {
	case p.Implements(unmarshalerType) || t == numberType:
		return 0
	case p.Implements(textUnmarshalerType), k == reflect.String,
		k == reflect.Slice && t.Elem().Kind() == reflect.Uint8: // base64
		return '"'
	case k == reflect.Struct || k == reflect.Map:
		return '{'
	case k == reflect.Slice || k == reflect.Array:
		return '['
	case k == reflect.Bool:
		return 't'
	case k >= reflect.Int && k <= reflect.Uint64 || k == reflect.Float32 || k == reflect.Float64:
		return '0'
	}
	return 0
}

func shapeOf(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := &shape{t: t, want: kindOf(t)}
	switch {
	case s.want == 0:
		return nil
	case s.want == '{' && t.Kind() == reflect.Struct:
		s.fields, s.strict = map[string]*shape{}, true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch name {
			case "-":
				continue
			case "":
				name = f.Name
			}
			s.fields[name] = shapeOf(f.Type)
		}
	case s.want == '{' || s.want == '[':
		s.elem = shapeOf(t.Elem())
	}
	return s
}

// refuse returns why s does not take the JSON value that starts data, or
// "" if it does.
func (s *shape) refuse(data []byte) string {
	c := data[0]
	switch {
	case s == nil || c == 'n':
		return ""
	case c == 'f':
		c = 't'
	case c == '-' || c >= '0' && c <= '9':
		c = '0'
	}
	if c != s.want {
		return fmt.Sprintf("want %s, got JSON %s", wantOf(s.t), Kind(data[0]))
	}
	if c != '0' {
		return ""
	}
	lit := data[:SkipValue(data, 0)]
	var err error
	switch k := s.t.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		_, err = strconv.ParseInt(string(lit), 10, s.t.Bits())
	case k >= reflect.Uint && k <= reflect.Uint64:
		_, err = strconv.ParseUint(string(lit), 10, s.t.Bits())
	default:
		_, err = strconv.ParseFloat(string(lit), s.t.Bits())
	}
	if err != nil {
		return fmt.Sprintf("want %s, got JSON number %s", wantOf(s.t), lit)
	}
	return ""
}

type walker struct {
	data   []byte
	max    int
	values int
	// open is the stack of open containers; names holds, for each open
	// object, the names seen so far, by their decoded text (the set
	// plantstoretest's POST /plants uses).
	open  []container
	names []NameSet
	// next is the shape of the value to come; path holds the names of the
	// open containers that are struct fields, and field the name of the
	// value to come if it is a struct field, or nil.
	next  *shape
	path  [][]byte
	field []byte
	// wrongType is the first value of the wrong type, if any.
	wrongType error
}

// container is an open object or array.
type container struct {
	c     byte // '{' or '['
	named bool // a struct field, whose name ends path
	shape *shape
}

// enter notes that a container with opening c starts.
func (w *walker) enter(c byte) {
	w.open = append(w.open, container{c: c, named: w.field != nil, shape: w.next})
	if c == '{' {
		w.names = append(w.names, NameSet{})
	}
	if w.field != nil {
		w.path = append(w.path, w.field)
	}
	w.field = nil
	if c == '[' {
		w.next = w.next.elemShape()
	}
}

// leave notes that the innermost container ends.
func (w *walker) leave() {
	top := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	if top.c == '{' {
		w.names = w.names[:len(w.names)-1]
	}
	if top.named {
		w.path = w.path[:len(w.path)-1]
	}
	w.field = nil
	if len(w.open) > 0 && w.open[len(w.open)-1].c == '[' {
		w.next = w.open[len(w.open)-1].shape.elemShape()
	}
}

// member checks name, at offset i, against the innermost object's shape,
// and makes its value's shape the one to come.
func (w *walker) member(i int, name []byte) error {
	obj := w.open[len(w.open)-1].shape
	w.field = nil
	if obj == nil || !obj.strict {
		w.next = obj.elemShape()
		return nil
	}
	s, ok := obj.fields[string(name)]
	if !ok {
		return &Error{Offset: i, Msg: fmt.Sprintf("unknown field %q", string(name))}
	}
	w.next, w.field = s, name
	return nil
}

func (s *shape) elemShape() *shape {
	if s == nil {
		return nil
	}
	return s.elem
}

// run walks the data, and returns the first error check reports.
func (w *walker) run() error {
	d := w.data
	for i := 0; i < len(d); i++ {
		switch c := d[i]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
		case '{', '[':
			if err := w.value(i); err != nil {
				return err
			}
			w.enter(c)
		case '}', ']':
			if len(w.open) == 0 {
				return nil
			}
			w.leave()
		case '"':
			end := SkipString(d, i)
			if esc := UnpairedSurrogate(d[i:end]); esc != "" {
				return &Error{Offset: i, Msg: fmt.Sprintf("string contains the unpaired surrogate escape %s, which is not a character", esc)}
			}
			if w.isName(end) {
				name := Unescape(d[i:end])
				if w.names[len(w.names)-1].Add(name) {
					return RepeatedName(i, name)
				}
				if err := w.member(i, name); err != nil {
					return err
				}
			} else if err := w.value(i); err != nil {
				return err
			}
			i = end - 1
		default: // a number, true, false or null
			if err := w.value(i); err != nil {
				return err
			}
			i = SkipValue(d, i) - 1
		}
	}
	return w.wrongType
}

// value counts one more value, starting at offset i, and notes it if it
// is the first of the wrong type.
func (w *walker) value(i int) error {
	w.values++
	if w.values > w.max {
		return &Error{Offset: i, Msg: fmt.Sprintf("more than %d JSON values", w.max)}
	}
	if w.wrongType == nil {
		if msg := w.next.refuse(w.data[i:]); msg != "" {
			w.wrongType = &Error{Offset: -1, Msg: w.at() + msg}
		}
	}
	return nil
}

// at names the value to come by its path, `field "a.b": `, or is "" at
// the top.
func (w *walker) at() string {
	names := w.path
	if w.field != nil {
		names = append(names[:len(names):len(names)], w.field)
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("field %q: ", bytes.Join(names, []byte(".")))
}

// isName reports whether the string that ends before end is a field name:
// in an object, followed by a colon.
func (w *walker) isName(end int) bool {
	if len(w.open) == 0 || w.open[len(w.open)-1].c != '{' {
		return false
	}
	j := SkipSpace(w.data, end)
	return j < len(w.data) && w.data[j] == ':'
}
