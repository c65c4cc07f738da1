package mockserver

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/plantstore/plantstore-go/internal/wire"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

// faultJSON is a [plantstoretest.Fault] as POST /__plantstore/faults takes
// it. Every field is optional; the Handler's own checks reject the
// contradictions, with the messages [plantstoretest.Handler.Inject] gives,
// told in JSON terms (see [jsonFaultMessage]).
type faultJSON struct {
	// Kind is the fault in the words of plantstoretest.ParseFault
	// ("store-drop", "503 retry-after=2"), the one spelling every part
	// uses; the fields from Status to Store are the older spelling, and
	// go with no Kind.
	Kind   *string `json:"kind"`
	Status int     `json:"status"`
	// Headers maps a header name to a string or an array of strings. Names
	// are case-insensitive, so each header may appear once.
	Headers map[string]json.RawMessage `json:"headers"`
	// Body is the scripted reply's body; null or absent sends an ErrorBody
	// with CodeFault, "" sends none.
	Body *jsonText `json:"body"`
	// Delay is a Go duration, like "250ms" or "2s"; "" is none.
	Delay  string     `json:"delay"`
	Hang   bool       `json:"hang"`
	Drop   bool       `json:"drop"`
	GoAway bool       `json:"goaway"`
	Store  bool       `json:"store"`
	Times  int        `json:"times"`
	Match  *matchJSON `json:"match"`
}

// matchJSON selects the requests a fault answers: every field given must
// equal the request's. Method and Path select an operation, whatever the
// fake's checks found; ID, Name and Tag select by the plant a request
// carries, so a request that carries none (it failed the fake's checks, or
// its operation takes no plant) matches no fault that names one.
type matchJSON struct {
	Method *string `json:"method,omitempty"`
	Path   *string `json:"path,omitempty"`
	ID     *int64  `json:"id,omitempty"`
	Name   *string `json:"name,omitempty"`
	Tag    *string `json:"tag,omitempty"`
}

// fn is m as a Fault's Match.
func (m *matchJSON) fn() func(plantstoretest.Request) bool {
	want := *m // a copy: the func must not see later changes
	return func(r plantstoretest.Request) bool {
		return want.matches(&r)
	}
}

// note is m as the Fault's Note, for GET /__plantstore/faults to echo
// (see parseNote): the Handler cannot show the func fn builds.
func (m *matchJSON) note() string {
	b, _ := json.Marshal(m) // pointers to strings and an int64 cannot fail
	return string(b)
}

// parseNote is the match a Fault's Note holds, or nil if none.
func parseNote(note string) *matchJSON {
	if note == "" {
		return nil
	}
	var m matchJSON
	_ = json.Unmarshal([]byte(note), &m) // note wrote it
	return &m
}

func (m *matchJSON) matches(r *plantstoretest.Request) bool {
	if (m.Method != nil && *m.Method != r.Method) || (m.Path != nil && *m.Path != r.Path) {
		return false
	}
	if m.ID == nil && m.Name == nil && m.Tag == nil {
		return true
	}
	// A plant that passed the fake's checks always has a name, so a valid
	// request with none carried no plant.
	p := r.Plant
	return r.Invalid == nil && p.Name != "" &&
		(m.ID == nil || *m.ID == p.ID) &&
		(m.Name == nil || *m.Name == p.Name) &&
		(m.Tag == nil || *m.Tag == p.Tag)
}

// check reports what JSON allows in m that can never match.
func (m *matchJSON) check() *controlError {
	switch {
	case *m == (matchJSON{}):
		return badRequest("match names none of method, path, id, name and tag; leave match out to match every request")
	case m.Method != nil && !wire.ValidHeaderName(*m.Method): // a method is a token, as a header name is
		return badRequest("match.method %q is not an HTTP method such as \"POST\"", *m.Method)
	case m.Path != nil && !strings.HasPrefix(*m.Path, "/"):
		return badRequest("match.path %q must start with /, as a request's path does, such as \"/plants\"", *m.Path)
	}
	return nil
}

