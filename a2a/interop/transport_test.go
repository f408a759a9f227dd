package interop

import (
	"context"
	"net/http"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	hk "github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// TestA2AGoClientBehindTransport: a2a-go's client, whose HTTP client is hitl's Transport,
// sends to the real server; the task pauses, the human approves, the tool runs, and the
// client reads the agent's final task — in the binding it spoke, JSON-RPC and REST — with
// no error after the side effect.
func TestA2AGoClientBehindTransport(t *testing.T) {
	for _, tt := range []struct {
		binding  hk.Binding
		protocol a2a.TransportProtocol
		option   func(*http.Client) a2aclient.FactoryOption
	}{
		{hk.JSONRPC10, a2a.TransportProtocolJSONRPC, a2aclient.WithJSONRPCTransport},
		{hk.REST10, a2a.TransportProtocolHTTPJSON, a2aclient.WithRESTTransport},
	} {
		t.Run(string(tt.binding), func(t *testing.T) {
			p := startPeer(t, 1)
			forward := func(context.Context, *hitl.Interrupt) error { return nil }
			hc, err := hitl.NewClient(transport.WithHTTPClient(p.hc), transport.WithAllowPrivateAddresses(), hitl.WithForwarder(forward))
			if err != nil {
				t.Fatal(err)
			}
			asked := 0
			ask := func(_ context.Context, q *hk.Pause) (hk.Answer, error) {
				asked++
				return hk.Approve(q), nil
			}
			through := &http.Client{Transport: hc.Transport(p.hc.Transport, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: ask}})}
			client, err := a2aclient.NewFromEndpoints(ctx(t), []*a2a.AgentInterface{a2a.NewAgentInterface(p.endpoint(tt.binding).URL, tt.protocol)},
				tt.option(through), a2aclient.WithDefaultsDisabled())
			if err != nil {
				t.Fatal(err)
			}
			res, err := client.SendMessage(ctx(t), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("clean up"))})
			if err != nil {
				t.Fatalf("SendMessage through the transport: %v", err)
			}
			task, ok := res.(*a2a.Task)
			if !ok || task.Status.State != a2a.TaskStateCompleted || asked != 1 || len(task.Artifacts) != 1 {
				t.Fatalf("SendMessage = %+v after %d asks; want the completed task", res, asked)
			}
			if got := p.agent.decisionsOf(string(task.ID)); len(got) != 1 || got[0] != "approve" {
				t.Errorf("the agent read %v", got)
			}
		})
	}
}
