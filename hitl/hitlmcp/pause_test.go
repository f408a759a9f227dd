package hitlmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// deployServer has two tools that need a person to approve on a page first: deploy asks
// with an input-required result (multi round-trip), deploy_legacy with a -32042 error.
// approved is the person having finished on the page.
func deployServer(approved *atomic.Bool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1"}, nil)
	page := &mcp.ElicitParams{Mode: "url", Message: "Approve the deploy?", URL: "https://deploy.example/approve/1", ElicitationID: "el-1"}
	done := func(req *mcp.CallToolRequest) *mcp.CallToolResult {
		var args struct{ Env string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed " + args.Env}}}
	}
	schema := map[string]any{"type": "object"}
	server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		answer, _ := req.Params.InputResponses["review"].(*mcp.ElicitResult)
		if req.Params.RequestState == "s1" && answer != nil && answer.Action == "accept" && approved.Load() {
			return done(req), nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"review": page}, RequestState: "s1"}, nil
	})
	server.AddTool(&mcp.Tool{Name: "deploy_legacy", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if approved.Load() {
			return done(req), nil
		}
		return nil, mcp.URLElicitationRequiredError([]*mcp.ElicitParams{page})
	})
	server.AddTool(&mcp.Tool{Name: "ask_form", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: "Why?", RequestedSchema: budget}}}, nil
	})
	return server
}

// TestPausedCallSurvivesARestart: with the client's automatic loop off, a call waiting for a
// person becomes an Interrupt; it is kept in a store; a new process (a new session) takes it
// from the store and retries it — asked again while the person has not finished, the tool's
// result once they have. The same for a -32042 error.
func TestPausedCallSurvivesARestart(t *testing.T) {
	for _, tool := range []string{"deploy", "deploy_legacy"} {
		t.Run(tool, func(t *testing.T) {
			var approved atomic.Bool
			server := deployServer(&approved)
			manual := func() *mcp.Client {
				return mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
			}
			call := &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"env": "prod"}}
			res, err := connect(t, server, manual()).CallTool(t.Context(), call)
			it, perr := hitlmcp.Paused(call, res, err)
			if perr != nil || it.Case.ReviewURL != "https://deploy.example/approve/1" || it.ID() == "" || it.Prompt() != "Approve the deploy?" {
				t.Fatalf("Paused = %+v, %v (call: %v)", it, perr, err)
			}
			store := &hitl.MemoryStore{}
			if err := store.Put(t.Context(), it); err != nil {
				t.Fatal(err)
			}

			// A new process: a new session, the interrupt from the store (through its JSON).
			kept, err := store.List(t.Context())
			if err != nil || len(kept) != 1 {
				t.Fatalf("List = %v, %v", kept, err)
			}
			b, _ := json.Marshal(kept[0])
			var again hitl.Interrupt
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, server, manual())
			res, err = hitlmcp.Retry(t.Context(), cs, &again)
			if _, perr := hitlmcp.Paused(call, res, err); perr != nil {
				t.Fatalf("a retry before the person finished: %+v, %v; want it still paused (%v)", res, err, perr)
			}
			approved.Store(true)
			res, err = hitlmcp.Retry(t.Context(), cs, &again)
			if err != nil || text(res) != "deployed prod" {
				t.Fatalf("a retry after the person finished = %q, %v", text(res), err)
			}
			if _, perr := hitlmcp.Paused(call, res, err); !errors.Is(perr, hitlmcp.ErrNotPaused) {
				t.Errorf("Paused on the tool's result = %v, want ErrNotPaused", perr)
			}
		})
	}
	t.Run("form", func(t *testing.T) {
		var approved atomic.Bool
		cs := connect(t, deployServer(&approved), mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"},
			&mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}))
		call := &mcp.CallToolParams{Name: "ask_form"}
		res, err := cs.CallTool(t.Context(), call)
		if _, perr := hitlmcp.Paused(call, res, err); !errors.Is(perr, hitlmcp.ErrFormInput) {
			t.Errorf("Paused on a form = %v, want ErrFormInput", perr)
		}
	})
}

// TestPausedCallsKeptApart: two paused calls alike — the same tool, arguments and page, an
// elicitationId or none (2026-07-28 input requests carry none) — are two interrupts with ids
// of their own, both kept in a store and both resumed.
func TestPausedCallsKeptApart(t *testing.T) {
	for _, elicitationID := range []string{"", "el-1"} {
		t.Run("elicitationId "+elicitationID, func(t *testing.T) {
			server := mcp.NewServer(&mcp.Implementation{Name: "deployer", Version: "1"}, nil)
			var calls atomic.Int32
			server.AddTool(&mcp.Tool{Name: "deploy", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if req.Params.RequestState != "" {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed " + req.Params.RequestState}}}, nil
				}
				return &mcp.CallToolResult{RequestState: fmt.Sprint("s", calls.Add(1)), InputRequests: mcp.InputRequestMap{"review": &mcp.ElicitParams{
					Mode: "url", Message: "Approve?", URL: "https://deploy.example/approve", ElicitationID: elicitationID}}}, nil
			})
			cs := connect(t, server, mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}))
			store := &hitl.MemoryStore{}
			for range 2 {
				call := &mcp.CallToolParams{Name: "deploy", Arguments: map[string]any{"env": "prod"}}
				res, err := cs.CallTool(t.Context(), call)
				it, perr := hitlmcp.Paused(call, res, err)
				if perr != nil {
					t.Fatal(perr)
				}
				if err := store.Put(t.Context(), it); err != nil {
					t.Fatal(err)
				}
			}
			kept, err := store.List(t.Context())
			if err != nil || len(kept) != 2 || kept[0].ID() == kept[1].ID() {
				t.Fatalf("the store keeps %v, %v; want two paused calls", kept, err)
			}
			got := map[string]bool{}
			for _, it := range kept {
				res, err := hitlmcp.Retry(t.Context(), cs, it)
				if err != nil {
					t.Fatal(err)
				}
				got[text(res)] = true
			}
			if !got["deployed s1"] || !got["deployed s2"] {
				t.Errorf("resumed %v, want both calls", got)
			}
		})
	}
}
