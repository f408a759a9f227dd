package hitlmcpgo_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	gomcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// TestProgress: while a hitlmcpgo tool waits for the person, a go-sdk client that gave a
// progress token hears notifications/progress — rising, without the review link — on both
// revisions.
func TestProgress(t *testing.T) {
	for _, rev := range revisions {
		t.Run(rev, func(t *testing.T) {
			b := newBackend(t)
			p := newPipes(t)
			serveMCPGo(t, p, b.goTool(2500*time.Millisecond))
			var mu sync.Mutex
			var heard []*gomcp.ProgressNotificationParams
			o := hitlmcp.ClientOptions(nil, func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
				return hitlmcp.Answer{Action: "decline"}, nil
			})
			o.ProgressNotificationHandler = func(_ context.Context, r *gomcp.ProgressNotificationClientRequest) {
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, r.Params)
			}
			cs := sdkClient(t, p, rev, o)
			params := &gomcp.CallToolParams{Name: "delete_file"}
			params.SetProgressToken("p-1")
			res, err := cs.CallTool(t.Context(), params)
			if err != nil || !res.IsError {
				t.Fatalf("CallTool = %+v, %v; want not done", res, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(heard) < 2 {
				t.Fatalf("heard %d notifications, want one at the start and one a second", len(heard))
			}
			for i, n := range heard {
				if n.ProgressToken != "p-1" || strings.Contains(n.Message, "http") || (i > 0 && n.Progress <= heard[i-1].Progress) {
					t.Errorf("notification %d: %+v", i, n)
				}
			}
		})
	}
}
