package telemetry_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// The decision latency is the time from the question to the Result, on the wait's clock;
// each poll is an event; a dropped event stream is a reconnect.
func TestLatencyPollsAndReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		defer func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }()

		svc := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithTracerProvider(tp),
			transport.WithMeterProvider(mp), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
		if err != nil {
			t.Fatal(err)
		}
		// The first stream connection drops: set before the call, since the client opens
		// its stream as soon as the 202 arrives.
		svc.FailStream("", hitltest.StreamDropMidEvent, 1)
		go func() {
			id := svc.NextCase(nil)
			time.AfterFunc(5*time.Second, func() { _ = svc.Open(id) }) // an event the stream drops
			time.AfterFunc(75*time.Second, func() { _ = svc.Respond(id, "approve", nil, nil) })
		}()
		req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
		resp, err := c.Do(t.Context(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !resp.Result.Approved() {
			t.Fatalf("Result %+v", resp.Result)
		}

		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		var latency float64
		var reconnects int64
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				switch d := m.Data.(type) {
				case metricdata.Histogram[float64]:
					if m.Name == "hitl.decision.duration" && len(d.DataPoints) == 1 {
						latency = d.DataPoints[0].Sum
					}
				case metricdata.Sum[int64]:
					if m.Name == "hitl.push.reconnects" && len(d.DataPoints) == 1 {
						reconnects = d.DataPoints[0].Value
					}
				}
			}
		}
		if latency != 75 {
			t.Errorf("hitl.decision.duration = %v s, want 75 (the click, pushed by the stream)", latency)
		}
		if reconnects < 1 {
			t.Errorf("hitl.push.reconnects = %d, want the dropped stream counted", reconnects)
		}
		var events map[string]int
		for _, s := range spans.GetSpans().Snapshots() {
			if s.Name() == "hitl.wait" {
				events = map[string]int{}
				for _, e := range s.Events() {
					events[e.Name]++
				}
			}
		}
		if events["hitl.push.reconnect"] != int(reconnects) || events["hitl.poll"] < 1 {
			t.Errorf("span events %v, want %d reconnects and the polls", events, reconnects)
		}
	})
}
