package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
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

// sdk is the OpenTelemetry SDK with in-memory exporters, and an audit sink, as options.
type sdk struct {
	spans   *tracetest.InMemoryExporter
	tp      *sdktrace.TracerProvider
	reader  *sdkmetric.ManualReader
	records []transport.Record
	opts    []transport.Option
	// sent, when set, returns the headers of the requests the fake under test received.
	sent func() []http.Header
}

func newSDK(t *testing.T) *sdk {
	s := &sdk{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(s.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(s.reader))
	s.tp = tp
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	s.opts = []transport.Option{transport.WithTracerProvider(tp), transport.WithMeterProvider(mp),
		transport.WithPropagator(propagation.TraceContext{}),
		transport.WithAudit(func(_ context.Context, r transport.Record) { s.records = append(s.records, r) })}
	return s
}

// everything is every string telemetry and the audit records hold: span names, attributes,
// events, statuses, metric names and attributes, the records as JSON.
func (s *sdk) everything(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	kv := func(set []attribute.KeyValue) {
		for _, a := range set {
			b.WriteString(string(a.Key) + "=" + a.Value.Emit() + "\n")
		}
	}
	for _, sp := range s.spans.GetSpans().Snapshots() {
		b.WriteString(sp.Name() + "\n" + sp.Status().Description + "\n")
		kv(sp.Attributes())
		for _, e := range sp.Events() {
			b.WriteString(e.Name + "\n")
			kv(e.Attributes)
		}
		for _, l := range sp.Links() {
			kv(l.Attributes)
		}
	}
	var rm metricdata.ResourceMetrics
	if err := s.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			b.WriteString(m.Name + "\n")
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					kv(p.Attributes.ToSlice())
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					kv(p.Attributes.ToSlice())
				}
			}
		}
	}
	for _, r := range s.records {
		j, _ := json.Marshal(r)
		b.Write(j)
	}
	return b.String()
}

func (s *sdk) span(t *testing.T, protocol string) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, sp := range s.spans.GetSpans().Snapshots() {
		if v, _ := attr(sp, "hitl.protocol"); sp.Name() == "hitl.wait" && v.AsString() == protocol {
			return sp
		}
	}
	t.Fatalf("no hitl.wait span for %s", protocol)
	return nil
}

// A hostile run: secrets in the credential, the prompt, the review URL's token, the answer,
// a failing poll's error and a failing forwarder's, over HITL, HXP, A2A and HI. None
// reaches a span, an event, a metric or an audit record.
func TestNoSecretInTelemetry(t *testing.T) {
	s := newSDK(t)
	svc := hitltest.NewServer(t)
	const (
		cred   = "sk-SECRET-credential-7f3a"
		prompt = "Delete SECRET-prompt-c0ffee?"
		answer = "SECRET-answer-b16b00b5"
	)
	var reviewURL string
	client, err := hitl.NewClient(append(s.opts, transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(cred)),
		hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error { reviewURL = it.ReviewURL(); return nil }))...)
	if err != nil {
		t.Fatal(err)
	}
	run := func(ctx context.Context, decide func(id string)) (*hitl.Response, error) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			if id := svc.NextCase(done); id != "" {
				decide(id)
			}
		}()
		body, _ := json.Marshal(map[string]string{"prompt": prompt})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval?token=SECRET-query-9", strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(ctx, req, nil)
		if resp != nil {
			resp.Body.Close()
		}
		return resp, err
	}
	resp, err := run(context.Background(), func(id string) {
		_ = svc.Respond(id, "approve", map[string]string{"feedback": answer}, &transport.Responder{Name: "Ada"})
	})
	if err != nil || !resp.Result.Approved() {
		t.Fatalf("Do = %v, %v", resp, err)
	}
	if resp.Interrupt.Prompt() != prompt {
		t.Fatalf("the fake did not take the prompt: %q", resp.Interrupt.Prompt())
	}
	// A wait that fails: the case is gone when polled.
	_, err = run(context.Background(), func(id string) { svc.FailNext(id, hitltest.FaultGone, 100) })
	var se *transport.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("the failing wait ended with %v, want a *transport.StatusError", err)
	}

	// An HXP request whose question and answer are secret, on a server with its own key.
	srv := hxptest.NewServer(t)
	hc, err := hxp.NewClient(srv.URL, append(s.opts, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		if id := srv.NextRequest(done); id != "" {
			if _, err := srv.Resolve(id, "SECRET-hxp-answer", "", "user_owner"); err != nil {
				t.Errorf("Resolve: %v", err)
			}
		}
	}()
	created, err := hc.Create(context.Background(), &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600,
		AgentID: "agent_1", Provide: &hxp.Provide{Prompt: "SECRET-hxp-question", InputType: hxp.InputText}})
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := hc.Wait(wctx, created, nil); err != nil {
		t.Fatal(err)
	}

	// A forwarder that fails with a secret in its error's text.
	failing, err := hitl.NewClient(append(s.opts, transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return errors.New("SECRET-forward-error") }))...)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]string{"prompt": prompt})
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if _, err := failing.Do(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "SECRET-forward-error") {
		t.Fatalf("Do with a failing forwarder = %v", err)
	}

	// An A2A run: a secret credential, message and answer.
	agent := a2atest.NewAgent(t)
	ac, err := a2a.NewClient(append(s.opts, transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken("SECRET-a2a-credential")))...)
	if err != nil {
		t.Fatal(err)
	}
	ep := agent.Endpoint(a2a.REST03)
	ev, err := ac.Send(context.Background(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete SECRET-a2a-message.")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ac.Run(wctx, a2a.NewPause(ep, ev.Task), func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
		a := a2a.Approve(p)
		a.Parts = append(a.Parts, a2a.TextPart("SECRET-a2a-answer"))
		return a, nil
	}, nil); err != nil {
		t.Fatal(err)
	}

	// An HI interaction: a secret credential, summary and reason.
	it := interaction(t)
	it.AgentOutput.Summary = "Refund SECRET-hi-summary"
	it.Status = hi.StatusResolved
	it.History = []hi.Feedback{{ParticipantID: "p1", Action: "approve", Reason: "SECRET-hi-reason"},
		{ParticipantID: "p2", Action: "approve", InputText: "SECRET-hi-input"}}
	hiBody, _ := json.Marshal(it)
	hiSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(hiBody) }))
	defer hiSrv.Close()
	hic, err := hi.NewClient(hiSrv.URL, append(s.opts, transport.WithHTTPClient(hiSrv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken("SECRET-hi-credential")))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hic.Wait(wctx, it.InteractionID); err != nil {
		t.Fatal(err)
	}

	all := s.everything(t)
	for _, p := range []string{"hitl", "a2a", "hxp", "hi"} {
		s.span(t, p) // every protocol's wait was observed
	}
	secrets := []string{cred, prompt, "SECRET-prompt", answer, "SECRET-query", "SECRET-hxp", hxptest.DefaultAgentKey,
		"SECRET-forward", "SECRET-a2a", "SECRET-hi"}
	if u := reviewURL; u != "" {
		secrets = append(secrets, u)
		if i := strings.Index(u, "?"); i >= 0 {
			secrets = append(secrets, u[i+1:])
		}
	} else {
		t.Fatal("the forwarder saw no review URL")
	}
	for _, secret := range secrets {
		if strings.Contains(all, secret) {
			t.Errorf("telemetry or audit holds %q", secret)
		}
	}
	if !strings.Contains(all, "error.type=*transport.StatusError") {
		t.Errorf("the failed wait's span has no error.type naming the error's type:\n%s", all)
	}
}

