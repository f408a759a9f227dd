package interop

import (
	"context"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	hk "github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// BenchmarkPoll compares the unit of a polling wait — one task query of a task paused for
// input, on the real a2a-go server's 1.0 JSON-RPC endpoint on loopback — through hitlkit's
// client and through a2a-go's own client. Both send one POST per query; the figures are each
// client's time and allocations around the same round trip.
func BenchmarkPoll(b *testing.B) {
	p := startPeer(b, 1)
	ep := p.endpoint(hk.JSONRPC10)
	ctx := context.Background()
	c, err := hk.NewClient(transport.WithHTTPClient(p.hc), transport.WithAllowPrivateAddresses())
	if err != nil {
		b.Fatal(err)
	}
	ev, err := c.Send(ctx, ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up")}}, nil)
	if err != nil || hk.NewPause(ep, ev.Task) == nil {
		b.Fatalf("Send = %+v, %v", ev, err)
	}
	id := ev.Task.ID
	b.Run("hitlkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t, err := c.GetTask(ctx, ep, id)
			if err != nil || hk.Classify(t) != hk.ClassInputRequired {
				b.Fatal(t, err)
			}
		}
	})
	b.Run("a2a-go", func(b *testing.B) {
		ac, err := a2aclient.NewFromEndpoints(ctx, []*a2a.AgentInterface{{URL: ep.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
			a2aclient.WithJSONRPCTransport(p.hc))
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = ac.Destroy() }()
		b.ReportAllocs()
		for b.Loop() {
			t, err := ac.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(id)})
			if err != nil || t.Status.State != a2a.TaskStateInputRequired {
				b.Fatal(t, err)
			}
		}
	})
}
