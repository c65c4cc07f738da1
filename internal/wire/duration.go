package wire

import "time"

// MaxDurationText is the longest duration text a peer may send: Go writes
// the longest Duration in 25 characters ("-2562047h47m16.854775808s").
const MaxDurationText = 64

// ParseDuration is [time.ParseDuration] for a peer's text, reporting only
// whether it parsed: a text longer than MaxDurationText is refused unread,
// for the error of one that does not parse quotes it whole, twice its size.
func ParseDuration(text string) (time.Duration, bool) {
	if len(text) > MaxDurationText {
		return 0, false
	}
	d, err := time.ParseDuration(text)
	return d, err == nil
}
