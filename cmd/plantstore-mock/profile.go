package main

import (
	"fmt"
	"io"
	"os"

	"github.com/plantstore/plantstore-go/plantstoretest"
)

// loadProfile reads the -profile file: a plantstoretest.Profile, as
// plantstore-mock conformance -profile-out writes it. It reads no more than
// a profile may hold.
func loadProfile(path string) (*plantstoretest.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-profile: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, plantstoretest.MaxProfileSize+1))
	if err != nil {
		return nil, fmt.Errorf("-profile %s: %w", path, err)
	}
	p, err := plantstoretest.ParseProfile(data)
	if err != nil {
		return nil, fmt.Errorf("-profile %s: %w", path, err)
	}
	return &p, nil
}
