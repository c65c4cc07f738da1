// Package bench measures what the plantstore SDK and its fake cost against
// plain code doing the same job: the create-plant call a careful user writes
// by hand with net/http (package internal/baseline) and a bare net/http
// handler. bench.sh runs the benchmarks interleaved, counts instructions per
// call under valgrind's callgrind with the programs under internal/callgrind,
// and prints the ratios that BENCHMARKS.md records.
//
// It is a module of its own so that its measurement programs are never
// installed by go install github.com/plantstore/plantstore-go/... and its
// peers never reach a consumer's go.sum.
package bench
