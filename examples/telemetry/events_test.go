package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hitlkit/hitlkit/hitl"
)

// A wait the event stream settles has a hitl.push.settle event and learned_by stream; an
// expiry whose default applied says so with no decision; a forwarder that fails is a
// hitl.forward_failed event, a hitl.forward.failures count and a span in error.
func TestSpanEventsOfPushDefaultAndFailure(t *testing.T) {
	events := func(t *testing.T, r *rig) map[string]int {
		t.Helper()
		spans := r.waitSpans(t)
		if len(spans) != 1 {
			t.Fatalf("%d hitl.wait spans, want 1", len(spans))
		}
		n := map[string]int{}
		for _, e := range spans[0].Events() {
			n[e.Name]++
		}
		return n
	}

	t.Run("settled by the stream, default applied", func(t *testing.T) {
		r := newRig(t)
		resp, err := r.callWith(t, context.Background(), `{"default_action":"approve"}`, &hitl.CallOptions{EveryDecisionOK: true},
			func(id string) { _ = r.svc.Expire(id) })
		if err != nil || resp.Result.Approved() {
			t.Fatalf("Do = %+v, %v; want an expiry, no go-ahead", resp, err)
		}
		resp.Body.Close()
		if n := events(t, r); n["hitl.push.settle"] != 1 {
			t.Errorf("events %v, want one hitl.push.settle", n)
		}
		s := r.waitSpans(t)[0]
		for key, want := range map[string]string{"hitl.status": "expired", "hitl.decision": "", "hitl.default_applied": "true", "hitl.learned_by": "stream"} {
			if v, ok := attr(s, key); !ok || v.Emit() != want {
				t.Errorf("%s = %q (set: %v), want %q", key, v.Emit(), ok, want)
			}
		}
		if _, ok := attr(s, "hitl.push.wakes"); !ok {
			t.Error("no hitl.push.wakes on the span")
		}
	})

	t.Run("forwarder fails", func(t *testing.T) {
		r := newRig(t, hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return errors.New("chat down") }))
		if _, err := r.call(t, context.Background(), `{}`, func(string) {}); err == nil {
			t.Fatal("Do with a failing forwarder returned no error")
		}
		if n := events(t, r); n["hitl.forward_failed"] != 1 || n["hitl.forwarded"] != 0 {
			t.Errorf("events %v, want one hitl.forward_failed", n)
		}
		s := r.waitSpans(t)[0]
		if s.Status().Code != codes.Error || s.Status().Description == "" {
			t.Errorf("span status %+v, want an error naming its type", s.Status())
		}
		if f, ok := r.metrics(t)["hitl.forward.failures"].(metricdata.Sum[int64]); !ok || len(f.DataPoints) != 1 || f.DataPoints[0].Value != 1 {
			t.Errorf("hitl.forward.failures = %+v, want 1", r.metrics(t)["hitl.forward.failures"])
		}
		if r.audit.Len() != 0 {
			t.Errorf("a failed wait made an audit record: %s", r.audit)
		}
	})
}
