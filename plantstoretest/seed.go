package plantstoretest

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/plantstore/plantstore-go"
	"github.com/plantstore/plantstore-go/internal/strictjson"
)

// SeedError is the error of [Handler.Seed] and [Handler.SeedJSON]: the
// first plant that failed its checks. Nothing was stored.
type SeedError struct {
	// Index is the index of the first bad plant, from 0, or -1 when SeedJSON's
	// input is not a JSON array.
	Index int
	// Body is what POST /plants would have answered, such as
	// [CodeDuplicateID] for an id stored or repeated in the batch; an
	// offset in its message counts from the start of SeedJSON's input.
	Body ErrorBody
}

// Error returns "plantstoretest: seed: plant 3: " (no "plant 3: " for
// Index -1) and Body's message.
func (e *SeedError) Error() string {
	if e.Index < 0 {
		return "plantstoretest: seed: " + e.Body.Message
	}
	return fmt.Sprintf("plantstoretest: seed: plant %d: %s", e.Index, e.Body.Message)
}

// Seed stores plants after those stored, in order: all of them or, when
// one fails the checks POST /plants makes of a decoded plant, none: a
// non-empty name and valid UTF-8, the [WithRule] rules, an id neither
// stored nor repeated (unless [WithAllowDuplicateIDs]) and room in the
// store ([WithMaxPlants], [WithBudget]). The error is a [*SeedError].
// Seeding records no requests, uses up no faults, and is atomic with
// respect to requests being served. The plants are copied.
func (h *Handler) Seed(plants []plantstore.NewPlant) error {
	return h.seed(plants, false)
}

// SeedJSON is [Handler.Seed] for a JSON array of plants, such as
// plantstore-mock -seed's file, each decoded as a POST /plants body; it
// returns how many it stored.
func (h *Handler) SeedJSON(data []byte) (int, error) {
	plants, err := decodeSeed(data)
	if err != nil {
		return 0, err
	}
	if err := h.seed(plants, true); err != nil {
		return 0, err
	}
	return len(plants), nil
}

// decodeSeed decodes a JSON array of plants, each as a POST /plants body,
// checking them all before it allocates, so its memory follows what it
// keeps.
func decodeSeed(data []byte) ([]plantstore.NewPlant, error) {
	if err := strictjson.Valid(data, (*[]json.RawMessage)(nil)); err != nil {
		return nil, &SeedError{Index: -1, Body: ErrorBody{Code: CodeInvalidJSON, Message: err.Error()}}
	}
	start := strictjson.SkipSpace(data, 0)
	// Once to check each element, and count them; once more to keep them.
	n := 0
	err := eachElement(data, start, func(index, i, end int) error {
		if end-i > maxBodyBytes {
			return &SeedError{Index: index, Body: ErrorBody{Code: CodeTooLarge,
				Message: fmt.Sprintf("plant is larger than %d bytes, the most POST /plants accepts", maxBodyBytes)}}
		}
		if _, e := decodePlantAt(data, i, end); e != nil {
			return &SeedError{Index: index, Body: *e}
		}
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	plants := make([]plantstore.NewPlant, 0, n)
	_ = eachElement(data, start, func(_, i, end int) error {
		p, _ := decodePlantAt(data, i, end) // checked above
		plants = append(plants, p)
		return nil
	})
	return plants, nil
}

// eachElement calls f with the index and the offsets of each element of the
// array at data[start], which strictjson.Valid accepted, until f returns an
// error.
func eachElement(data []byte, start int, f func(n, i, end int) error) error {
	i := strictjson.SkipSpace(data, start+1) // after the opening bracket
	for n := 0; data[i] != ']'; n++ {
		end := strictjson.SkipValue(data, i)
		if err := f(n, i, end); err != nil {
			return err
		}
		i = strictjson.SkipSpace(data, end)
		if data[i] == ',' {
			i = strictjson.SkipSpace(data, i+1)
		}
	}
	return nil
}

// checkPlant runs the stateless checks of POST /plants on a plant that did
// not come as JSON.
func (h *Handler) checkPlant(p plantstore.NewPlant) *ErrorBody {
	switch {
	case p.Name == "":
		return invalidPlant("name must not be empty")
	case !utf8.ValidString(p.Name):
		return invalidJSON("name is not valid UTF-8 (at byte %d)", strictjson.InvalidUTF8([]byte(p.Name)))
	case !utf8.ValidString(p.Tag):
		return invalidJSON("tag is not valid UTF-8 (at byte %d)", strictjson.InvalidUTF8([]byte(p.Tag)))
	}
	if rej := h.applyRules(p); rej != nil {
		return rej.body
	}
	return nil
}

// seed is [Handler.Seed], with owned as [store.seed] takes it.
func (h *Handler) seed(plants []plantstore.NewPlant, owned bool) error {
	for i, p := range plants {
		if e := h.checkPlant(p); e != nil {
			return &SeedError{Index: i, Body: *e}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.store.seed(plants, owned)
}
