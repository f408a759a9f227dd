module github.com/hitlkit/hitlkit/a2a/jsinterop

go 1.25.0

require (
	github.com/hitlkit/hitlkit v0.1.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/cenkalti/backoff/v4 v4.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.46.0 // indirect
	go.opentelemetry.io/otel/metric v1.46.0 // indirect
	go.opentelemetry.io/otel/trace v1.46.0 // indirect
)

// For development in this repository only: build against the modules of this checkout. A
// consumer's build ignores this replace and takes the versions required above (README,
// "Modules and releases"); .ci/released builds this module without it.
replace github.com/hitlkit/hitlkit => ../..
