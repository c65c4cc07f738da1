package wire

import (
	"errors"
	"strconv"
	"time"
)

// MaxDurationText is the longest duration text a peer may send: Go writes
// the longest Duration in 25 characters ("-2562047h47m16.854775808s").
const MaxDurationText = 64

// errLongDuration refuses a duration text over MaxDurationText.
var errLongDuration = errors.New("a duration has at most " + strconv.Itoa(MaxDurationText) + " characters")

// ParseDuration is [time.ParseDuration] for a peer's text, which it
// refuses unread if it is longer than MaxDurationText: the error of a text
// that does not parse quotes it whole, twice its size.
func ParseDuration(text string) (time.Duration, error) {
	if len(text) > MaxDurationText {
		return 0, errLongDuration
	}
	return time.ParseDuration(text)
}
