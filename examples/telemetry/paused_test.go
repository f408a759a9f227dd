package telemetry_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/telemetry"
	"github.com/hitlkit/hitlkit/transport"
)

// TestPausedWaitIsNoError: a wait its caller ends on purpose while the question stays open
// (an MCP tool call's check, whose context ends with the cause telemetry.Paused) ends its span
// undecided — no error status, no error.type, no status or decision; a wait ended by any
// other deadline is an error span.
func TestPausedWaitIsNoError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		spans := tracetest.NewInMemoryExporter()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
		defer func() { _ = tp.Shutdown(context.Background()) }()
		svc := hitltest.NewMemoryServer(t)
		c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithTracerProvider(tp))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
		if err != nil || resp.Interrupt == nil {
			t.Fatalf("Do = %+v, %v", resp, err)
		}
		resp.Body.Close()
		for _, cause := range []error{telemetry.Paused, nil} {
			spans.Reset()
			ctx, cancel := context.WithTimeoutCause(t.Context(), 20*time.Second, cause)
			_, err := c.Wait(ctx, resp.Interrupt, &hitl.WaitOptions{PollOnly: true})
			cancel()
			if err == nil {
				t.Fatal("a wait on an undecided case ended without error")
			}
			var waits []sdktrace.ReadOnlySpan
			for _, s := range spans.GetSpans().Snapshots() {
				if s.Name() == "hitl.wait" {
					waits = append(waits, s)
				}
			}
			if len(waits) != 1 {
				t.Fatalf("cause %v: %d wait spans, want 1", cause, len(waits))
			}
			s := waits[0]
			_, hasType := attr(s, "error.type")
			_, hasStatus := attr(s, "hitl.status")
			switch paused := errors.Is(cause, telemetry.Paused); {
			case paused && (s.Status().Code == codes.Error || hasType || hasStatus):
				t.Errorf("a paused wait's span: status %v, error.type %v, hitl.status %v; want it undecided, no error", s.Status(), hasType, hasStatus)
			case !paused && (s.Status().Code != codes.Error || !hasType):
				t.Errorf("a wait ended by its deadline: status %v, error.type %v; want an error span", s.Status(), hasType)
			}
		}
	})
}
