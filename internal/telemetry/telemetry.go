// Package telemetry holds the OpenTelemetry instrumentation every wait shares: one span per
// wait, its events, and the wait metrics. It uses only the OpenTelemetry API; with no SDK
// installed every call is a no-op that allocates nothing beyond the span's context.
//
// Names follow OpenTelemetry's semantic conventions where one exists (error.type,
// http.response.status_code) and the hitl.* namespace otherwise; the table is in the
// transport package's documentation ("Telemetry").
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tnoop "go.opentelemetry.io/otel/trace/noop"
)

// Scope is the instrumentation scope of every tracer and meter.
const Scope = "github.com/hitlkit/hitlkit"

// Span, event, attribute and metric names (transport's documentation, "Telemetry").
const (
	SpanName = "hitl.wait"

	EventForwarded     = "hitl.forwarded"
	EventForwardFailed = "hitl.forward_failed"
	EventPoll          = "hitl.poll"
	EventWake          = "hitl.push.wake"
	EventSettle        = "hitl.push.settle"
	EventReconnect     = "hitl.push.reconnect"

	AttrProtocol      = "hitl.protocol"
	AttrKind          = "hitl.kind"
	AttrID            = "hitl.id"
	AttrReviewType    = "hitl.review_type"
	AttrStatus        = "hitl.status"
	AttrDecision      = "hitl.decision"
	AttrDefault       = "hitl.default_applied"
	AttrPolls         = "hitl.polls"
	AttrPushes        = "hitl.push.wakes"
	AttrLearnedBy     = "hitl.learned_by"
	AttrPollOutcome   = "hitl.poll.outcome"
	AttrHTTPStatus    = "http.response.status_code"
	AttrErrorType     = "error.type"
	MetricOpen        = "hitl.wait.open"
	MetricLatency     = "hitl.decision.duration"
	MetricRequests    = "hitl.wait.requests"
	MetricReconnects  = "hitl.push.reconnects"
	MetricForwardFail = "hitl.forward.failures"
)

// The outcome classes of one poll (AttrPollOutcome).
const (
	PollWaiting   = "waiting"
	PollDecided   = "decided"
	PollUnchanged = "not_modified"
	PollRetry     = "transient"
	PollFailed    = "failed"
)

// Telemetry is a client's tracer, meter instruments and propagator. Safe for concurrent use.
type Telemetry struct {
	tracer     trace.Tracer
	global     bool // tracer is the global provider's: skip spans while none is installed
	prop       propagation.TextMapPropagator
	open       metric.Int64UpDownCounter
	latency    metric.Float64Histogram
	requests   metric.Int64Counter
	reconnects metric.Int64Counter
	failures   metric.Int64Counter
}

// New builds a client's telemetry; a nil provider or propagator means the global one
// (otel.GetTracerProvider, otel.GetMeterProvider, otel.GetTextMapPropagator), which follows
// a provider installed later.
func New(tp trace.TracerProvider, mp metric.MeterProvider, prop propagation.TextMapPropagator) *Telemetry {
	global := tp == nil
	if global {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
	}
	m := mp.Meter(Scope)
	t := &Telemetry{tracer: tp.Tracer(Scope), prop: prop, global: global}
	// An instrument the provider refuses is a no-op one: telemetry never fails a client.
	t.open, _ = m.Int64UpDownCounter(MetricOpen, metric.WithUnit("{wait}"),
		metric.WithDescription("Waits on a human decision that have not ended"))
	t.latency, _ = m.Float64Histogram(MetricLatency, metric.WithUnit("s"),
		metric.WithDescription("Time from the question to its Result"),
		metric.WithExplicitBucketBoundaries(1, 10, 60, 300, 900, 3600, 4*3600, 24*3600, 7*24*3600))
	t.requests, _ = m.Int64Counter(MetricRequests, metric.WithUnit("{request}"),
		metric.WithDescription("Requests sent by waits: polls, streams, task queries"))
	t.reconnects, _ = m.Int64Counter(MetricReconnects, metric.WithUnit("{reconnect}"),
		metric.WithDescription("Push sources of waits started again after a drop"))
	t.failures, _ = m.Int64Counter(MetricForwardFail, metric.WithUnit("{failure}"),
		metric.WithDescription("Forwarders and askers that failed to put a question to a human"))
	return t
}

