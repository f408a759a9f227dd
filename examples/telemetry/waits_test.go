package telemetry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// Every wait of the module's clients is one hitl.wait span, a child of the caller's span,
// with the wait's protocol and kind; a wait that ends with a Result carries its status.
func TestEveryWaitIsOneSpan(t *testing.T) {
	// hitl's waits: a client on a fake HITL service whose human approves the next case.
	hitlClient := func(t *testing.T, s *sdk, opts ...transport.Option) (*hitl.Client, *hitltest.Server) {
		svc := hitltest.NewServer(t)
		c, err := hitl.NewClient(append(append(s.opts, transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
			hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil })), opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		s.sent = func() (h []http.Header) {
			for _, q := range svc.Requests() {
				h = append(h, q.Header)
			}
			return h
		}
		return c, svc
	}
	approveNext := func(t *testing.T, svc *hitltest.Server) {
		done := make(chan struct{})
		t.Cleanup(func() { close(done) })
		go func() {
			if id := svc.NextCase(done); id != "" {
				_ = svc.Respond(id, "approve", nil, nil)
			}
		}()
	}
	ask := func(ctx context.Context, svc *hitltest.Server) *http.Request {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"prompt":"Deploy?"}`))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	// detect asks the service and returns the interrupt, not waiting.
	detect := func(t *testing.T, ctx context.Context, c *hitl.Client, svc *hitltest.Server) *hitl.Interrupt {
		resp, err := c.Do(ctx, ask(ctx, svc), &hitl.CallOptions{DetectOnly: true})
		if err != nil || resp.Interrupt == nil {
			t.Fatalf("Do with DetectOnly = %+v, %v", resp, err)
		}
		resp.Body.Close()
		return resp.Interrupt
	}

	rows := []struct {
		name, protocol, kind string
		decided              bool // the wait ends with a Result: the span has hitl.status
		wait                 func(t *testing.T, ctx context.Context, s *sdk)
	}{
		{"hitl.Client.Do", "hitl", "hitl", true, func(t *testing.T, ctx context.Context, s *sdk) {
			c, svc := hitlClient(t, s)
			approveNext(t, svc)
			resp, err := c.Do(ctx, ask(ctx, svc), nil)
			if err != nil || !resp.Result.Approved() {
				t.Fatalf("Do = %+v, %v", resp, err)
			}
			resp.Body.Close()
		}},
		{"hitl.Client.Wait", "hitl", "hitl", true, func(t *testing.T, ctx context.Context, s *sdk) {
			c, svc := hitlClient(t, s)
			it := detect(t, context.Background(), c, svc) // outside the caller's span
			go func() { _ = svc.Respond(it.ID(), "approve", nil, nil) }()
			if r, err := c.Wait(ctx, it, nil); err != nil || !r.Approved() {
				t.Fatalf("Wait = %+v, %v", r, err)
			}
		}},
		{"hitl.Client.Resume", "hitl", "hitl", true, func(t *testing.T, ctx context.Context, s *sdk) {
			var store hitl.MemoryStore
			c, svc := hitlClient(t, s, hitl.WithStore(&store))
			it := detect(t, context.Background(), c, svc)
			if err := store.Put(context.Background(), it); err != nil { // a previous process's wait
				t.Fatal(err)
			}
			go func() { _ = svc.Respond(it.ID(), "approve", nil, nil) }()
			handled := 0
			if err := c.Resume(ctx, func(_ context.Context, _ *hitl.Interrupt, r *transport.Result) error {
				handled++
				return nil
			}, nil); err != nil || handled != 1 {
				t.Fatalf("Resume = %v, %d Results handled", err, handled)
			}
		}},
		{"hitl.Client.Transport", "hitl", "hitl", true, func(t *testing.T, ctx context.Context, s *sdk) {
			c, svc := hitlClient(t, s)
			approveNext(t, svc)
			hc := &http.Client{Transport: c.Transport(svc.Client().Transport, nil)}
			resp, err := hc.Do(ask(ctx, svc))
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("RoundTrip = %+v, %v", resp, err)
			}
			resp.Body.Close()
		}},
		{"a2a.Client.Run", "a2a", "a2a/input-required", true, func(t *testing.T, ctx context.Context, s *sdk) {
			agent := a2atest.NewAgent(t)
			c, err := a2a.NewClient(append(s.opts, transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())...)
			if err != nil {
				t.Fatal(err)
			}
			s.sent = func() (h []http.Header) {
				for _, q := range agent.Requests() {
					h = append(h, q.Header)
				}
				return h
			}
			ep := agent.Endpoint(a2a.REST03)
			ev, err := c.Send(context.Background(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete the report.")}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Run(ctx, a2a.NewPause(ep, ev.Task), func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
				return a2a.Approve(p), nil
			}, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"a2a.Client.Wait", "a2a", "a2a/input-required", false, func(t *testing.T, ctx context.Context, s *sdk) {
			agent := a2atest.NewAgent(t)
			c, err := a2a.NewClient(append(s.opts, transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())...)
			if err != nil {
				t.Fatal(err)
			}
			s.sent = func() (h []http.Header) {
				for _, q := range agent.Requests() {
					h = append(h, q.Header)
				}
				return h
			}
			ep := agent.Endpoint(a2a.REST03)
			ev, err := c.Send(context.Background(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete the report.")}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := a2a.NewPause(ep, ev.Task)
			// Once the wait is listed, someone else answers the task and wakes the wait.
			wake := make(chan struct{}, 1)
			answered := make(chan error, 1)
			go func() {
				for len(c.Pending()) == 0 && ctx.Err() == nil {
					runtime.Gosched()
				}
				if ctx.Err() != nil { // never listed: the wait fails at its deadline
					answered <- ctx.Err()
					return
				}
				if p := c.Pending(); len(p) != 1 || p[0].ID != ev.Task.ID || !p[0].Waiting {
					t.Errorf("Pending during Wait = %+v", p)
				}
				_, err := c.Resume(context.Background(), p, a2a.Approve(p))
				answered <- err
				wake <- struct{}{}
			}()
			task, err := c.Wait(ctx, p, &a2a.WaitOptions{Wake: wake})
			if err != nil || task.ID != ev.Task.ID {
				t.Fatalf("Wait = %+v, %v", task, err)
			}
			if err := <-answered; err != nil {
				t.Fatal(err)
			}
			if p := c.Pending(); len(p) != 0 {
				t.Errorf("Pending after Wait = %+v", p)
			}
			if len(s.records) != 0 {
				t.Errorf("a task is no decision, yet audit records %+v", s.records)
			}
			var rm metricdata.ResourceMetrics
			if err := s.reader.Collect(context.Background(), &rm); err != nil {
				t.Fatal(err)
			}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if m.Name == "hitl.decision.duration" {
						t.Errorf("a task is no decision, yet hitl.decision.duration = %+v", m.Data)
					}
				}
			}
		}},
		{"hxp.Client.Wait", "hxp", "hxp/approve", true, func(t *testing.T, ctx context.Context, s *sdk) {
			srv := hxptest.NewServer(t)
			c, err := hxp.NewClient(srv.URL, append(s.opts, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
				transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
			if err != nil {
				t.Fatal(err)
			}
			s.sent = func() (h []http.Header) {
				for _, q := range srv.Requests() {
					h = append(h, q.Header)
				}
				return h
			}
			created, err := c.Create(context.Background(), &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600,
				AgentID: "agent_1", Approve: &hxp.Approve{Item: "Refund order 42", Details: json.RawMessage(`{"amount":42}`)}})
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = srv.Resolve(created.RequestID, "approved", "", "user_owner") }()
			if _, err := c.Wait(ctx, created, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"hi.Client.Wait", "hi", "hi", true, func(t *testing.T, ctx context.Context, s *sdk) {
			it := interaction(t)
			it.Status = hi.StatusResolved
			it.History = []hi.Feedback{{ParticipantID: "p1", Action: "approve"}, {ParticipantID: "p2", Action: "approve"}}
			body, _ := json.Marshal(it)
			var mu sync.Mutex
			var sent []http.Header
			s.sent = func() []http.Header { mu.Lock(); defer mu.Unlock(); return sent }
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				sent = append(sent, r.Header.Clone())
				mu.Unlock()
				if r.URL.Path != "/api/interactions/"+it.InteractionID {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}))
			t.Cleanup(srv.Close)
			c, err := hi.NewClient(srv.URL, append(s.opts, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses())...)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := c.Wait(ctx, it.InteractionID); err != nil || !r.Approved() {
				t.Fatalf("Wait = %+v, %v", r, err)
			}
		}},
		{"hi.FanOut", "hi", "hi/fanout", true, func(t *testing.T, ctx context.Context, s *sdk) {
			// FanOut has no client: its span is the global tracer provider's (s.tp here).
			r, _, err := hi.FanOut(ctx, interaction(t), func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
				return hi.Feedback{ParticipantID: p.ID, Action: "approve"}, nil
			}, nil)
			if err != nil || !r.Approved() {
				t.Fatalf("FanOut = %+v, %v", r, err)
			}
		}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			s := newSDK(t)
			if row.name == "hi.FanOut" {
				s.spans, s.tp = global()
				s.spans.Reset()
			}
			ctx, parent := s.tp.Tracer("test").Start(context.Background(), "agent step")
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			row.wait(t, ctx, s)
			parent.End()
			var waits []sdktrace.ReadOnlySpan
			for _, sp := range s.spans.GetSpans().Snapshots() {
				if sp.Name() == "hitl.wait" {
					waits = append(waits, sp)
				}
			}
			if len(waits) != 1 {
				t.Fatalf("%d hitl.wait spans, want 1", len(waits))
			}
			sp := waits[0]
			if sp.Parent().SpanID() != parent.SpanContext().SpanID() {
				t.Errorf("the wait's span is not a child of the caller's")
			}
			if v, _ := attr(sp, "hitl.protocol"); v.AsString() != row.protocol {
				t.Errorf("hitl.protocol = %q, want %q", v.Emit(), row.protocol)
			}
			if v, _ := attr(sp, "hitl.kind"); v.AsString() != row.kind {
				t.Errorf("hitl.kind = %q, want %q", v.Emit(), row.kind)
			}
			if _, ok := attr(sp, "hitl.status"); ok != row.decided {
				t.Errorf("hitl.status set: %v, want %v", ok, row.decided)
			}
			// The requests the wait sent carry its trace context (W3C traceparent); none
			// carries the caller's span as its parent.
			if s.sent == nil {
				return // FanOut sends nothing itself
			}
			carried := 0
			for _, h := range s.sent() {
				tp := h.Get("traceparent")
				if strings.Contains(tp, parent.SpanContext().SpanID().String()) {
					t.Errorf("a request carried the caller's span, not the wait's: %s", tp)
				}
				if strings.Contains(tp, sp.SpanContext().TraceID().String()+"-"+sp.SpanContext().SpanID().String()) {
					carried++
				}
			}
			if carried == 0 {
				t.Errorf("no request of the wait carried its trace context (%d requests)", len(s.sent()))
			}
		})
	}
}

// global installs, once for the process, a global tracer provider with an in-memory
// exporter: hi.FanOut keeps the global provider it first found, as a package-level tracer
// would.
var global = sync.OnceValues(func() (*tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	otel.SetTracerProvider(tp)
	return spans, tp
})

// interaction is an HI approval with two participants, awaiting input.
func interaction(t *testing.T) *hi.Interaction {
	t.Helper()
	it, err := hi.Parse([]byte(`{"interactionId":"int-1","groupId":"g1","coordinationMode":"centralized",
		"resolutionPolicy":"majority","timestamp":"2026-11-26T10:00:00Z","agentInstanceId":"agent-1",
		"participants":[{"id":"p1","role":"approver"},{"id":"p2","role":"approver"}],
		"agentOutput":{"summary":"Refund order 42.","confidence":0.9},"type":"approval","urgency":"blocking",
		"userActions":["approve","reject"],"status":"awaiting_input","history":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	return it
}
