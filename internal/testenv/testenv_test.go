package testenv_test

import (
	"testing"

	"github.com/plantstore/plantstore-go/internal/testenv"
)

func TestLong(t *testing.T) {
	tests := []struct {
		value string
		runs  bool
	}{
		{"", false},
		{"0", false},
		{"true", false},
		{"1", true},
	}
	for _, tt := range tests {
		t.Run(testenv.LongEnv+"="+tt.value, func(t *testing.T) {
			t.Setenv(testenv.LongEnv, tt.value)
			ran := false
			t.Run("long", func(t *testing.T) {
				testenv.Long(t)
				ran = true
			})
			if ran != tt.runs {
				t.Errorf("with %s=%q the long test ran = %v, want %v", testenv.LongEnv, tt.value, ran, tt.runs)
			}
		})
	}
}
