package plantstore

import (
	"crypto/rand"
	"encoding/binary"
)

// NewID returns a new plant id for [NewPlant]: a positive int64 of 63 bits
// from crypto/rand, so that among a million ids, wherever drawn, two
// collide with odds of about 5 × 10⁻⁸. Draw one per plant and keep it
// across every retry of its create ([Client.EnsurePlant]). It is safe for
// concurrent use.
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
