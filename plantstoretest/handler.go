package plantstoretest

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore-go"
)

// Handler is the fake Plant Store as an http.Handler, for tests that mount
// it in a server of their own; [NewServer] serves one for you. It answers
// requests as the package documentation says, against state of its own,
// and is safe for concurrent use. Create one with [NewHandler]; the zero
// Handler is not usable.
type Handler struct {
	token       []byte
	allowDupIDs bool
	maxRequests int // -1 for no limit
	maxPlants   int
	bodyLimit   int // of the bodies in the journal
	rules       []func(plantstore.NewPlant) *ErrorBody
	routes      []route // the route table: routes, and those tests add
	logger      *slog.Logger
	tb          testing.TB       // nil for a Handler from NewHandler
	site        string           // the test's line that called NewServer; see callSite
	logToTB     bool             // WithLogging
	limiter     *rateLimiter     // nil without WithRateLimit
	chaos       *chaos           // nil without WithChaos
	replay      *replay          // nil without a Profile's Traffic
	now         func() time.Time // time.Now, but for tests of the rate limit
	profile     *Profile         // nil without WithProfile

	done      chan struct{} // closed by Close
	closeOnce sync.Once

	mu       sync.Mutex
	gen      int    // counts Resets, so a request held across one leaves no trace
	seq      uint64 // the Seq of the last request recorded
	plants   []plantstore.NewPlant
	ids      map[int64]struct{} // the ids in plants; nil under WithAllowDuplicateIDs
	requests []Request          // the journal: see record
	head     int                // the index of the oldest request in requests
	faults   []*scriptedFault
	faultSeq int     // numbers faults in the order they were injected
	budget   *Budget // WithBudget; nil without one, and once closed
	kept     kept    // what the state above holds of budget
}

// NewHandler returns a fake Plant Store with no plants stored (or those of
// [WithPlants]). It panics on an invalid [Option], and on [WithTLS],
// [WithHTTP2], [WithInMemoryNetwork] and [WithLogging], which only a server
// can honour.
// Call [Handler.Close] before shutting down the server it is mounted in.
func NewHandler(opts ...Option) *Handler {
	c := newConfig(opts)
	if len(c.serverOnly) > 0 {
		panic(fmt.Sprintf("plantstoretest: NewHandler: %s is an option of NewServer only: "+
			"TLS, the network and logging through a test belong to the server a Handler is mounted in (use WithLogger to log)",
			c.serverOnly[0]))
	}
	if err := c.check(); err != nil {
		panic(err.Error())
	}
	return newHandler(c)
}

// newHandler builds the Handler c describes, which c.check accepted, and
// stores the plants of WithPlants, reporting a bad one as misuse.
func newHandler(c *config) *Handler {
	if c.tb != nil {
		c.tb.Helper()
	}
	h := &Handler{
		token:       []byte(c.token),
		allowDupIDs: c.allowDupIDs,
		maxRequests: -1,
		maxPlants:   c.maxPlants,
		bodyLimit:   c.bodyLimit,
		rules:       c.rules,
		routes:      append(routes[:len(routes):len(routes)], c.routes...),
		logger:      c.logger,
		tb:          c.tb,
		site:        c.site,
		logToTB:     c.tb != nil && c.logToTB,
		now:         time.Now,
		profile:     c.profile,
		done:        make(chan struct{}),
		budget:      c.budget,
	}
	if !c.allowDupIDs {
		h.ids = make(map[int64]struct{})
	}
	if c.maxRequests != nil {
		h.maxRequests = *c.maxRequests
	}
	if c.rateN > 0 {
		h.limiter = newRateLimiter(c.rateN, c.ratePer)
	}
	if c.chaos > 0 {
		h.chaos = &chaos{fraction: c.chaos, draws: draws{seed: uint64(c.chaosSeed)}}
	}
	if c.profile != nil && c.profile.Traffic != nil {
		h.replay = newReplay(c.profile.Traffic, c.chaosSeed)
	}
	if len(c.plants) > 0 {
		var seedErr *SeedError
		if err := h.Seed(c.plants); errors.As(err, &seedErr) {
			h.misuse(fmt.Sprintf("plantstoretest: WithPlants: plant %d: %s", seedErr.Index, seedErr.Body.Message))
		}
	}
	return h
}

// misuse reports that the caller used the fake wrongly, as [Option] says:
// each function on the way calls tb.Helper.
func (h *Handler) misuse(msg string) {
	if h.tb == nil {
		panic(msg)
	}
	h.tb.Helper()
	h.tb.Fatalf("%s", msg)
}

// Plants returns the stored plants in the order they arrived. The slice is a
// copy that the caller may modify.
func (h *Handler) Plants() []plantstore.NewPlant {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]plantstore.NewPlant(nil), h.plants...)
}

// Reset forgets the stored plants, the recorded requests and the injected
// faults not yet used (without reporting them), so that subtests can share a
// server. A request held by a [Fault]'s Delay across Reset is answered as it
// would have been, but stores nothing. [Request.Seq] and fault IDs go on
// counting, and the states of [WithRateLimit], [WithChaos] and the replay
// of a [Profile]'s Traffic go on.
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	h.plants = nil
	h.giveBack(&h.kept.plants)
	if h.ids != nil {
		h.ids = make(map[int64]struct{})
	}
	h.clearJournal()
	h.clearFaults()
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
		h.giveBack(&h.kept.plants)
		h.giveBack(&h.kept.journal)
		h.giveBack(&h.kept.faults)
		h.budget = nil
	})
}

// ServeHTTP answers r as the package documentation says.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, body, readErr := h.arrival(r)
	var ans answer // ans.seq is 0 until arrive records the request
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
	h.arrive(&ans, req, op, in, rej)
	rep, extra := ans.rep, http.Header(nil)
	if f := ans.scripted; f != nil {
		rep, extra = h.act(w, r, f, rep), f.Header
	}
	if rep.status == 0 { // a Fault without Store or Status: processed after it, unless Reset ran meanwhile
		h.mu.Lock()
		rep = h.process(op, in, rej, h.gen == ans.gen)
		h.mu.Unlock()
	}
	status, d = h.send(w, rep, extra, ans.seq, req.Time)
}

// process works out the reply to a checked request: its refusal, or what
// op does with in (see [operation]). h.mu must be held.
func (h *Handler) process(op *operation, in input, rej *reply, commit bool) reply {
	if rej != nil {
		return *rej
	}
	return op.serve(h, in, commit)
}
