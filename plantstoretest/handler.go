package plantstoretest

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore-go"
)

// Handler is the fake Plant Store as an http.Handler, for tests that mount
// it in a server of their own; [NewServer] serves one for you. It answers
// requests as the package documentation says, against state of its own,
// and is safe for concurrent use. Create one with [NewHandler]; the zero
// Handler is not usable.
type Handler struct {
	cfg     *config          // as the options built it
	routes  []route          // the route table, and the routes tests add
	sources []faultSource    // in [Fault]'s order; see decide
	now     func() time.Time // time.Now, but for tests of the rate limit

	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu      sync.Mutex
	gen     int           // counts Resets, so a request held across one leaves no trace
	sched   scheduleState // WithSchedule or SetSchedule
	store   store
	journal journal
	faults  faultQueue
	lives   lives // the code under test's process, which a Crash kills (see Server.Disk)
}

// NewHandler returns a fake Plant Store with no plants stored (or those of
// [WithPlants]). It panics on an invalid [Option], and on [WithTLS],
// [WithHTTP2], [WithInMemoryNetwork] and [WithLogging], which only a server
// can honour.
// Call [Handler.Close] before shutting down the server it is mounted in.
func NewHandler(opts ...Option) *Handler {
	c := newConfig(opts)
	serverOnly := []struct {
		option string
		set    bool
	}{{"WithTLS", c.tls}, {"WithHTTP2", c.http2}, {"WithInMemoryNetwork", c.inMemory}, {"WithLogging", c.logToTB}}
	for _, o := range serverOnly {
		if o.set {
			panic("plantstoretest: NewHandler: " + o.option + " is an option of NewServer only: " +
				"TLS, the network and logging through a test belong to the server a Handler is mounted in (use WithLogger to log)")
		}
	}
	return newHandler(c)
}

// newHandler builds the Handler c describes, reporting an invalid option,
// such as a bad plant of WithPlants, as misuse.
func newHandler(c *config) *Handler {
	if c.tb != nil {
		c.tb.Helper()
	}
	if err := c.check(); err != nil {
		c.misuse(err.Error())
	}
	h := &Handler{
		cfg:     c,
		routes:  append(routes[:len(routes):len(routes)], c.routes...),
		now:     time.Now,
		done:    make(chan struct{}),
		store:   newStore(c.maxPlants, c.allowDupIDs, c.budget),
		journal: journal{max: -1, bodyLimit: c.bodyLimit, account: account{budget: c.budget}},
		faults:  faultQueue{account: account{budget: c.budget}},
		sched:   scheduleState{account: account{budget: c.budget}},
	}
	if c.maxRequests != nil {
		h.journal.max = *c.maxRequests
	}
	if c.rateN > 0 {
		h.sources = append(h.sources, newRateLimiter(c.rateN, c.ratePer))
	}
	h.sources = append(h.sources, &h.faults, &h.sched)
	if c.chaos > 0 {
		h.sources = append(h.sources, &chaos{fraction: c.chaos, draws: draws{seed: uint64(c.chaosSeed)}})
	}
	if c.profile != nil && c.profile.Traffic != nil {
		h.sources = append(h.sources, newReplay(c.profile.Traffic, c.chaosSeed))
	}
	if err := h.sched.set(c.schedule, 0); err != nil {
		c.misuse("plantstoretest: WithSchedule: " + strings.TrimPrefix(err.Error(), "plantstoretest: "))
	}
	if err := h.Seed(c.plants); err != nil {
		c.misuse("plantstoretest: WithPlants: " + strings.TrimPrefix(err.Error(), "plantstoretest: seed: "))
	}
	c.plants, c.schedule = nil, nil // the store and sched keep them, within the Budget
	return h
}

// Plants returns the stored plants in the order they arrived. The slice is a
// copy that the caller may modify.
func (h *Handler) Plants() []plantstore.NewPlant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]plantstore.NewPlant(nil), h.store.plants...)
}

// Reset forgets the stored plants and does what [Handler.ClearRequests]
// and [Handler.ClearFaults] do, so that subtests can share a server. A
// request held by a [Fault]'s Delay across Reset is answered as it would
// have been, but stores nothing. The states of [WithRateLimit],
// [WithSchedule], [WithChaos] and the replay of a [Profile]'s Traffic go
// on, as does a crash until [Server.Restart].
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.store.clear()
	h.journal.clear()
	h.faults.clear()
}

