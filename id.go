package plantstore

import (
	"crypto/rand"
	"encoding/binary"
)

// NewID returns a new plant id for [NewPlant]: a positive int64 of 63 bits
// from crypto/rand. Draw one for each plant you mean to create, and keep
// it across every retry and settle of that create: an id the service has
// stored then names your plant. Among a million ids two collide with odds
// of about 5 × 10⁻⁸ (n²/2⁶⁴), wherever and by whom they were drawn, where
// ids from the clock collide whenever two writers share a millisecond. It
// is safe for concurrent use.
func NewID() int64 {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			// Go 1.24 and later never return one; before, only a system
			// without a random source does.
			panic("plantstore: NewID: crypto/rand: " + err.Error())
		}
		if id := int64(binary.LittleEndian.Uint64(b[:]) >> 1); id > 0 {
			return id
		}
	}
}