// fault converts fj into the Fault it describes. It checks what JSON adds
// (header syntax, the delay's syntax, an empty match); the Handler checks
// the rest.
func (fj *faultJSON) fault() (plantstoretest.Fault, *controlError) {
	if fj.Kind != nil {
		rest := *fj
		rest.Kind, rest.Times, rest.Match = nil, 0, nil
		if !reflect.ValueOf(rest).IsZero() {
			return plantstoretest.Fault{}, badRequest("kind names the whole fault: leave out status, headers, body, delay, hang, drop, goaway and store, or kind")
		}
		f, err := plantstoretest.ParseFault(*fj.Kind)
		if err != nil {
			return f, badRequest("%s", strings.TrimPrefix(err.Error(), "plantstoretest: "))
		}
		f.Times = fj.Times
		return f, fj.addMatch(&f)
	}
	f := plantstoretest.Fault{
		Status: fj.Status,
		Hang:   fj.Hang,
		Drop:   fj.Drop,
		GoAway: fj.GoAway,
		Store:  fj.Store,
		Times:  fj.Times,
	}
	if fj.Headers != nil {
		f.Header = make(http.Header, len(fj.Headers))
		given := make(map[string]string, len(fj.Headers)) // canonical name -> name as given
		// In name order, so that the same JSON always gives the same Fault
		// and the same message.
		for _, name := range slices.Sorted(maps.Keys(fj.Headers)) {
			values, err := headerValues(name, fj.Headers[name])
			if err != nil {
				return f, err
			}
			key := http.CanonicalHeaderKey(name)
			if first, ok := given[key]; ok {
				// Both would add to one header, in the map's random order.
				return f, badRequest("headers: %q and %q name the same header; give its values once, as an array", first, name)
			}
			given[key] = name
			f.Header[key] = values
		}
	}
	if fj.Body != nil {
		f.Body = *fj.Body // capped at its length (see jsonText)
	}
	if fj.Delay != "" {
		d, ok := wire.ParseDuration(fj.Delay)
		if !ok {
			return f, badRequest("delay %.40q is not a Go duration of at most %d characters, such as \"250ms\" or \"2s\"", fj.Delay, wire.MaxDurationText)
		}
		f.Delay = d
	}
	return f, fj.addMatch(&f)
}

// addMatch gives f fj's match, if it has one that can match.
func (fj *faultJSON) addMatch(f *plantstoretest.Fault) *controlError {
	if fj.Match != nil {
		if err := fj.Match.check(); err != nil {
			return err
		}
		f.Match, f.Note = fj.Match.fn(), fj.Match.note()
	}
	return nil
}

// jsonTerms rewrites the Handler's messages about a [plantstoretest.Fault],
// which name its Go fields for Go users ("plantstoretest: invalid Fault:
// Hang and Drop are alternatives; set one"), in the terms of the JSON a
// user of the control API posted ("invalid fault: \"hang\" and \"drop\" are
// alternatives; set one"). The phrases come before the names they start
// with: at one position, the first that matches wins.
var jsonTerms = strings.NewReplacer(
	"plantstoretest: invalid Fault: ", "invalid fault: ",
	"plantstoretest: ", "",
	"a Fault with", "a fault with",
	"Status must be 0", `"status" must be left out`,
	"Header and Body must be nil", `"headers" and "body" must be left out`,
	"Delay must be 0", `"delay" must be left out`,
	"Status", `"status"`,
	"Header", `"headers"`,
	"Body", `"body"`,
	"Delay", `"delay"`,
	"Hang", `"hang"`,
	"Drop", `"drop"`,
	"GoAway", `"goaway"`,
	"Store", `"store"`,
	"Crash", `"crash"`, // of a kind, which a crash kind never breaks
	"Times", `"times"`,
	"Match", `"match"`,
	"Note", `"match"`, // the match as posted (see matchJSON.note)
)

