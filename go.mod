module github.com/hitlkit/hitlkit

go 1.25

require (
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/google/go-cmp v0.7.0
	github.com/sosodev/duration v1.4.0
	go.uber.org/goleak v1.3.0
)