func TestA2ARunIsOneSpanWithTaskEvidence(t *testing.T) {
	s := newSDK(t)
	agent := a2atest.NewAgent(t)
	c, err := a2a.NewClient(append(s.opts, transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ep := agent.Endpoint(a2a.REST03)
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete the report.")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	r, err := c.Run(ctx, a2a.NewPause(ep, ev.Task), func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
		asked++
		if p := c.Pending(); len(p) != 1 || p[0].ID != ev.Task.ID || !strings.HasPrefix(p[0].Kind, "a2a/") {
			t.Errorf("Pending during the run = %+v", p)
		}
		return a2a.Reject(p), nil
	}, nil)
	if err != nil || r.Decision != transport.DecisionReject {
		t.Fatalf("Run = %+v, %v; want a rejection", r, err)
	}
	sp := s.span(t, "a2a")
	if v, _ := attr(sp, "hitl.decision"); v.AsString() != "reject" {
		t.Errorf("hitl.decision = %q", v.Emit())
	}
	n := 0
	for _, e := range sp.Events() {
		if e.Name == "hitl.forwarded" {
			n++
		}
	}
	if n != asked || asked == 0 {
		t.Errorf("%d hitl.forwarded events for %d questions asked", n, asked)
	}
	if len(s.records) != 1 || s.records[0].Evidence.TaskID != ev.Task.ID || s.records[0].ArgumentsSHA256 == "" {
		t.Errorf("records %+v, want one with the task id and the tool call's arguments digest", s.records)
	}
	if p := c.Pending(); len(p) != 0 {
		t.Errorf("Pending after the run = %+v", p)
	}
}

func TestHXPWaitRecordsTheReceipt(t *testing.T) {
	s := newSDK(t)
	srv := hxptest.NewServer(t)
	c, err := hxp.NewClient(srv.URL, append(s.opts, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		if id := srv.NextRequest(done); id != "" {
			_, _ = srv.Resolve(id, "approved", "", "user_owner")
		}
	}()
	created, err := c.Create(context.Background(), &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600,
		AgentID: "agent_1", Approve: &hxp.Approve{Item: "Refund order 42", Details: json.RawMessage(`{"amount":42}`)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait(context.Background(), created, &hxp.WaitOptions{CheckReceipt: true})
	if err != nil {
		t.Fatal(err)
	}
	sp := s.span(t, "hxp")
	if v, _ := attr(sp, "hitl.kind"); v.AsString() != "hxp/approve" {
		t.Errorf("hitl.kind = %q", v.Emit())
	}
	if len(s.records) == 1 && s.records[0].LearnedBy != "websocket" && s.records[0].LearnedBy != "poll" {
		t.Errorf("learned_by %q, want websocket or poll", s.records[0].LearnedBy)
	}
	rc, _ := hxp.ReceiptOf(res)
	if len(s.records) != 1 || rc == nil || s.records[0].Evidence.ReceiptHash != rc.EvidenceHash || rc.EvidenceHash == "" {
		t.Errorf("records %+v, want one with the receipt's evidence hash", s.records)
	}
}
