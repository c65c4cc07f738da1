module github.com/plantstore/plantstore-go/wiretest

go 1.23.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/plantstore/plantstore-go v0.0.0
	golang.org/x/net v0.42.0
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/text v0.27.0 // indirect
)

// This module is never released (RELEASING.md): the root module comes from
// ../ through this replace, so the version required above is never fetched
// and stays v0.0.0.
replace github.com/plantstore/plantstore-go => ../
