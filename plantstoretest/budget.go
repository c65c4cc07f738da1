package plantstoretest

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
)

// A Budget bounds the bytes that the Handlers sharing it keep, all
// together: their stored plants, their journals and their injected faults,
// so that a process that serves many Handlers, such as cmd/plantstore-mock
// with its namespaces, has one bound on its memory. Give it to each Handler
// with [WithBudget]. It is safe for concurrent use.
//
// A Handler counts, exactly and without looking at the runtime:
//
//   - a plant as 128 bytes, plus its name and tag;
//   - a journal entry ([Request]) as 512 bytes, plus its method, path,
//     body, plant name and tag, request id and error message as kept, and
//     its headers;
//   - a fault as 512 bytes, plus its body, its headers and twice its Note
//     (what its Match keeps is not seen);
//   - headers as 144 bytes a name, plus the name, and 32 bytes a value,
//     plus the value.
//
// That is at least what the Go heap holds for them (0.25 to 0.7 of it,
// measured), so a full Budget bounds the live heap; the process's memory
// adds the garbage collector's headroom, up to as much again. A create, a
// [Handler.Seed], a fault or a request's journal entry that would take the
// Budget past its limit is refused with [CodeStoreFull] (or [ErrStoreFull]
// from [Handler.AddFault]). Room comes back when the plants, requests or
// faults go: [Handler.Reset], [Handler.ClearRequests], [Handler.ClearFaults],
// a journal entry pushed out by [WithJournalLimit], a fault used up, and
// [Handler.Close], which gives back all a Handler holds.
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

// Limit returns the bytes b allows.
func (b *Budget) Limit() int64 { return b.limit }

// take takes n bytes of b, or gives back -n, and reports whether it did: a
// positive n that does not fit is not taken.
func (b *Budget) take(n int64) bool {
	for {
		used := b.used.Load()
		if n > 0 && used+n > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// WithBudget makes the Handler keep its plants, journal and faults within
// b, which other Handlers may share; see [Budget]. The default is no
// Budget, and a nil b is none.
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
)

// kept is what a Handler holds of its Budget, by kind, so that each kind is
// given back when it goes.
type kept struct{ plants, journal, faults int64 }

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

func costOfFault(f *Fault) int64 {
	return faultCost + int64(len(f.Body)+2*len(f.Note)) + costOfHeader(f.Header)
}

// charge takes n bytes of h's Budget for what *k counts, or gives back -n,
// and reports whether it did; without a Budget it always does. h.mu must
// be held.
func (h *Handler) charge(k *int64, n int64) bool {
	if h.budget == nil {
		return true
	}
	if !h.budget.take(n) {
		return false
	}
	*k += n
	return true
}

// giveBack gives back all that *k counts of h's Budget. h.mu must be held.
func (h *Handler) giveBack(k *int64) { h.charge(k, -*k) }

// ErrStoreFull is the error, under errors.Is, of [Handler.AddFault] for a
// fault that its [Budget] has no room for.
var ErrStoreFull = errors.New("plantstoretest: the store is full")

// budgetFull says that need bytes more do not fit in h's Budget, after
// "the store is full: ". h.mu must be held.
func (h *Handler) budgetFull(need int64) string {
	return fmt.Sprintf("keeping this takes %d bytes, and the plants, journals and faults of every store sharing its budget "+
		"already hold %d of the %d bytes that WithBudget (plantstore-mock: -max-stored-mib) allows",
		need, h.budget.Used(), h.budget.limit)
}

// budgetFullReply is the refusal of a request that need bytes more do not
// fit in h's Budget. h.mu must be held.
func (h *Handler) budgetFullReply(need int64) *reply {
	msg := "the store is full: " + h.budgetFull(need)
	return refuse(storeFull, ErrorBody{Code: CodeStoreFull, Message: msg})
}
