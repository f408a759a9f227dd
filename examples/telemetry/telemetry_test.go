package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rig is a hitl client on a fake service with the SDK's in-memory exporters.
type rig struct {
	svc    *hitltest.Server
	client *hitl.Client
	spans  *tracetest.InMemoryExporter
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	audit  *bytes.Buffer
}

func newRig(t *testing.T, opts ...transport.Option) *rig {
	t.Helper()
	r := &rig{svc: hitltest.NewServer(t), spans: tracetest.NewInMemoryExporter(),
		reader: sdkmetric.NewManualReader(), audit: &bytes.Buffer{}}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() { _ = r.tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	base := []transport.Option{
		transport.WithHTTPClient(r.svc.Client()),
		transport.WithAllowPrivateAddresses(),
		transport.WithTracerProvider(r.tp),
		transport.WithMeterProvider(mp),
		transport.WithPropagator(propagation.TraceContext{}),
		transport.WithAudit(transport.AuditLog(r.audit, func(err error) { t.Errorf("audit: %v", err) })),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }),
	}
	c, err := hitl.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	r.client = c
	return r
}

// call posts body to the fake and lets the human do decide with the case's id.
func (r *rig) call(t *testing.T, ctx context.Context, body string, decide func(id string)) (*hitl.Response, error) {
	return r.callWith(t, ctx, body, nil, decide)
}