// noop serves a client configured without telemetry (a zero configuration in a test).
// Paused is the cause a caller gives the context of a wait it ends on purpose while the
// question stays open — an MCP tool call's check, after which the tool answers "still
// pending" and a later call waits again. A wait ended by it ends its span undecided, not as
// an error, and makes no audit record.
var Paused = errors.New("the wait was paused; the question is still open")

var noop = New(tnoop.NewTracerProvider(), mnoop.NewMeterProvider(), propagation.TraceContext{})

// Wait is one observed wait. Its methods are safe for concurrent use and do nothing on a nil
// Wait, so a wait that was not started through Start (a transport.Wait of one's own) costs
// nothing.
type Wait struct {
	// Owner is what the caller observes the wait for (clientcfg's Observation).
	Owner any

	t        *Telemetry
	span     trace.Span
	protocol string
	began    time.Time
	polls    atomic.Int64
	wakes    atomic.Int64
	settled  atomic.Int32 // 0: not settled by a push source; 1: a Push source; 2: a Watch source
	forward  atomic.Bool
	ended    atomic.Bool
}

type waitKey struct{}

// From returns the wait observed in ctx, or nil.
func From(ctx context.Context) *Wait {
	w, _ := ctx.Value(waitKey{}).(*Wait)
	return w
}

// defaultTracerProvider is the global tracer provider before any is installed: while
// otel.GetTracerProvider returns it, a span would be a no-op, and is not started.
var defaultTracerProvider = otel.GetTracerProvider()

var startOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// Begin begins observing w, the wait on question id of kind in protocol: a span child of
// the one in ctx, and one more open wait. The context returned carries both; the requests sent under it carry the span's trace context.
// w is the caller's, zero, not yet in use; Begin allocates nothing more for it than the
// context, and nothing for the span while no tracer provider is installed.
func (t *Telemetry) Begin(ctx context.Context, w *Wait, protocol, kind, id, reviewType string) context.Context {
	if t == nil {
		t = noop
	}
	w.t, w.protocol, w.began = t, protocol, time.Now()
	w.span = noSpan
	if t.global && otel.GetTracerProvider() == defaultTracerProvider {
		return t.openAndKeep(ctx, w)
	}
	sctx, span := t.tracer.Start(ctx, SpanName, startOptions...)
	if span.IsRecording() {
		attrs := []attribute.KeyValue{attribute.String(AttrProtocol, protocol), attribute.String(AttrKind, kind)}
		if id != "" {
			attrs = append(attrs, attribute.String(AttrID, id))
		}
		if reviewType != "" {
			attrs = append(attrs, attribute.String(AttrReviewType, reviewType))
		}
		span.SetAttributes(attrs...)
		ctx = sctx
	}
	w.span = span
	return t.openAndKeep(ctx, w)
}

// noSpan is the span of a wait while no tracer provider is installed.
var noSpan = trace.SpanFromContext(context.Background())

func (t *Telemetry) openAndKeep(ctx context.Context, w *Wait) context.Context {
	if t.open.Enabled(ctx) {
		t.open.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrProtocol, w.protocol)))
	}
	return context.WithValue(ctx, waitKey{}, w)
}

// Forwarded records that the question was put to a human (err nil) or that the forwarder or
// asker failed.
func (w *Wait) Forwarded(ctx context.Context, err error) {
	if w == nil {
		return
	}
	if err == nil {
		w.forward.Store(true)
		if w.span.IsRecording() {
			w.span.AddEvent(EventForwarded)
		}
		return
	}
	if w.span.IsRecording() {
		w.span.AddEvent(EventForwardFailed, trace.WithAttributes(attribute.String(AttrErrorType, ErrorType(err))))
	}
	if w.t.failures.Enabled(ctx) {
		w.t.failures.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrProtocol, w.protocol)))
	}
}

// WasForwarded reports whether the question was put to a human during this wait.
func (w *Wait) WasForwarded() bool { return w != nil && w.forward.Load() }

// Poll records one poll's answer: its HTTP status (0 when none came) and outcome class.
func (w *Wait) Poll(ctx context.Context, status int, class string) {
	if w == nil {
		return
	}
	w.polls.Add(1)
	if w.span.IsRecording() {
		w.span.AddEvent(EventPoll, trace.WithAttributes(attribute.String(AttrPollOutcome, class),
			attribute.Int(AttrHTTPStatus, status)))
	}
}

// Request records one request sent for the wait (a poll, a stream or socket opened).
func (w *Wait) Request(ctx context.Context) {
	if w != nil && w.t.requests.Enabled(ctx) {
		w.t.requests.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrProtocol, w.protocol)))
	}
}

