package mockserver

import "time"

// A namespace's lifecycle, without locks: requests in flight and the end
// in one atomic word, the last use in another, a timer for the ttl.

const endedBit = 1 << 62

// reserve takes a place for a new namespace, or reports that
// -max-namespaces live.
func (n *namespaces) reserve() bool {
	for {
		live := n.live.Load()
		if live >= int64(n.Max) {
			return false
		}
		if n.live.CompareAndSwap(live, live+1) {
			return true
		}
	}
}

// enter notes a request to ns starting now, or reports that ns has ended.
// Each enter that succeeds is followed by a leave.
func (n *namespaces) enter(ns *namespace) bool {
	if ns.state.Add(1)&endedBit != 0 {
		ns.state.Add(-1)
		return false
	}
	ns.touch(n.now())
	return true
}

// leave notes the end of a request to ns: its ttl starts again.
func (n *namespaces) leave(ns *namespace) {
	ns.touch(n.now())
	ns.state.Add(-1)
}

// touch notes that ns was used at now, to the millisecond: a busy
// namespace writes its clock once a millisecond at most.
func (ns *namespace) touch(now time.Time) {
	t := now.UnixNano()
	if t-ns.lastUsed.Load() >= int64(time.Millisecond) {
		ns.lastUsed.Store(t)
	}
}

// expire ends ns if it is idle past its ttl at now, with no request in
// flight, and reports whether it did.
func (n *namespaces) expire(ns *namespace, now time.Time) bool {
	if now.UnixNano()-ns.lastUsed.Load() <= int64(ns.ttl) || !ns.state.CompareAndSwap(0, endedBit) {
		return false
	}
	n.forget(ns)
	return true
}

// alive returns ns, or nil if it has ended or is idle past its ttl (which
// ends it).
func (n *namespaces) alive(ns *namespace) *namespace {
	if ns == nil || ns.state.Load()&endedBit != 0 || n.expire(ns, n.now()) {
		return nil
	}
	return ns
}

// end ends ns at once, requests in flight or not, and reports whether this
// call ended it.
func (n *namespaces) end(ns *namespace) bool {
	if ns.state.Or(endedBit)&endedBit != 0 {
		return false
	}
	n.forget(ns)
	return true
}

// forget drops ns, which has just ended: its held requests are released,
// and its memory is the garbage collector's.
func (n *namespaces) forget(ns *namespace) {
	n.byID.CompareAndDelete(ns.id, ns)
	n.byToken.CompareAndDelete(ns.tokenHash, ns)
	n.live.Add(-1)
	ns.timer.Load().Stop()
	ns.srv.fake.Close()
}

// watch ends ns after d if it is idle by then, and otherwise looks again
// when its ttl will have run out, so that an idle namespace's memory is
// given back whether or not anyone asks for it.
func (n *namespaces) watch(ns *namespace, d time.Duration) {
	t := time.AfterFunc(d, func() {
		now := n.now()
		if n.expire(ns, now) || ns.state.Load()&endedBit != 0 {
			return
		}
		left := time.Duration(ns.lastUsed.Load() + int64(ns.ttl) - now.UnixNano())
		if left <= 0 {
			left = ns.ttl // a request in flight: its end restarts the clock
		}
		n.watch(ns, left+time.Millisecond)
	})
	ns.timer.Store(t)
	if ns.state.Load()&endedBit != 0 {
		t.Stop() // it ended meanwhile, and forget may have stopped the timer before
	}
}
