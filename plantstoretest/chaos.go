package plantstoretest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// chaos makes the random choices of [WithChaos]. The Handler's mutex guards
// it.
type chaos struct {
	fraction float64
	seed     int64
	n        uint64 // decisions made
}

// The faults chaos chooses from, other than delays. They are shared, and
// never modified.
var (
	chaos503 = &Fault{
		Status: http.StatusServiceUnavailable,
		Header: http.Header{"Retry-After": {"1"}},
		Body:   chaosBody(http.StatusServiceUnavailable),
	}
	chaos502       = &Fault{Status: http.StatusBadGateway, Body: chaosBody(http.StatusBadGateway)}
	chaosDrop      = &Fault{Drop: true}
	chaosStoreDrop = &Fault{Store: true, Drop: true}
)

func chaosBody(status int) []byte {
	b, _ := json.Marshal(ErrorBody{Code: CodeFault, Message: fmt.Sprintf("chaos: %d %s", status, http.StatusText(status))})
	return b
}

// The range of the delays chaos chooses.
const (
	chaosMinDelay = 10 * time.Millisecond
	chaosMaxDelay = 500 * time.Millisecond
)

// next makes the next decision: a fault and its description for
// [Request.Fault], or nil and "" to let the request through. The i-th
// decision depends on the seed and i only.
func (c *chaos) next() (*Fault, string) {
	c.n++
	x := mix64(uint64(c.seed) ^ mix64(c.n))
	if float64(x>>11)/(1<<53) >= c.fraction { // uniform in [0, 1)
		return nil, ""
	}
	y := mix64(x)
	switch y % 5 {
	case 0:
		return chaos503, "chaos: 503 Retry-After"
	case 1:
		return chaos502, "chaos: 502"
	case 2:
		return chaosDrop, "chaos: drop"
	case 3:
		return chaosStoreDrop, "chaos: store then drop"
	default:
		steps := uint64((chaosMaxDelay-chaosMinDelay)/time.Millisecond) + 1
		d := chaosMinDelay + time.Duration((y/5)%steps)*time.Millisecond
		return &Fault{Delay: d}, "chaos: delay " + d.String()
	}
}

// mix64 is the finalizer of SplitMix64: a bijection of uint64 whose output
// bits each depend on every input bit.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
