// Module releasecheck is the release check's tool (scripts/release-check.sh):
// it builds a Go module proxy from this repository's tree. It is a module of
// its own so that golang.org/x/mod, which zips modules exactly as the go
// command does, is never downloaded by a user of the SDK. It is never
// released, and it runs on the Go of CI, not on the SDK's go 1.23.
module github.com/plantstore/plantstore-go/internal/tools/releasecheck

go 1.26.0

require golang.org/x/mod v0.42.0

require github.com/google/go-cmp v0.7.0
