package strictjson

import "bytes"

// NameSet is the set of field names seen so far in an object. It compares
// the first few names directly, which for the fields of a plant is cheaper
// than a map and allocates nothing, and moves to a map past those, so that
// an object with many thousands of fields still takes linear time.
type NameSet struct {
	few  [8][]byte
	n    int                 // names in few
	many map[string]struct{} // every name, once few is full
}

// Add adds name to s and reports whether it was there already.
func (s *NameSet) Add(name []byte) (dup bool) {
	if s.many == nil {
		for _, seen := range s.few[:s.n] {
			if bytes.Equal(seen, name) {
				return true
			}
		}
		if s.n < len(s.few) {
			s.few[s.n] = name
			s.n++
			return false
		}
		s.many = make(map[string]struct{}, 2*len(s.few))
		for _, seen := range s.few {
			s.many[string(seen)] = struct{}{}
		}
	}
	if _, ok := s.many[string(name)]; ok {
		return true
	}
	s.many[string(name)] = struct{}{}
	return false
}
