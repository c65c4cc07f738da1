//go:build go1.25

package plantstoretest

// OneProcForRaceBubbles is oneProcForRaceBubbles for the tests of package
// plantstoretest_test, which share it: GOMAXPROCS is the process's.
var OneProcForRaceBubbles = oneProcForRaceBubbles
