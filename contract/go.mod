module github.com/plantstore/plantstore-go/contract

go 1.23

require (
	github.com/google/go-cmp v0.7.0
	github.com/plantstore/plantstore-go v0.0.0
)

require (
	github.com/getkin/kin-openapi v0.135.0
	github.com/go-openapi/jsonpointer v0.21.0 // indirect
	github.com/go-openapi/swag v0.23.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/mohae/deepcopy v0.0.0-20170929034955-c48cc78d4826 // indirect
	github.com/oasdiff/yaml v0.0.9 // indirect
	github.com/oasdiff/yaml3 v0.0.9 // indirect
	github.com/perimeterx/marshmallow v1.1.5 // indirect
	github.com/woodsbury/decimal128 v1.3.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

// This module is never released (RELEASING.md): the root module comes from
// ../ through this replace, so the version required above is never fetched
// and stays v0.0.0.
replace github.com/plantstore/plantstore-go => ../
