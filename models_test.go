package plantstore

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCreatePlantValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		plant NewPlant
		want  *ValidationError
	}{
		{"empty name", NewPlant{ID: 1, Tag: "x"}, &ValidationError{Field: "name", Reason: "is required"}},
		{"name not UTF-8", NewPlant{ID: 1, Name: "Mon\xffstera"}, &ValidationError{Field: "name", Reason: "is not valid UTF-8"}},
		{"tag not UTF-8", NewPlant{ID: 1, Name: "Monstera", Tag: "\xc3"}, &ValidationError{Field: "tag", Reason: "is not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newStubServer(t)
			c := newTestClient(t, srv.URL)
			_, err := c.CreatePlant(context.Background(), tt.plant)
			var got *ValidationError
			if !errors.As(err, &got) {
				t.Fatalf("CreatePlant(%+v) error = %v, want a *ValidationError", tt.plant, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CreatePlant(%+v) error mismatch (-want +got):\n%s", tt.plant, diff)
			}
			if n := len(srv.requests()); n != 0 {
				t.Errorf("CreatePlant(%+v) sent %d requests, want 0", tt.plant, n)
			}
		})
	}
}
