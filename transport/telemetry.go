package transport

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// WithTracerProvider sets the OpenTelemetry tracer provider of the client's wait spans.
// Default: the global one (otel.GetTracerProvider), which follows a provider installed later;
// with none installed, spans cost nothing. A nil tp is refused. See "Telemetry" in the package
// documentation for the span, its events and attributes.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *Settings) error {
		if tp == nil {
			return refuse(s, "WithTracerProvider", "nil provider")
		}
		s.tracerProvider = tp
		return nil
	}
}

// WithMeterProvider sets the OpenTelemetry meter provider of the client's wait metrics.
// Default: the global one (otel.GetMeterProvider). A nil mp is refused. See "Telemetry" in
// the package documentation for the instruments.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Settings) error {
		if mp == nil {
			return refuse(s, "WithMeterProvider", "nil provider")
		}
		s.meterProvider = mp
		return nil
	}
}

// WithPropagator sets how the requests a wait sends (polls, streams, task queries) carry the
// trace context of the wait's span. Default: the global propagator (otel.GetTextMapPropagator;
// set it to propagation.TraceContext{} for W3C traceparent). A request carries a trace
// context only when the wait's span is sampled or its parent's context is valid. A nil p is
// refused.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(s *Settings) error {
		if p == nil {
			return refuse(s, "WithPropagator", "nil propagator")
		}
		s.propagator = p
		return nil
	}
}

// WithAudit calls hook with one [Record] for every Result the client's waits return: a
// person's decision, an expiry, a cancellation, a default applied. A wait that ends in an
// error (the outcome unknown) makes no record. hook is called on the waiting goroutine before
// the wait returns, possibly from many waits at once, so it must be safe for concurrent use
// and quick; hitlkit does no I/O of its own for it. Default: no records. A nil hook is
// refused. [AuditLog] is a hook that writes JSON Lines.
func WithAudit(hook func(context.Context, Record)) Option {
	return func(s *Settings) error {
		if hook == nil {
			return refuse(s, "WithAudit", "nil hook")
		}
		s.audit = hook
		return nil
	}
}

// Record is the audit record of one decision, as [WithAudit] delivers it. Its JSON field
// names are stable. It never holds a token, a credential, a URL, the prompt or the answer's
// data: the prompt and the tool call's arguments appear as SHA-256 digests, so a record can
// be matched to the question it answers without keeping what was asked. It does hold who
// decided (RespondedBy: a name, an email, the service's own responded_by JSON in Raw),
// which is personal data: keep the audit log where such data may be kept.
type Record struct {
	// Protocol is "hitl", "a2a", "hxp" or "hi"; Kind the interrupt's kind (hitl's Kind).
	Protocol string `json:"protocol"`
	Kind     string `json:"kind"`
	// ID is the protocol's id of the question: the HITL case id, the A2A task id, the HXP
	// request id, the HI interaction id.
	ID string `json:"id"`
	// AskedAt is when the wait began (the question was put); DecidedAt when its Result came:
	// the service's own end time when it gave one, else when the wait learned it.
	AskedAt   time.Time `json:"asked_at"`
	DecidedAt time.Time `json:"decided_at"`
	// PromptSHA256 and ArgumentsSHA256 are hex SHA-256 digests of the prompt and of the tool
	// call's arguments as the protocol sent them; "" when there was none.
	PromptSHA256    string `json:"prompt_sha256,omitempty"`
	ArgumentsSHA256 string `json:"arguments_sha256,omitempty"`
	// Status, Decision, Action, DefaultApplied and DefaultAction are the Result's.
	Status         Status   `json:"status"`
	Decision       Decision `json:"decision,omitempty"`
	Action         string   `json:"action,omitempty"`
	DefaultApplied bool     `json:"default_applied,omitempty"`
	DefaultAction  string   `json:"default_action,omitempty"`
	// RespondedBy is who decided, as the protocol reports it (nil when it does not).
	RespondedBy *Responder `json:"responded_by,omitempty"`
	// LearnedBy is how the wait learned the outcome: "poll" (the source of truth: a HITL poll,
	// an A2A tasks/get — what an A2A stream event or push notification wakes —, an HXP
	// request read), or the push source that settled it: "stream" (a HITL event stream or a
	// caller's Waiter), "websocket" (an HXP request's WebSocket) or "callback" (a signed HITL
	// callback). Confirmed reports that the source of truth gave the outcome (always true for
	// "poll").
	LearnedBy string `json:"learned_by"`
	Confirmed bool   `json:"confirmed"`
	// Evidence is what the protocol offers to back the outcome.
	Evidence Evidence `json:"evidence,omitzero"`
}

// Evidence backs a [Record]: what the protocol offers as proof of the outcome.
type Evidence struct {
	// TaskID is the A2A task the answer resumed.
	TaskID string `json:"task_id,omitempty"`
	// ReceiptHash is the evidence hash of the protocol's receipt (an HXP execution receipt's
	// evidence_hash), as the server sent it; ReceiptChecked reports that the receipt was
	// checked against the request it answers before the wait returned
	// (hxp.WaitOptions.CheckReceipt).
	ReceiptHash    string `json:"receipt_hash,omitempty"`
	ReceiptChecked bool   `json:"receipt_checked,omitempty"`
	// SignatureVerified reports that the outcome came through a Watch source whose receiver
	// verified each notification (a HITL callback's signature, a [Webhook]'s HMAC, an A2A
	// push notification's token or JWT) and ended the wait without a confirming poll.
	SignatureVerified bool `json:"signature_verified,omitempty"`
}

// Pending is a question a client is still waiting on, as its Pending method lists it.
type Pending struct {
	// Protocol, Kind and ID are as in [Record].
	Protocol string `json:"protocol"`
	Kind     string `json:"kind"`
	ID       string `json:"id"`
	// Prompt is the question as the protocol put it; it is the caller's to show, and appears
	// in no telemetry.
	Prompt string `json:"prompt,omitempty"`
	// Since is when the wait began; for a stored interrupt no wait holds, when it was
	// received (hitl's Interrupt.ReceivedAt), zero when it does not say.
	Since time.Time `json:"since"`
	// Forwarded reports that the question was put to a human through the client's
	// forwarder or asker during this wait in this process: false for a stored interrupt,
	// whether or not a previous process forwarded it.
	Forwarded bool `json:"forwarded"`
	// Waiting reports that a wait on it is running in this process; false for a stored
	// interrupt no wait holds (a restart's leftovers, to resume).
	Waiting bool `json:"waiting"`
}

// AuditLog returns a hook for [WithAudit] that writes each Record to w as one line of JSON
// (JSON Lines), one write per record, serialised so that concurrent waits never interleave.
// A write error is passed to onErr when it is set, else dropped: an audit sink that fails
// never fails a wait.
func AuditLog(w io.Writer, onErr func(error)) func(context.Context, Record) {
	var mu sync.Mutex
	return func(_ context.Context, r Record) {
		b, err := json.Marshal(r)
		if err == nil {
			b = append(b, '\n')
			mu.Lock()
			_, err = w.Write(b)
			mu.Unlock()
		}
		if err != nil && onErr != nil {
			onErr(err)
		}
	}
}
