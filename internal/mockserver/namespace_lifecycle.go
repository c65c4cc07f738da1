package mockserver

import (
	"crypto/sha256"
	"time"
)

// A namespace's lifecycle: the maps that find it, its requests in flight,
// its last use and its end, all under the one mutex of namespaces; a timer
// for the ttl. A lock-free version measured no faster (bench/BENCHMARKS.md,
// issue 26).

// reserve takes a place for a new namespace, or reports that
// -max-namespaces live.
func (n *namespaces) reserve() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.live >= n.Max {
		return false
	}
	n.live++
	return true
}

// add stores ns, which has a place, under its id and its token's hash, and
// starts the clock of its ttl, which runs from ns.lastUsed.
func (n *namespaces) add(ns *namespace) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.byID[ns.id] = ns
	n.byToken[ns.tokenHash] = ns
	ns.timer = time.AfterFunc(ns.ttl+time.Millisecond, func() { n.check(ns) })
}

// any reports whether a namespace is stored.
func (n *namespaces) any() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.live > 0
}

// byIDAlive returns the live namespace of an id, or nil.
func (n *namespaces) byIDAlive(id string) *namespace {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.alive(n.byID[id], n.now())
}

// withToken returns the live namespace whose token is token, or nil.
func (n *namespaces) withToken(token string) *namespace {
	hash := sha256.Sum256([]byte(token))
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.alive(n.byToken[hash], n.now())
}

// each calls f with each live namespace, under the lock: f must not call
// back into n.
func (n *namespaces) each(f func(*namespace)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now()
	for _, ns := range n.byID {
		if n.alive(ns, now) != nil {
			f(ns)
		}
	}
}

// enter notes a request to ns starting now, or reports that ns has ended.
// Each enter that succeeds is followed by a leave.
func (n *namespaces) enter(ns *namespace) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ns.ended {
		return false
	}
	ns.inFlight++
	ns.lastUsed = n.now()
	return true
}

// leave notes the end of a request to ns: its ttl starts again.
func (n *namespaces) leave(ns *namespace) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ns.inFlight--
	ns.lastUsed = n.now()
}

// alive returns ns, or nil if it has ended or is idle past its ttl at now
// (which ends it). n.mu is held.
func (n *namespaces) alive(ns *namespace, now time.Time) *namespace {
	if ns == nil || ns.ended {
		return nil
	}
	if ns.inFlight == 0 && now.Sub(ns.lastUsed) > ns.ttl {
		n.forget(ns)
		return nil
	}
	return ns
}

// end ends ns at once, requests in flight or not, and reports whether this
// call ended it.
func (n *namespaces) end(ns *namespace) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ns.ended {
		return false
	}
	n.forget(ns)
	return true
}

// endAll ends every namespace.
func (n *namespaces) endAll() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ns := range n.byID {
		n.forget(ns)
	}
}

// forget ends ns and drops it: its held requests are released, and its
// memory is the garbage collector's. n.mu is held.
func (n *namespaces) forget(ns *namespace) {
	ns.ended = true
	delete(n.byID, ns.id)
	delete(n.byToken, ns.tokenHash)
	n.live--
	ns.timer.Stop()
	ns.srv.fake.Close()
}

// check runs when ns's ttl may have run out: it ends ns if it is idle,
// and otherwise looks again when the ttl will have run out, so that an
// idle namespace's memory is given back whether or not anyone asks for it.
func (n *namespaces) check(ns *namespace) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.alive(ns, n.now()) == nil {
		return
	}
	left := ns.lastUsed.Add(ns.ttl).Sub(n.now())
	if left <= 0 {
		left = ns.ttl // a request in flight: its leave restarts the clock
	}
	ns.timer.Reset(left + time.Millisecond)
}
