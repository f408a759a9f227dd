package hitladk_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/functiontool"
	"google.golang.org/genai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestToolSide: a tool whose backend answers with a HITL 202 asks the host with Ask; the
// host finds the service's own case in the pause, waits on it with hitl, answers with the
// Result; the re-run tool reads it with Decision. Approve deletes; reject does not.
func TestToolSide(t *testing.T) {
	for _, action := range []string{"approve", "reject"} {
		t.Run(action, func(t *testing.T) {
			ctx := t.Context()
			svc := hitltest.NewServer(t)
			client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
			if err != nil {
				t.Fatal(err)
			}
			var deleted atomic.Bool
			var backendCalls atomic.Int32
			del, err := functiontool.New(functiontool.Config{Name: "delete_file", Description: "Delete a file."},
				func(tctx agent.Context, a DeleteFileArgs) (map[string]any, error) {
					if r, ok, err := hitladk.Decision(tctx); ok {
						if err != nil {
							return nil, err
						}
						if r.Approved() {
							deleted.Store(true)
							return map[string]any{"deleted": a.Path}, nil
						}
						return map[string]any{"not_deleted": a.Path, "status": string(r.Status), "action": r.Action}, nil
					}
					backendCalls.Add(1)
					req, _ := http.NewRequestWithContext(tctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
					resp, err := client.Do(tctx, req, &hitl.CallOptions{DetectOnly: true})
					if err != nil {
						return nil, err
					}
					_ = resp.Body.Close()
					if resp.Interrupt == nil {
						return map[string]any{"deleted": a.Path}, nil
					}
					return map[string]any{"status": "waiting for a person"}, hitladk.Ask(tctx, resp.Interrupt)
				})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := StartAgent(ctx, del)
			if err != nil {
				t.Fatal(err)
			}
			run := func(msg *genai.Content) []*session.Event {
				evs, err := turn(msg)
				if err != nil {
					t.Fatal(err)
				}
				return evs
			}
			pending := hitladk.Pending(run(genai.NewContentFromText("clean up the report", genai.RoleUser)))
			if len(pending) != 1 {
				t.Fatalf("pending %+v", pending)
			}
			it, ok := pending[0].Interrupt()
			if !ok {
				t.Fatalf("the pause carries no interrupt: %+v", pending[0])
			}
			if err := svc.Respond(it.ID(), action, nil, nil); err != nil {
				t.Fatal(err)
			}
			res, err := client.Wait(context.Background(), it, nil)
			if err != nil || res.Action != action {
				t.Fatalf("Wait = %v, %v", res, err)
			}
			run(hitladk.Response(pending[0], res))
			if deleted.Load() != (action == "approve") || backendCalls.Load() != 1 {
				t.Errorf("deleted %v, backend called %d times", deleted.Load(), backendCalls.Load())
			}
		})
	}
}
