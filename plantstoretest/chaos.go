package plantstoretest

import "time"

// chaos makes [WithChaos]'s choices, guarded by the Handler's mutex.
type chaos struct {
	fraction float64
	draws    draws
}

// chaosFaults are the faults chaos chooses, but delays: shared, never
// modified.
var chaosFaults = [...]*Fault{mustFault("503"), mustFault("502"), mustFault("drop"), mustFault("store-drop")}

// The range of the delays chaos chooses.
const (
	chaosMinDelay = 10 * time.Millisecond
	chaosMaxDelay = 500 * time.Millisecond
)

// place is chaos as a fault source (see [Handler.decide]): its next
// decision, a fault or none.
func (c *chaos) place(*Handler, Request) (*Fault, string) {
	x := c.draws.next()
	if uniform(x) >= c.fraction {
		return nil, ""
	}
	y := mix64(x)
	if i := y % 5; i < uint64(len(chaosFaults)) {
		return chaosFaults[i], "chaos"
	}
	steps := uint64((chaosMaxDelay-chaosMinDelay)/time.Millisecond) + 1
	return &Fault{Delay: chaosMinDelay + time.Duration((y/5)%steps)*time.Millisecond}, "chaos"
}

// draws are the pseudo-random numbers [chaos] and [replay] decide by: the
// i-th decision's depend on the seed and i only, so concurrent requests
// take the seed's fates in the order they reach the decision.
type draws struct {
	seed uint64
	n    uint64 // decisions made
}

// next starts the next decision and returns its first 64 random bits;
// mix64 of them gives the next 64.
func (d *draws) next() uint64 {
	d.n++
	return mix64(d.seed ^ mix64(d.n))
}

// uniform maps x's top 53 bits to a float64 uniform in [0, 1).
func uniform(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// mix64 is the finalizer of SplitMix64: a bijection of uint64 whose output
// bits each depend on every input bit.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
