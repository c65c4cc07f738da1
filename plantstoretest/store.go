package plantstoretest

import (
	"fmt"
	"slices"

	"github.com/plantstore/plantstore-go"
)

// store is the Handler's plants and their share of its Budget, guarded by
// the Handler's mu.
type store struct {
	plants []plantstore.NewPlant
	ids    map[int64]stored // the ids in plants; nil under WithAllowDuplicateIDs
	max    int              // WithMaxPlants
	account
}

func newStore(max int, allowDupIDs bool, b *Budget) store {
	s := store{max: max, account: account{budget: b}}
	if !allowDupIDs {
		s.ids = make(map[int64]stored)
	}
	return s
}

// stored is where an id is stored: the Seq of the create (0 for a seed)
// and the plant's index in plants.
type stored struct {
	seq uint64
	i   int
}

// add stores p, sent by request seq, or returns the refusal: the id is
// taken, or the store or the Budget is full.
func (s *store) add(p plantstore.NewPlant, seq uint64) *reply {
	if at, dup := s.ids[p.ID]; dup { // never under WithAllowDuplicateIDs: ids is nil
		rep := refuse(duplicateID, ErrorBody{Code: CodeDuplicateID, Message: duplicateMessage(p.ID)})
		rep.refused = p
		rep.duplicate = &Duplicate{StoredBy: at.seq, Same: s.plants[at.i] == p}
		return rep
	}
	if len(s.plants) >= s.max {
		return refuse(storeFull, ErrorBody{Code: CodeStoreFull, Message: s.fullMessage()})
	}
	if err := s.take(costOfPlant(p.Name, p.Tag)); err != nil {
		return storeFullReply(err)
	}
	if s.ids != nil {
		s.ids[p.ID] = stored{seq: seq, i: len(s.plants)}
	}
	s.plants = append(s.plants, p)
	return nil
}

// seed stores plants, which passed a create's checks, all or none, or
// returns the [*SeedError] of the first a create would refuse. An empty
// store keeps plants itself, not a copy, when owned says no one else does.
func (s *store) seed(plants []plantstore.NewPlant, owned bool) error {
	cost, err := s.seedCheck(plants)
	for err == nil && s.take(cost) != nil {
		// Other stores took the room seedCheck saw: say where it ends now.
		// Each turn means another store made progress.
		cost, err = s.seedCheck(plants)
	}
	if err != nil {
		return err
	}
	first := len(s.plants)
	if owned && first == 0 {
		s.plants = plants
	} else {
		s.plants = append(s.plants, plants...)
	}
	if s.ids != nil {
		for i, p := range plants {
			s.ids[p.ID] = stored{i: first + i}
		}
	}
	return nil
}

// clear forgets the plants and gives back what they held.
func (s *store) clear() {
	s.plants = nil
	if s.ids != nil {
		s.ids = make(map[int64]stored)
	}
	s.release()
}

// duplicateMessage and fullMessage are a create's refusals, which a seed
// gives too.
func duplicateMessage(id int64) string {
	return fmt.Sprintf("plant %d already exists", id)
}

func (s *store) fullMessage() string {
	return fmt.Sprintf("the store is full: it holds %d plants, the most that WithMaxPlants "+
		"(plantstore-mock: -max-plants) allows", s.max)
}

// seedCheck returns the error for the first of plants that a stored or
// repeated id, or the room in the store or its [Budget], refuses; or else
// what plants cost of the Budget (0 without one).
func (s *store) seedCheck(plants []plantstore.NewPlant) (cost int64, err error) {
	n := max(s.max-len(s.plants), 0) // how many fit
	full := s.fullMessage()
	if s.budget != nil {
		free := s.budget.limit - s.budget.Used()
		for i, p := range plants[:min(n, len(plants))] {
			if cost += costOfPlant(p.Name, p.Tag); cost > free {
				n, full = i, "the store is full: "+s.full(cost)
				break
			}
		}
	}
	// A duplicate id up to the first plant without room comes first.
	if err := s.seedCheckIDs(plants[:min(n+1, len(plants))]); err != nil {
		return 0, err
	}
	if len(plants) > n {
		return 0, &SeedError{Index: n, Body: ErrorBody{Code: CodeStoreFull, Message: full}}
	}
	return cost, nil
}

// seedCheckIDs returns the error for the first of plants whose id is
// stored or repeated, or nil, at 8 bytes a plant, not a map: seeds may be
// large.
func (s *store) seedCheckIDs(plants []plantstore.NewPlant) error {
	if s.ids == nil {
		return nil
	}
	sorted := make([]int64, len(plants))
	for i, p := range plants {
		sorted[i] = p.ID
	}
	slices.Sort(sorted)
	repeated := map[int64]int{} // id → first index, for the ids that repeat
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			repeated[sorted[i]] = -1
		}
	}
	for i, p := range plants {
		if _, dup := s.ids[p.ID]; dup {
			return &SeedError{Index: i, Body: ErrorBody{Code: CodeDuplicateID, Message: duplicateMessage(p.ID)}}
		}
		if j, ok := repeated[p.ID]; ok {
			if j >= 0 {
				return &SeedError{Index: i, Body: ErrorBody{Code: CodeDuplicateID,
					Message: fmt.Sprintf("plant %d appears twice, at index %d and %d", p.ID, j, i)}}
			}
			repeated[p.ID] = i
		}
	}
	return nil
}
