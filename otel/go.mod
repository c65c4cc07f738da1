// Module otel traces and measures plantstore calls with OpenTelemetry. It is
// a module of its own so that the SDK's users who do not use OpenTelemetry
// never download it.
//
// The OpenTelemetry versions are the newest whose go directive is at most
// 1.23 (v1.38.0; v1.39.0 needs Go 1.24), so this module builds with the same
// Go as the SDK. They declare "go 1.23.0", which is why this file does too
// (the same language version as the SDK's "go 1.23"); golang.org/x/sys,
// go-logr and go.opentelemetry.io/auto/sdk are held at the versions they
// require, since newer ones need a newer Go.
module github.com/plantstore/plantstore-go/otel

go 1.23.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/plantstore/plantstore-go v0.5.0
	go.opentelemetry.io/otel v1.38.0
	go.opentelemetry.io/otel/metric v1.38.0
	go.opentelemetry.io/otel/sdk v1.38.0
	go.opentelemetry.io/otel/sdk/metric v1.38.0
	go.opentelemetry.io/otel/trace v1.38.0
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.opentelemetry.io/auto/sdk v1.1.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
)

// The root module is required at the version released with this one: a
// release tags the root first, then otel/ at the same version with this line
// naming it (RELEASING.md), so that who gets this module gets the root it was
// tested with. The replace is for development in this repository only; the
// go command ignores it in every module that requires this one.
replace github.com/plantstore/plantstore-go => ../
