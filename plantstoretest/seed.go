package plantstoretest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
)

// SeedError is the error of [Handler.Seed] and [Handler.SeedJSON]: the
// first plant that failed its checks, and what POST /plants would have
// answered for it. Nothing was stored.
type SeedError struct {
	// Index is the 0-based index of the first bad plant, or -1 when the
	// input as a whole is malformed (SeedJSON's input is not a JSON array).
	Index int
	// Body is the error body POST /plants would have answered the plant
	// with, as in a reply: [CodeInvalidPlant] for an empty name,
	// [CodeDuplicateID] for an id already stored or repeated in the batch,
	// [CodeStoreFull] past [WithMaxPlants], a [WithRule] rule's own body,
	// and so on.
	Body ErrorBody
}

// Error returns "plantstoretest: seed: plant 3: " followed by Body's
// message, where 3 is the Index; or, for the input as a whole,
// "plantstoretest: seed: " and the message.
func (e *SeedError) Error() string {
	if e.Index < 0 {
		return "plantstoretest: seed: " + e.Body.Message
	}
	return fmt.Sprintf("plantstoretest: seed: plant %d: %s", e.Index, e.Body.Message)
}

// Seed stores plants, in order, after those already stored, as if each had
// been created with POST /plants: all of them or, when one fails its
// checks, none. Each is checked as POST /plants checks a decoded plant: its
// name must be non-empty and, like its tag, valid UTF-8; the [WithRule]
// rules must accept it; its id must be neither stored already nor repeated
// within plants, unless [WithAllowDuplicateIDs] is set; and the store must
// have room for it under [WithMaxPlants]. The error is a [*SeedError]
// naming the first plant that failed. Seeding records no requests and uses
// up no faults; it is safe for concurrent use, and atomic with respect to
// requests being served. The plants are copied.
func (h *Handler) Seed(plants []plantstore.NewPlant) error {
	for i, p := range plants {
		if e := h.checkPlant(p); e != nil {
			return &SeedError{Index: i, Body: *e}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seed(plants)
}

// SeedJSON is [Handler.Seed] for a JSON array of plants, such as the file
// given to cmd/plantstore-mock -seed. Each element is decoded exactly as a
// POST /plants body is (an object with an integer-literal id and a
// non-empty name, a string tag if any, no repeated fields, at most 1 MiB;
// see [Handler]), then checked as Seed checks it. All or nothing: the
// error is a [*SeedError] naming the first bad element, or with Index -1
// when data is not a JSON array.
func (h *Handler) SeedJSON(data []byte) error {
	plants, err := decodeSeed(data)
	if err != nil {
		return err
	}
	return h.Seed(plants)
}

// decodeSeed decodes a JSON array of plants, each element as a POST /plants
// body.
func decodeSeed(data []byte) ([]plantstore.NewPlant, error) {
	whole := func(e *ErrorBody) error { return &SeedError{Index: -1, Body: *e} }
	if !json.Valid(data) {
		e := syntaxError(data)
		e.Message = "want a JSON array of plants: " + e.Message
		return nil, whole(e)
	}
	if v := data[skipSpace(data, 0):]; v[0] != '[' {
		return nil, whole(invalidJSON("want a JSON array of plants, got %s", kindOf(v)))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // the '[', which json.Valid saw
		return nil, whole(invalidJSON("reading the array: %v", err))
	}
	var plants []plantstore.NewPlant
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &SeedError{Index: i, Body: *invalidJSON("%v", err)}
		}
		if len(raw) > maxBodyBytes {
			return nil, &SeedError{Index: i, Body: ErrorBody{Code: CodeTooLarge,
				Message: fmt.Sprintf("plant is larger than %d bytes, the most POST /plants accepts", maxBodyBytes)}}
		}
		p, e := decodePlant(raw)
		if e != nil {
			return nil, &SeedError{Index: i, Body: *e}
		}
		plants = append(plants, p)
	}
	return plants, nil
}

// checkPlant runs the stateless checks of POST /plants on a plant that did
// not come as JSON.
func (h *Handler) checkPlant(p plantstore.NewPlant) *ErrorBody {
	switch {
	case p.Name == "":
		return invalidPlant("name must not be empty")
	case !utf8.ValidString(p.Name):
		return invalidJSON("name is not valid UTF-8 (at byte %d)", invalidUTF8([]byte(p.Name)))
	case !utf8.ValidString(p.Tag):
		return invalidJSON("tag is not valid UTF-8 (at byte %d)", invalidUTF8([]byte(p.Tag)))
	}
	for _, rule := range h.rules {
		if rej := h.applyRule(rule, p); rej != nil {
			return &rej.body
		}
	}
	return nil
}

// seed stores plants, which passed checkPlant, if their ids and the room
// in the store allow, and otherwise stores nothing. h.mu must be held.
func (h *Handler) seed(plants []plantstore.NewPlant) error {
	var batch map[int64]int // id → index, for duplicates within plants
	if h.ids != nil {
		batch = make(map[int64]int, len(plants))
	}
	for i, p := range plants {
		if h.ids != nil {
			if _, dup := h.ids[p.ID]; dup {
				return &SeedError{Index: i, Body: ErrorBody{Code: CodeDuplicateID, Message: duplicateMessage(p.ID)}}
			}
			if j, dup := batch[p.ID]; dup {
				return &SeedError{Index: i, Body: ErrorBody{Code: CodeDuplicateID,
					Message: fmt.Sprintf("plant %d appears twice, at index %d and %d", p.ID, j, i)}}
			}
			batch[p.ID] = i
		}
		if len(h.plants)+i >= h.maxPlants {
			return &SeedError{Index: i, Body: ErrorBody{Code: CodeStoreFull, Message: h.storeFullMessage()}}
		}
	}
	h.plants = append(h.plants, plants...)
	for _, p := range plants {
		if h.ids != nil {
			h.ids[p.ID] = struct{}{}
		}
	}
	return nil
}
