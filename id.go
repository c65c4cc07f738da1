package plantstore

import (
	"crypto/rand"
	"crypto/sha256"
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

// IDFor returns the plant id for key, the caller's own idempotency key
// for one plant (an order's number, a queue message's id): the same key
// gives the same id in every process, on every platform and in every
// version of this module, so a process that restarts between a create
// whose outcome is unknown and its settle sends the same id again. It is
// the first 63 bits of key's SHA-256 (under a prefix of this function's
// own), positive, so ids from distinct keys collide with the odds of
// [NewID]'s: about 5 × 10⁻⁸ among a million keys.
//
// A derived id is wrong when a key is reused for a different plant: the
// second create is refused as a repeated id, and [Client.EnsurePlant]
// reads that answer as its own plant stored and returns nil, though the
// plant stored is the first. Use one key per plant, in a namespace of the
// caller's ("orders/17", not "17"), and [NewID] when there is no such key.
func IDFor(key string) int64 {
	sum := sha256.Sum256([]byte("plantstore.IDFor\x00" + key))
	return max(int64(binary.BigEndian.Uint64(sum[:8])>>1), 1)
}
