module github.com/plantstore/plantstore-go

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
)

require github.com/stretchr/testify v1.9.0 // indirect
