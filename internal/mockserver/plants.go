package mockserver

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/plantstore/plantstore-go/internal/strictjson"
	"github.com/plantstore/plantstore-go/plantstoretest"
)

func (s *Server) listPlants(w http.ResponseWriter, _ *http.Request, _ []byte) (int, *controlError) {
	plants := s.fake.Plants()
	return writeJSONArray(w, len(plants), func(i int) any { return plants[i] }), nil
}

// seedBody is the reply of a successful seed.
type seedBody struct {
	Added int `json:"added"` // how many plants the call stored
}

func (s *Server) seed(w http.ResponseWriter, _ *http.Request, body []byte) (int, *controlError) {
	// The array itself is checked here, so that its errors read like every
	// other control endpoint's; each element is the Handler's to check. No
	// check allocates by the number of elements.
	if err := strictjson.Valid(body, new([]json.RawMessage)); err != nil {
		return 0, invalidJSON("%v", err)
	}
	n, err := s.fake.SeedJSON(body)
	if err != nil {
		return 0, seedError(err)
	}
	return writeJSON(w, http.StatusCreated, seedBody{Added: n}), nil
}

// seedError is the 400 for a seed the Handler refused: the code POST
// /plants would have answered the bad plant with, and a message naming its
// index.
func seedError(err error) *controlError {
	var se *plantstoretest.SeedError
	if !errors.As(err, &se) {
		return badRequest("seed: %v", err)
	}
	if se.Index < 0 {
		return errorf(http.StatusBadRequest, se.Body.Code, "seed: %s", se.Body.Message)
	}
	return errorf(http.StatusBadRequest, se.Body.Code, "seed: plant %d (counting from 0): %s", se.Index, se.Body.Message)
}
