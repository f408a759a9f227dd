package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// A wait's span and metrics through the SDK's stdout exporters. A real program installs its
// providers once, globally (otel.SetTracerProvider, otel.SetMeterProvider), and every client
// uses them; here they are given to one client.
func Example() {
	var traces, metrics bytes.Buffer
	te, _ := stdouttrace.New(stdouttrace.WithWriter(&traces), stdouttrace.WithoutTimestamps())
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(te))
	me, _ := stdoutmetric.New(stdoutmetric.WithWriter(&metrics), stdoutmetric.WithoutTimestamps())
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me)))

	svc := hitltest.NewUnstartedServer() // a fake HITL service on loopback
	svc.Start()
	defer svc.Close()
	go func() { _ = svc.Respond(svc.NextCase(nil), "approve", nil, nil) }() // the human

	client, _ := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithTracerProvider(tp), transport.WithMeterProvider(mp),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }),
	)
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := client.Do(context.Background(), req, &hitl.CallOptions{Wait: &hitl.WaitOptions{PollOnly: true}})
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	_ = tp.Shutdown(context.Background())
	_ = mp.Shutdown(context.Background()) // flushes the metrics

	var span struct {
		Name       string
		Attributes []struct {
			Key   string
			Value struct{ Value any }
		}
		Events []struct{ Name string }
	}
	_ = json.Unmarshal(traces.Bytes(), &span)
	fmt.Println("span:", span.Name)
	for _, a := range span.Attributes {
		switch a.Key {
		case "hitl.protocol", "hitl.kind", "hitl.review_type", "hitl.status", "hitl.decision", "hitl.learned_by":
			fmt.Printf("  %s=%v\n", a.Key, a.Value.Value)
		}
	}
	fmt.Println("  first event:", span.Events[0].Name)

	var m struct {
		ScopeMetrics []struct{ Metrics []struct{ Name string } }
	}
	_ = json.Unmarshal(metrics.Bytes(), &m)
	var names []string
	for _, sm := range m.ScopeMetrics {
		for _, x := range sm.Metrics {
			names = append(names, x.Name)
		}
	}
	slices.Sort(names)
	fmt.Println("metrics:", strings.Join(names, " "))
	// Output:
	// span: hitl.wait
	//   hitl.protocol=hitl
	//   hitl.kind=hitl
	//   hitl.review_type=approval
	//   hitl.status=completed
	//   hitl.decision=approve
	//   hitl.learned_by=poll
	//   first event: hitl.forwarded
	// metrics: hitl.decision.duration hitl.wait.open hitl.wait.requests
}