// jsonFaultMessage is the message of err, an error of
// [plantstoretest.Handler.AddFault], for the control API: in JSON terms.
func jsonFaultMessage(err error) string {
	return jsonTerms.Replace(err.Error())
}

// headerValues decodes one entry of "headers": a string or a non-empty
// array of strings, under a valid header name, with values that cannot
// break the response's framing.
func headerValues(name string, raw json.RawMessage) ([]string, *controlError) {
	if !wire.ValidHeaderName(name) {
		return nil, badRequest("headers: %q is not a valid header name", name)
	}
	// Pointers tell null, which json.Unmarshal accepts as a string and
	// leaves "", from a string.
	var one *string
	var many []*string
	if err := json.Unmarshal(raw, &one); err == nil && one != nil {
		many = []*string{one}
	} else if err := json.Unmarshal(raw, &many); err != nil || len(many) == 0 {
		return nil, badRequest("headers: %q: want a string or a non-empty array of strings", name)
	}
	values := make([]string, len(many))
	for i, v := range many {
		if v == nil {
			return nil, badRequest("headers: %q: want a string or a non-empty array of strings, got null", name)
		}
		if wire.HeaderValueControl(*v) >= 0 {
			return nil, badRequest("headers: %q: a value holds a control character", name)
		}
		values[i] = *v
	}
	return values, nil
}

// faultStatusJSON is a pending fault as GET /__plantstore/faults lists it:
// the fault as posted, normalised (headers as arrays, delay as a Go
// duration, times resolved), its id and the replies it has left.
type faultStatusJSON struct {
	ID      int                 `json:"id"`
	Kind    string              `json:"kind"`
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    *string             `json:"body"`
	Delay   string              `json:"delay"`
	Hang    bool                `json:"hang"`
	Drop    bool                `json:"drop"`
	GoAway  bool                `json:"goaway"`
	Store   bool                `json:"store"`
	Match   *matchJSON          `json:"match"`
	Times   int                 `json:"times"`
	Left    int                 `json:"left"`
}

func newFaultStatus(fs plantstoretest.InjectedFault) faultStatusJSON {
	out := faultStatusJSON{
		ID:      fs.ID,
		Kind:    fs.Fault.String(),
		Status:  fs.Fault.Status,
		Headers: map[string][]string(fs.Fault.Header),
		Delay:   fs.Fault.Delay.String(),
		Hang:    fs.Fault.Hang,
		Drop:    fs.Fault.Drop,
		GoAway:  fs.Fault.GoAway,
		Store:   fs.Fault.Store,
		Match:   parseNote(fs.Fault.Note),
		Times:   fs.Times,
		Left:    fs.Left,
	}
	if out.Headers == nil {
		out.Headers = map[string][]string{}
	}
	if fs.Fault.Body != nil {
		body := string(fs.Fault.Body)
		out.Body = &body
	}
	return out
}

func (s *Server) addFault(w http.ResponseWriter, _ *http.Request, body []byte) (int, *controlError) {
	var fj faultJSON
	if err := decodeStrict(body, &fj); err != nil {
		return 0, err
	}
	f, cerr := fj.fault()
	if cerr != nil {
		return 0, cerr
	}
	id, err := s.fake.AddFault(f)
	if err != nil {
		return 0, refused(err, jsonFaultMessage(err))
	}
	times := max(f.Times, 1)    // 0 is once; AddFault refused a negative one
	f.Header = f.Header.Clone() // the reply must not share the map the Handler keeps
	f.Body = nil                // the reply echoes fj.Body as it streams, not a copy
	reply := newFaultStatus(plantstoretest.InjectedFault{ID: id, Fault: f, Times: times, Left: times})
	if fj.Body == nil {
		writeJSON(w, http.StatusCreated, reply)
	} else {
		writeJSONWithBody(w, http.StatusCreated, reply, *fj.Body)
	}
	return http.StatusCreated, nil
}

func (s *Server) listFaults(w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
	pending := s.fake.Faults()
	return writeJSONArray(w, len(pending), func(i int) any { return newFaultStatus(pending[i]) }), nil
}
