package plantstoretest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
)

// A Budget bounds the bytes that the Handlers sharing it ([WithBudget])
// keep all together (plants, journals, injected faults and schedules), so
// that a process serving many, such as cmd/plantstore-mock's namespaces,
// has one bound on its memory. It is safe for concurrent use. A Handler
// counts, exactly, without the runtime:
//
//   - a plant as 128 bytes, plus its name and tag;
//   - a journal entry ([Request]) as 512 bytes, plus its method, path,
//     body, plant name and tag, request id and error message as kept, and
//     its headers;
//   - a fault as 512 bytes, plus its body, its headers and twice its Note
//     (what its Match keeps is not seen);
//   - headers as 144 bytes a name, plus the name, and 32 bytes a value,
//     plus the value;
//   - a schedule ([WithSchedule]) as 32 bytes an item, plus a fault for
//     each kind it names.
//
// That is at least what the Go heap holds for them (0.25 to 0.75 of it,
// measured), so a full Budget bounds the live heap, to which the garbage
// collector's headroom adds up to as much again. A create, seed, fault,
// schedule or journal entry that would go past the limit is refused with
// [CodeStoreFull] or [ErrStoreFull]. Room comes back as they go:
// [Handler.Reset], [Handler.ClearRequests], [Handler.ClearFaults], an
// entry pushed out by [WithJournalLimit], a fault used up, a schedule
// replaced, and [Handler.Close].
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a Budget of limit bytes; a negative limit is taken as 0.
func NewBudget(limit int64) *Budget {
	return &Budget{limit: max(limit, 0)}
}

// Used returns how many bytes of b the Handlers hold now.
func (b *Budget) Used() int64 { return b.used.Load() }

// WithBudget makes the Handler keep what it holds within b ([Budget]),
// which others may share. The default, like a nil b, is none.
func WithBudget(b *Budget) Option {
	return func(c *config) { c.budget = b }
}

// The costs a [Budget] counts; see there.
const (
	plantCost       = 128
	requestCost     = 512
	faultCost       = 512
	headerNameCost  = 144
	headerValueCost = 32
	scheduleCost    = 32 // a scheduleItem of 24 bytes, and the runtime's rounding up
)

func costOfPlant(name, tag string) int64 { return plantCost + int64(len(name)+len(tag)) }

func costOfHeader(h http.Header) int64 {
	var n int64
	for name, values := range h {
		n += headerNameCost + int64(len(name))
		for _, v := range values {
			n += headerValueCost + int64(len(v))
		}
	}
	return n
}

// costOfRequest is what the journal entry r, as kept, costs.
func costOfRequest(r *Request) int64 {
	n := requestCost + int64(len(r.Method)+len(r.Path)+len(r.Body)+len(r.Plant.Name)+len(r.Plant.Tag)+len(r.RequestID))
	if r.Invalid != nil {
		n += int64(len(r.Invalid.Message))
	}
	return n + costOfHeader(r.Header)
}

// costOfSchedule is what s costs: its items, and the fault of each kind.
func costOfSchedule(s schedule) int64 {
	n := scheduleCost * int64(len(s))
	kinds := map[*Fault]bool{}
	for _, it := range s {
		if !kinds[it.fault] {
			kinds[it.fault] = true
			n += costOfFault(it.fault)
		}
	}
	return n
}

func costOfFault(f *Fault) int64 {
	return faultCost + int64(len(f.Body)+2*len(f.Note)) + costOfHeader(f.Header)
}

// account is what one part of a Handler (its store, journal, faults or
// schedule) holds of the Handler's Budget. Its zero value has no Budget
// and takes everything. The Handler's mu guards it.
type account struct {
	budget *Budget // nil without one, and once closed
	held   int64
}

// take takes n bytes, or gives back -n. A positive n that does not fit is
// not taken, and the error, under errors.Is [ErrStoreFull], says so.
func (a *account) take(n int64) error {
	if a.budget == nil {
		return nil
	}
	for {
		used := a.budget.used.Load()
		if n > 0 && used+n > a.budget.limit {
			return fmt.Errorf("%w: %s", ErrStoreFull, a.full(n))
		}
		if a.budget.used.CompareAndSwap(used, used+n) {
			a.held += n
			return nil
		}
	}
}

// full says that need bytes more do not fit, after "the store is full: ".
func (a *account) full(need int64) string {
	return fmt.Sprintf("keeping this takes %d bytes, and the plants, journals, faults and schedules of every store sharing its budget "+
		"already hold %d of the %d bytes that WithBudget (plantstore-mock: -max-stored-mib) allows",
		need, a.budget.Used(), a.budget.limit)
}

// release gives back all a holds; close does, and takes nothing after.
func (a *account) release() { _ = a.take(-a.held) }
func (a *account) close()   { a.release(); a.budget = nil }

// ErrStoreFull is the error, under errors.Is, of [Handler.AddFault] and
// [Handler.SetSchedule] for a fault or schedule that its [Budget] has no
// room for.
var ErrStoreFull = errors.New("plantstoretest: the store is full")

// storeFullReply is the refusal of a request for err, which says what is full.
func storeFullReply(err error) *reply {
	return refuse(storeFull, ErrorBody{Code: CodeStoreFull, Message: strings.TrimPrefix(err.Error(), "plantstoretest: ")})
}
