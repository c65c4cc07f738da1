package plantstoretest

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// scheduleItem is one item of a schedule: the fault placed on each request
// numbered at to to, counted from the schedule's start; a run if to > at.
type scheduleItem struct {
	at, to uint64
	fault  *Fault // shared by the items of one kind, never modified
}

// schedule is the faults a [WithSchedule] text places, by request number.
type schedule []scheduleItem

// parseSchedule reads a schedule's text: items "N:kind" or "N-M:kind"
// separated by commas, N and M requests' numbers from 1, each number in
// one item at most, kind as [ParseFault] reads it. An item may start with
// a journal's source ("chaos 7:503", see [Request.Fault]), which it skips.
func parseSchedule(text string) (schedule, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	// Item by item, as far as they parse: a text of 65,536 commas, refused
	// at its first item, must not cost a slice of 65,537 items (24 times
	// its size in the mock, whose requests in flight hold twice their body).
	var s schedule
	faults := map[string]*Fault{} // one for each kind the text names
	for tail, more := text, true; more; {
		var item string
		item, tail, more = strings.Cut(tail, ",")
		item = strings.TrimSpace(item)
		if source, rest, ok := strings.Cut(item, " "); ok && !strings.Contains(source, ":") {
			item = rest
		}
		n, kind, ok := strings.Cut(item, ":")
		from, to, run := strings.Cut(n, "-")
		at, err := strconv.ParseUint(from, 10, 32)
		last := at
		if run && err == nil {
			last, err = strconv.ParseUint(to, 10, 32)
		}
		if !ok || err != nil || at == 0 || last < at {
			return nil, fmt.Errorf("plantstoretest: schedule item %.40q: want N:kind or N-M:kind, N and M requests' numbers from 1, N up to M", item)
		}
		f := faults[kind]
		if f == nil {
			parsed, err := ParseFault(kind)
			if err != nil {
				return nil, err
			}
			f = &parsed
			faults[kind] = f
		}
		s = append(s, scheduleItem{at: at, to: last, fault: f})
	}
	s = append(make(schedule, 0, len(s)), s...) // what the Budget counts: no spare room
	slices.SortFunc(s, byAt)
	for i := 1; i < len(s); i++ {
		if s[i].at <= s[i-1].to {
			return nil, fmt.Errorf("plantstoretest: schedule: request %d has two faults", s[i].at)
		}
	}
	return s, nil
}

// String returns s as WithSchedule reads it: "1:store-drop,3-14:503".
func (s schedule) String() string {
	items := make([]string, len(s))
	for i, it := range s {
		items[i] = fmt.Sprintf("%d:%s", it.at, it.fault)
		if it.to > it.at {
			items[i] = fmt.Sprintf("%d-%d:%s", it.at, it.to, it.fault)
		}
	}
	return strings.Join(items, ",")
}

// place is the schedule as a fault source (see [Handler.decide]). s is
// sorted: a long schedule costs a request a binary search.
func (st *scheduleState) place(_ *Handler, req Request) (*Fault, string) {
	s, n := st.faults, req.Seq-st.from
	i, _ := slices.BinarySearchFunc(s, n, func(it scheduleItem, n uint64) int { return cmp.Compare(it.to, n) })
	if i == len(s) || s[i].at > n {
		return nil, ""
	}
	return s[i].fault, "schedule"
}

// maxScheduleRequests is the most requests a test under a schedule may
// send past its last fault: a loop that asks for ever, which a schedule
// may set off, ends.
const maxScheduleRequests = 1000

// sent returns how many requests h has numbered.
func (h *Handler) sent() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.journal.seq
}

// scheduleState is the Handler's schedule and its share of the Budget. The
// Handler's mu guards it.
type scheduleState struct {
	faults schedule
	from   uint64 // the Seq that its request 1 follows
	account
}

// set replaces the schedule with s, whose request 1 follows Seq from, if
// the Budget has room for it once the schedule it replaces is given back;
// if not, it keeps the schedule in force and returns the error.
func (st *scheduleState) set(s schedule, from uint64) error {
	if err := st.take(costOfSchedule(s) - st.held); err != nil {
		return err
	}
	st.faults, st.from = s, from
	return nil
}

// pastSchedule reports whether the requests numbered run maxScheduleRequests
// past the last fault of the schedule in force; never without one.
func (h *Handler) pastSchedule() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sched.faults
	return len(s) > 0 && h.journal.seq >= h.sched.from+s[len(s)-1].to+maxScheduleRequests
}

// WithSchedule places faults on the fake's requests by number, as
// [Explore] finds them: items "N:kind", or "N-M:kind" for requests N to M,
// separated by commas, N counting the requests from 1 ([Request.Seq] of a
// new fake), kind as [ParseFault] reads it: "1:store-drop,3-14:503". A
// [Request.Fault] pastes in as an item.
// A text that does not parse, or that the [Budget] has no room for, is
// misuse. A test under WithSchedule fails with t.FailNow when its Server's
// clients send 1,000 requests past the last fault of the schedule in force
// ([Handler.SetSchedule] replaces it): a loop that asks again for ever
// ends. An empty schedule places no fault, and no such bound.
func WithSchedule(text string) Option {
	return func(c *config) {
		s, err := parseSchedule(text)
		if err != nil {
			c.errs = append(c.errs, err)
			return
		}
		c.schedule, c.scheduled = s, true
	}
}

// SetSchedule replaces the Handler's schedule (see [WithSchedule]) with
// text's: its request 1 is the next request to arrive, and the bound on a
// test's requests moves with it. An empty text ends the schedule. A text
// that does not parse changes nothing, nor does one that the [Budget] has
// no room for, with the schedule in force given back: its error is
// [ErrStoreFull]; nor one with a crash that the Server refuses ([Fault].Crash).
func (h *Handler) SetSchedule(text string) error {
	s, err := parseSchedule(text)
	if err != nil {
		return err
	}
	if h.crashless() && s.crashes() {
		return errCrashless
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sched.set(s, h.journal.seq)
}

// Schedule returns the schedule in force as [Handler.SetSchedule] takes
// it, its faults in the order of their requests ("1:store-drop,3:503"),
// or "" for none.
func (h *Handler) Schedule() string {
	h.mu.Lock()
	s := h.sched.faults // never changed in place
	h.mu.Unlock()
	return s.String()
}

// byAt orders schedule items by their first request.
func byAt(a, b scheduleItem) int { return cmp.Compare(a.at, b.at) }

// crashes reports whether s places a crash.
func (s schedule) crashes() bool {
	return slices.ContainsFunc(s, func(it scheduleItem) bool { return it.fault.Crash })
}
