// Package telemetry shows hitlkit's OpenTelemetry instrumentation with the OpenTelemetry SDK
// installed, and holds the tests that check it with the SDK's in-memory exporters. It is a
// module of its own so that the library itself imports only the OpenTelemetry API.
//
// hitlkit's clients (hitl, a2a, hxp, hi) make every wait one span named hitl.wait, a child of
// the span in the caller's context, and record a few metrics; the attribute table is in the
// transport package's documentation, section "Telemetry". Install a tracer and a meter
// provider (globally, or per client with transport.WithTracerProvider and
// transport.WithMeterProvider) and they appear; with none installed they cost nothing.
package telemetry
