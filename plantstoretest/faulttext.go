package plantstoretest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore-go/internal/wire"
)

// hold is how long "delay" holds a reply unless it says: longer than any
// attempt timeout.
const hold = time.Minute

// ParseFault reads a [Fault] in the words every part of the fake spells
// one in ([WithSchedule], [Request.Fault], the mock's fault JSON): a kind,
// "store-" before it for Store, then modifiers. The kinds: a status from
// 200 to 599 (Status, with "Retry-After: 1" for "503" and "429"); "drop";
// "hang"; "delay", the usual reply held a minute, longer than any attempt
// timeout; "goaway"; "reply", the usual reply; "crash", which stores the
// plant and kills the code under test's process before the answer (Crash,
// with Store and Drop; see [Disk]). The modifiers: "after=250ms" (Delay,
// a Go duration of at most 64 characters), "retry-after=2" or
// "retry-after=none" after a status, "goaway", and "crash" after "drop":
// the process dies as it sends, nothing stored. So "store-drop" stores the
// plant and drops the connection, and "503 retry-after=30 after=2s"
// answers 503 two seconds late. Its error says what it cannot read, quoting at most 40 characters
// of the text and of the part at fault.
func ParseFault(text string) (Fault, error) {
	fields := strings.Fields(text)
	bad := func(why string) (Fault, error) {
		return Fault{}, fmt.Errorf("plantstoretest: fault %.40q: %s", text, why)
	}
	if len(fields) == 0 {
		return bad("want a kind: 503, 429, another status, drop, hang, delay, goaway, reply or crash")
	}
	kind, store := strings.CutPrefix(fields[0], "store-")
	f, named := faultKinds[kind]
	switch {
	case named && f.Crash && store:
		return bad("a crash stores the plant already: write crash")
	case named:
		f.Store = f.Store || store
	default:
		n := 0
		if len(kind) == 3 { // first: Atoi's error would copy a kind of any length
			n, _ = strconv.Atoi(kind)
		}
		if n < 200 || n > 599 {
			return bad(fmt.Sprintf("%.40q is no kind: want 503, 429, another status from 200 to 599, drop, hang, delay, goaway, reply or crash, with store- before it to store first", kind))
		}
		f.Store, f.Status = store, n
		if ra := retryAfterOf(n); ra != "" {
			f.Header = http.Header{"Retry-After": {ra}}
		}
	}
	var after, retryAfter bool
	for _, m := range fields[1:] {
		name, value, _ := strings.Cut(m, "=")
		switch {
		case m == "goaway" && !f.GoAway:
			f.GoAway = true
		case m == "crash" && f.Drop && !f.Crash:
			if f.Store {
				return bad("a crash that stores is written crash")
			}
			f.Crash = true
		case name == "after" && !after:
			d, ok := wire.ParseDuration(value)
			if !ok || d <= 0 {
				return bad(fmt.Sprintf("%.40q: want a positive Go duration of at most %d characters, such as after=250ms", m, wire.MaxDurationText))
			}
			f.Delay, after = d, true
		case name == "retry-after" && f.Status != 0 && !retryAfter:
			if _, err := strconv.ParseUint(value, 10, 31); err != nil && value != "none" {
				return bad(fmt.Sprintf("%.40q: want seconds or none, such as retry-after=2", m))
			}
			f.Header, retryAfter = nil, true
			if value != "none" {
				f.Header = http.Header{"Retry-After": {value}}
			}
		default:
			return bad(fmt.Sprintf("%.40q: want each of goaway, after=D, (after a status) retry-after=S and (after drop) crash at most once", m))
		}
	}
	if why := f.check(); why != "" {
		return bad(why)
	}
	return f, nil
}

// faultKinds are the kinds [ParseFault] reads other than a status.
var faultKinds = map[string]Fault{
	"drop": {Drop: true}, "hang": {Hang: true}, "delay": {Delay: hold}, "goaway": {GoAway: true},
	"reply": {}, "crash": {Store: true, Drop: true, Crash: true},
}

// retryAfterOf is the Retry-After a status's kind carries unless it says
// otherwise: "1" for "503" and "429", none for the others.
func retryAfterOf(status int) string {
	if status == http.StatusServiceUnavailable || status == http.StatusTooManyRequests {
		return "1"
	}
	return ""
}

// mustFault is the Fault text spells, which must parse.
func mustFault(text string) *Fault {
	f, err := ParseFault(text)
	if err != nil {
		panic(err)
	}
	return &f
}

// String spells f as [ParseFault] reads it, such as "store-drop" or "503
// retry-after=none": its Match, Times, Note, Body and headers other than
// Retry-After are not in the text, so a Fault that stores and adds headers
// is "reply", whose usual reply stores anyway.
func (f Fault) String() string {
	kind := "reply"
	switch {
	case f.Crash && f.Store:
		kind = "crash"
	case f.Hang:
		kind = "hang"
	case f.Drop:
		kind = "drop"
	case f.Status != 0:
		kind = strconv.Itoa(f.Status)
	case f.Delay > 0:
		kind = "delay"
	case f.GoAway:
		kind = "goaway"
	}
	var b strings.Builder
	if f.Store && !f.Crash && kind != "reply" { // the usual reply stores a valid plant anyway
		b.WriteString("store-")
	}
	b.WriteString(kind)
	if f.Crash && !f.Store {
		b.WriteString(" crash")
	}
	if f.GoAway && kind != "goaway" {
		b.WriteString(" goaway")
	}
	if f.Delay > 0 && (kind != "delay" || f.Delay != hold) {
		b.WriteString(" after=" + f.Delay.String())
	}
	if f.Status != 0 {
		got, want := f.Header.Get("Retry-After"), retryAfterOf(f.Status)
		_, err := strconv.ParseUint(got, 10, 31)
		switch {
		case got == want:
		case got == "":
			b.WriteString(" retry-after=none")
		case err == nil: // an injected date is not in the text
			b.WriteString(" retry-after=" + got)
		}
	}
	return b.String()
}
