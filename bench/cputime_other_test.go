//go:build !unix

package bench

import "time"

// processCPU returns a negative duration: this system's CPU time is not
// read here.
func processCPU() time.Duration { return -1 }
