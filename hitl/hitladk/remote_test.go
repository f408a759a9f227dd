package hitladk_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/server/adka2a/v2"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRemoteADKAgent: an ADK agent served over A2A by ADK's own server (adka2a and a2a-go's
// JSON-RPC handler, on loopback), with a scripted model and a delete_file tool that requires
// confirmation. hitlkit's A2A client sends the request, sees the task wait for input with
// ADK's adk_request_confirmation call, answers with a2a.ADKConfirmation, and the task ends:
// the file is deleted when confirmed, and not when refused.
func TestRemoteADKAgent(t *testing.T) {
	for _, confirmed := range []bool{true, false} {
		var deleted atomic.Bool
		del, err := NewDeleteFileTool(func(string) { deleted.Store(true) })
		if err != nil {
			t.Fatal(err)
		}
		a, err := llmagent.New(llmagent.Config{Name: "files", Model: ScriptedModel{}, Tools: []tool.Tool{del}})
		if err != nil {
			t.Fatal(err)
		}
		executor := adka2a.NewExecutor(adka2a.ExecutorConfig{RunnerConfig: runner.Config{
			AppName: "files", Agent: a, SessionService: session.InMemoryService()}})
		srv := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(executor)))

		c, err := a2a.NewClient(transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses())
		if err != nil {
			t.Fatal(err)
		}
		ep := a2a.Endpoint{URL: srv.URL, Binding: a2a.JSONRPC10}
		ctx := t.Context()
		ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up the report")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Task == nil || ev.Task.State != a2a.StateInputRequired {
			t.Fatalf("first answer %+v: want a task waiting for input", ev)
		}
		var asked int
		r, err := c.Run(ctx, a2a.NewPause(ep, ev.Task), func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
			asked++
			return a2a.ADKConfirmation(p, confirmed)
		}, nil)
		srv.Close()
		if err != nil {
			t.Fatalf("confirmed=%v: Run = %v", confirmed, err)
		}
		if asked != 1 || deleted.Load() != confirmed || r.Status != "completed" {
			t.Errorf("confirmed=%v: asked %d times, deleted %v, result %+v", confirmed, asked, deleted.Load(), r)
		}
	}
}
