package a2a_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestGenericAnswersEveryStyle: Approve and Reject, with no vendor builder named, answer a
// task that asks twice in every style the fakes speak — Hector v1 and v2, an ADK
// confirmation, Mastra, an ADK long-running call, a trpc-agent-go graph interrupt — as
// the agent reads a yes or a no: two approvals end in a go-ahead, a rejection in a
// rejection that is never one. The Result keeps every answer given, in order (AnswersOf),
// and the agent read the same words.
func TestGenericAnswersEveryStyle(t *testing.T) {
	type agentKind struct {
		name string
		opts []a2atest.AgentOption
	}
	kinds := []agentKind{
		{"Hector v1", []a2atest.AgentOption{a2atest.WithStyle(a2atest.StyleHectorV1)}},
		{"Hector v2", []a2atest.AgentOption{a2atest.WithStyle(a2atest.StyleHectorV2)}},
		{"ADK confirmation", []a2atest.AgentOption{a2atest.WithStyle(a2atest.StyleADK)}},
		{"Mastra", []a2atest.AgentOption{a2atest.WithStyle(a2atest.StyleMastra)}},
		{"ADK long-running", []a2atest.AgentOption{a2atest.WithStyle(a2atest.StyleADKLongRunning)}},
		{"trpc-agent-go", []a2atest.AgentOption{a2atest.WithProfile(a2atest.ProfileTRPC)}},
	}
	for _, k := range kinds {
		for _, yes := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s approve=%v", k.name, yes), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, append([]a2atest.AgentOption{a2atest.WithQuestions(2)}, k.opts...)...)
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
				asked := 0
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					asked++
					if yes {
						return a2a.Approve(q), nil
					}
					return a2a.Reject(q), nil
				}, nil)
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				want := []string{"approve", "approve"}
				if !yes {
					want = []string{"deny"}
				}
				if r.Approved() != yes || (!yes && r.Decision != transport.DecisionReject) || asked != len(want) {
					t.Fatalf("Run = %v (decision %q) after %d asks; want Approved %v after %d", r, r.Decision, asked, yes, len(want))
				}
				answers, err := a2a.AnswersOf(r)
				var actions []string
				for _, a := range answers {
					actions = append(actions, a.Action)
				}
				if err != nil || !slices.Equal(actions, want) {
					t.Errorf("AnswersOf = %q, %v; want %q", actions, err, want)
				}
				final, err := a2a.TaskOf(r)
				if err != nil {
					t.Fatalf("TaskOf: %v", err)
				}
				if st, _ := agent.Task(final.ID); !slices.Equal(st.Answers, want) {
					t.Errorf("the agent read %q, want %q", st.Answers, want)
				}
			})
		}
	}
}
