module github.com/plantstore/plantstore-go/bench

go 1.23

require github.com/plantstore/plantstore-go v0.0.0

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
)

replace github.com/plantstore/plantstore-go => ../