// Close releases every request held by a [Fault] with Hang or Delay, by
// dropping its connection, so that http.Server.Shutdown does not wait for
// them; later, hangs and delays end at once. It gives back all the Handler
// holds of its [Budget], which no longer counts what it keeps after. Close
// does not stop a server the Handler is mounted in, and may be called more
// than once.
func (h *Handler) Close() {
	h.closeOnce.Do(func() {
		close(h.done)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.store.close()
		h.journal.close()
		h.faults.close()
		h.sched.close()
	})
}

// ServeHTTP answers r as the package documentation says.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, body, readErr := h.arrival(r)
	var ans answer // ans.seq is 0 until decide records the request
	status := 0    // written; 0 if none, when the connection is dropped
	var d time.Duration
	defer func() {
		if status == 0 { // dropped: no reply began, or a callback panicked (see callback)
			d = h.dropped(req, ans.seq)
		}
		h.logRequest(r, status, ans.fault, d)
	}()
	op, in, rej := h.route(r)
	if rej == nil {
		in.plant, rej = h.check(op, r, body, readErr)
	}
	h.decide(&ans, req, op, in, rej)
	rep, extra := ans.rep, http.Header(nil)
	if f := ans.scripted; f != nil {
		rep, extra = h.act(w, r, f, ans.by, rep), f.Header
	}
	if rep.status == 0 { // a valid request under a Fault without Store or Status: served after it, unless Reset ran meanwhile
		h.mu.Lock()
		in.seq = ans.seq
		rep = op.serve(h, in, h.gen == ans.gen)
		h.mu.Unlock()
	}
	status, d = h.send(w, rep, extra, ans.seq, req.Time)
	// Only a reply a fault held can have outlived the server's write
	// timeout: flushing any other would hand it to the client before the
	// request is logged. ans.seq is 0 when the journal had no room.
	if held := ans.scripted != nil && ans.scripted.Delay > 0; held && ans.seq != 0 && !delivered(w, r) {
		status = 0 // the deferred call records the drop
	}
}

// answer is what [Handler.decide] decided for a request.
type answer struct {
	seq      uint64 // the request's Seq
	gen      int    // the state's generation (see [Handler.Reset])
	scripted *Fault // the fault to act out, or nil to send rep
	by       string // the source that placed it, as in Request.Fault
	fault    string // Request.Fault
	rep      reply  // the reply, once worked out (status 0 until then): the operation done, or its refusal
}

// A faultSource places faults on requests; decide asks each, under h.mu.
type faultSource interface {
	// place returns the fault for req, numbered, and the source's name for
	// [Request.Fault], or nil. A fault with no name is no fault to record:
	// the recorded latency of a success.
	place(h *Handler, req Request) (f *Fault, by string)
}

// decide numbers and records req, with the plant in or the refusal rej,
// and decides in ans who answers it: the journal's [Budget] (see
// journal.enter), the first fault source to place a fault, or the fake
// itself, which then serves it with op, as it does for a fault with Store.
func (h *Handler) decide(ans *answer, req Request, op *operation, in input, rej *reply) {
	if rej == nil {
		req.Plant = in.plant
	} else {
		req.Invalid = rej.body
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	entry, err := h.journal.enter(req)
	if err != nil {
		ans.rep = *storeFullReply(err)
		return
	}
	req.Seq, in.seq = entry.Seq, entry.Seq
	ans.seq, ans.gen = entry.Seq, h.gen
	defer func() { // also when a Match panics, under NewHandler
		entry.Fault, entry.Duplicate = ans.fault, ans.rep.duplicate
		h.journal.record(entry)
	}()
	for _, src := range h.sources {
		if ans.scripted, ans.by = src.place(h, req); ans.scripted != nil {
			break
		}
	}
	if ans.scripted != nil && ans.scripted.Crash {
		h.lives.crash()
	}
	if ans.by != "" {
		ans.fault = ans.by + " " + strconv.FormatUint(req.Seq, 10) + ":" + ans.scripted.String()
	}
	switch {
	case rej != nil:
		ans.rep = *rej
	case ans.scripted == nil || ans.scripted.Store:
		ans.rep = op.serve(h, in, true)
	}
}