func (r *rig) callWith(t *testing.T, ctx context.Context, body string, o *hitl.CallOptions, decide func(id string)) (*hitl.Response, error) {
	t.Helper()
	done := make(chan struct{})
	defer close(done)
	go func() {
		if id := r.svc.NextCase(done); id != "" {
			decide(id)
		}
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.svc.URL+"/actions/approval", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.client.Do(ctx, req, o)
	if resp != nil {
		resp.Body.Close()
	}
	return resp, err
}

func (r *rig) waitSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	t.Helper()
	var out []sdktrace.ReadOnlySpan
	for _, s := range r.spans.GetSpans().Snapshots() {
		if s.Name() == "hitl.wait" {
			out = append(out, s)
		}
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func (r *rig) metrics(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

func TestWaitIsOneSpanWithEventsAndMetrics(t *testing.T) {
	r := newRig(t)
	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "agent step")
	poll := &hitl.CallOptions{Wait: &hitl.WaitOptions{PollOnly: true}}
	resp, err := r.callWith(t, ctx, `{}`, poll, func(id string) { _ = r.svc.Respond(id, "approve", nil, nil) })
	parent.End()
	if err != nil || !resp.Result.Approved() {
		t.Fatalf("Do = %v, %v; want an approval", resp, err)
	}
	spans := r.waitSpans(t)
	if len(spans) != 1 {
		t.Fatalf("%d hitl.wait spans, want 1", len(spans))
	}
	s := spans[0]
	if s.Parent().SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("the wait span's parent is %v, want the caller's span", s.Parent().SpanID())
	}
	for key, want := range map[string]string{"hitl.protocol": "hitl", "hitl.kind": "hitl", "hitl.review_type": "approval",
		"hitl.status": "completed", "hitl.decision": "approve", "hitl.learned_by": "poll"} {
		if v, ok := attr(s, key); !ok || v.AsString() != want {
			t.Errorf("%s = %q, want %q", key, v.Emit(), want)
		}
	}
	if v, _ := attr(s, "hitl.polls"); v.AsInt64() < 1 {
		t.Errorf("hitl.polls = %d, want at least 1", v.AsInt64())
	}
	if v, ok := attr(s, "hitl.id"); !ok || v.AsString() != resp.Result.CaseID {
		t.Errorf("hitl.id = %q, want the case id %q", v.Emit(), resp.Result.CaseID)
	}
	events := map[string]int{}
	for _, e := range s.Events() {
		events[e.Name]++
	}
	if events["hitl.forwarded"] != 1 || events["hitl.poll"] < 1 {
		t.Errorf("events %v, want one hitl.forwarded and a hitl.poll per poll", events)
	}

	// Every poll the wait sent carried the wait span's trace context.
	polls := 0
	for _, q := range r.svc.Requests() {
		if q.Method != http.MethodGet || q.CaseID == "" {
			continue
		}
		polls++
		tp := q.Header.Get("traceparent")
		if !strings.Contains(tp, s.SpanContext().TraceID().String()) || !strings.Contains(tp, s.SpanContext().SpanID().String()) {
			t.Errorf("poll %s carried traceparent %q, want the wait span's", q.Path, tp)
		}
	}
	if polls == 0 {
		t.Error("no poll in the fake's request log")
	}

	m := r.metrics(t)
	open, ok := m["hitl.wait.open"].(metricdata.Sum[int64])
	if !ok || len(open.DataPoints) != 1 || open.DataPoints[0].Value != 0 {
		t.Errorf("hitl.wait.open = %+v, want one point at 0 once the wait ended", m["hitl.wait.open"])
	}
	lat, ok := m["hitl.decision.duration"].(metricdata.Histogram[float64])
	if !ok || len(lat.DataPoints) != 1 || lat.DataPoints[0].Count != 1 {
		t.Errorf("hitl.decision.duration = %+v, want one measurement", m["hitl.decision.duration"])
	} else if v, _ := lat.DataPoints[0].Attributes.Value("hitl.decision"); v.AsString() != "approve" {
		t.Errorf("decision latency attribute hitl.decision = %q", v.Emit())
	}
	if req, ok := m["hitl.wait.requests"].(metricdata.Sum[int64]); !ok || len(req.DataPoints) == 0 || req.DataPoints[0].Value < int64(polls) {
		t.Errorf("hitl.wait.requests = %+v, want at least the %d polls", m["hitl.wait.requests"], polls)
	}
}

func TestAuditRecordPerResult(t *testing.T) {
	r := newRig(t)
	by := &transport.Responder{Name: "Ada"}
	poll := &hitl.CallOptions{Wait: &hitl.WaitOptions{PollOnly: true}}
	if _, err := r.callWith(t, context.Background(), `{}`, poll, func(id string) { _ = r.svc.Respond(id, "reject", map[string]string{"feedback": "no"}, by) }); !errors.Is(err, hitl.ErrNotApproved) {
		t.Fatalf("a rejection through Do: %v, want hitl.ErrNotApproved", err)
	}
	if _, err := r.call(t, context.Background(), `{}`, func(id string) { _ = r.svc.Expire(id) }); !errors.Is(err, hitl.ErrNotApproved) {
		t.Fatalf("an expiry through Do: %v, want hitl.ErrNotApproved", err)
	}
	lines := strings.Split(strings.TrimSpace(r.audit.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d audit lines, want 2: %s", len(lines), r.audit)
	}
	var rej, exp transport.Record
	if err := json.Unmarshal([]byte(lines[0]), &rej); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &exp); err != nil {
		t.Fatal(err)
	}
	if rej.Protocol != "hitl" || rej.Status != transport.StatusCompleted || rej.Decision != transport.DecisionReject ||
		rej.Action != "reject" || rej.RespondedBy == nil || rej.RespondedBy.Name != "Ada" || rej.LearnedBy != "poll" ||
		!rej.Confirmed || rej.ID == "" || rej.PromptSHA256 == "" || rej.AskedAt.IsZero() || rej.DecidedAt.IsZero() {
		t.Errorf("rejection record %+v", rej)
	}
	// The fake's event stream carries the complete outcome: the wait ends with it, unconfirmed.
	if exp.Status != transport.StatusExpired || exp.Decision != "" || exp.LearnedBy != "stream" || exp.Confirmed {
		t.Errorf("expiry record %+v", exp)
	}
}

func TestPendingListsOpenWaits(t *testing.T) {
	r := newRig(t)
	var during []transport.Pending
	opened := make(chan struct{})
	o := &hitl.CallOptions{Wait: &hitl.WaitOptions{OnUpdate: func(hitl.Update) {
		// Called from the wait: it is open and its question was forwarded.
		if during == nil {
			during, _ = r.client.Pending(context.Background())
			close(opened)
		}
	}}}
	_, err := r.callWith(t, context.Background(), `{}`, o, func(id string) {
		<-opened
		_ = r.svc.Respond(id, "approve", nil, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 {
		t.Fatalf("during the wait Pending = %+v, want the one wait", during)
	}
	if p := during[0]; p.Protocol != "hitl" || p.ID == "" || p.Prompt == "" || !p.Waiting || !p.Forwarded || p.Since.IsZero() {
		t.Errorf("pending %+v", p)
	}
	if p, err := r.client.Pending(context.Background()); err != nil || len(p) != 0 {
		t.Errorf("after the wait: Pending = %v, %v; want none", p, err)
	}
}