// Wake records a push source's wake-up.
func (w *Wait) Wake() {
	if w == nil {
		return
	}
	w.wakes.Add(1)
	if w.span.IsRecording() {
		w.span.AddEvent(EventWake)
	}
}

// Settle records that a push source (watch: a Watch source) brought the outcome.
func (w *Wait) Settle(watch bool) {
	if w == nil {
		return
	}
	v := int32(1)
	if watch {
		v = 2
	}
	if w.settled.CompareAndSwap(0, v) && w.span.IsRecording() {
		w.span.AddEvent(EventSettle)
	}
}

// Reconnect records a push source started again after a drop.
func (w *Wait) Reconnect(ctx context.Context, err error) {
	if w == nil {
		return
	}
	if w.span.IsRecording() {
		w.span.AddEvent(EventReconnect, trace.WithAttributes(attribute.String(AttrErrorType, ErrorType(err))))
	}
	if w.t.reconnects.Enabled(ctx) {
		w.t.reconnects.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrProtocol, w.protocol)))
	}
}

// Polls is the number of polls answered so far.
func (w *Wait) Polls() int64 {
	if w == nil {
		return 0
	}
	return w.polls.Load()
}

// SettledBy is how a push source ended the wait: 0 none (a poll did), 1 a Push source, 2 a
// Watch source.
func (w *Wait) SettledBy() int {
	if w == nil {
		return 0
	}
	return int(w.settled.Load())
}

// Began is when the wait began.
func (w *Wait) Began() time.Time {
	if w == nil {
		return time.Time{}
	}
	return w.began
}

// End ends the span and records the wait's outcome: status and decision (both "" when err is
// not nil), whether a default applied, and learnedBy. Only the first call (of End or
// EndUndecided) counts.
func (w *Wait) End(ctx context.Context, status, decision string, defaulted bool, learnedBy string, err error) {
	w.end(ctx, err == nil, status, decision, defaulted, learnedBy, err)
}

// EndUndecided ends the span of a wait that ended without error and without a decision (a
// wait on an A2A task, which returns the task): no status or decision on the span, and no
// decision latency.
func (w *Wait) EndUndecided(ctx context.Context) {
	w.end(ctx, false, "", "", false, "", nil)
}

func (w *Wait) end(ctx context.Context, decided bool, status, decision string, defaulted bool, learnedBy string, err error) {
	if w == nil || !w.ended.CompareAndSwap(false, true) {
		return
	}
	t := w.t
	if t.open.Enabled(ctx) {
		t.open.Add(ctx, -1, metric.WithAttributes(attribute.String(AttrProtocol, w.protocol)))
	}
	if decided && t.latency.Enabled(ctx) {
		t.latency.Record(ctx, time.Since(w.began).Seconds(), metric.WithAttributes(
			attribute.String(AttrProtocol, w.protocol), attribute.String(AttrStatus, status),
			attribute.String(AttrDecision, decision)))
	}
	if !w.span.IsRecording() {
		w.span.End()
		return
	}
	w.span.SetAttributes(attribute.Int64(AttrPolls, w.polls.Load()), attribute.Int64(AttrPushes, w.wakes.Load()))
	if err != nil {
		w.span.SetAttributes(attribute.String(AttrErrorType, ErrorType(err)))
		// The error's text may name what a caller passed; its type says what happened.
		w.span.SetStatus(codes.Error, ErrorType(err))
	} else if decided {
		w.span.SetAttributes(attribute.String(AttrStatus, status), attribute.String(AttrDecision, decision),
			attribute.Bool(AttrDefault, defaulted), attribute.String(AttrLearnedBy, learnedBy))
	}
	w.span.End()
}

// Inject writes the trace context of ctx into h with the client's propagator, when ctx holds
// a valid span context; it reports whether it wrote any.
func (t *Telemetry) Inject(ctx context.Context, h http.Header) bool {
	if t == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return false
	}
	t.prop.Inject(ctx, propagation.HeaderCarrier(h))
	return true
}

// ErrorType is the error.type of err: the context's end, a timeout, or "error". It never
// holds the error's text, which may carry what a caller or service wrote.
func ErrorType(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	// The innermost typed error names the class: *transport.StatusError,
	// *hitl.InvalidError, … A bare errors.New or a wrapper says only "error".
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch name := fmt.Sprintf("%T", e); name {
		case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
		default:
			return name
		}
	}
	return "error"
}
