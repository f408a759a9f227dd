package a2a_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// Classify tells a relay's hold and a legacy "completed" hold from real progress and real
// completion, in either wire family.
func ExampleClassify() {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"input-required"}}}`,
		`{"task":{"id":"t2","status":{"state":"TASK_STATE_WORKING"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"r1","status":{"state":"working"},"metadata":{"relay_task":true}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"r2","status":{"state":"completed"},"metadata":{"hitl_pending":{"sink_agent_id":"b"}}}}`,
		`{"id":"t3","status":{"state":"TASK_STATE_CANCELLED"}}`,
	} {
		ev, err := a2a.Decode([]byte(body))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(ev.TaskID(), a2a.Classify(ev.Task), ev.Class().Paused())
	}
	// Output:
	// t1 input-required true
	// t2 working false
	// r1 relay true
	// r2 relay-pending true
	// t3 done false
}

// Run answers a tool-approval agent's questions through an Asker until its task ends.
func ExampleClient_Run() {
	agent := a2atest.NewUnstartedAgent(a2atest.WithQuestions(2))
	agent.Start()
	defer agent.Close()
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ep := agent.Endpoint(a2a.REST03)
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ask := func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
		fmt.Println("asked:", string(p.Question.Parts[1].Data))
		return a2a.Approve(p), nil
	}
	r, err := c.Run(ctx, a2a.NewPause(ep, ev.Task), ask, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Action, "go-ahead:", r.Approved())
	// Output:
	// asked: {"interaction_type":"tool_approval","options":["approve","deny"],"tool_input":{"path":"/tmp/report-1.txt"},"tool_name":"delete_file"}
	// asked: {"interaction_type":"tool_approval","options":["approve","deny"],"tool_input":{"path":"/tmp/report-2.txt"},"tool_name":"delete_file"}
	// completed approve go-ahead: true
}

// Runner holds the run of a paused task as a transport.Waiter, the shape every protocol's
// wait shares.
func ExampleClient_Runner() {
	agent := a2atest.NewUnstartedAgent()
	agent.Start()
	defer agent.Close()
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ep := agent.Endpoint(a2a.JSONRPC03)
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	approve := func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) { return a2a.Approve(p), nil }
	var w transport.Waiter[*a2a.Pause] = c.Runner(approve, nil)
	r, err := w.Wait(ctx, a2a.NewPause(ep, ev.Task))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Action, "go-ahead:", r.Approved())
	// Output:
	// completed approve go-ahead: true
}

// Cancel stops a task the agent is still working on, or waiting on; a Run waiting on it
// then returns a cancelled Result.
func ExampleClient_Cancel() {
	agent := a2atest.NewUnstartedAgent(a2atest.WithAuthFirst())
	agent.Start()
	defer agent.Close()
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ep := agent.Endpoint(a2a.JSONRPC10)
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ev.Task.State)
	t, err := c.Cancel(ctx, ep, ev.Task.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.State)
	_, err = c.Cancel(ctx, ep, ev.Task.ID)
	fmt.Println(errors.Is(err, a2a.ErrTaskNotCancelable))
	// Output:
	// auth-required
	// canceled
	// true
}

// An agent of the previous Hector generation answers a message for a task that has ended by
// starting a new task. That task is not the answer: Resume reports the mismatch with both ids.
func Example_mismatch() {
	agent := a2atest.NewUnstartedAgent(a2atest.WithProfile(a2atest.ProfileLegacyHector))
	agent.Start()
	defer agent.Close()
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ep := agent.Endpoint(a2a.JSONRPC03)
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := a2a.NewPause(ep, ev.Task)
	if _, err := c.Resume(ctx, p, a2a.HectorDecision(true)); err != nil {
		fmt.Println(err)
		return
	}
	_, err = c.Resume(ctx, p, a2a.HectorDecision(true)) // the task has completed
	fmt.Println(errors.Is(err, transport.ErrMismatch))
	fmt.Println(err)
	// Output:
	// true
	// answer for another id: task "task-2", not "task-1"
}

// Approve, Reject and Text answer any pause the way its agent reads an answer: here an ADK
// long-running ask_human call, which takes only a function response for its call id, and a
// graph interrupt of trpc-agent-go, which resumes from message metadata.
func ExampleText() {
	adk, _ := a2a.Decode([]byte(`{"id":"t1","contextId":"c1","status":{"state":"input-required","message":{"role":"agent","parts":[
		{"kind":"data","data":{"id":"call-7","name":"ask_human","args":{"question":"What should f.txt be renamed to?"}},
		 "metadata":{"adk_type":"function_call","adk_is_long_running":true}}]}}}`))
	p := a2a.NewPause(a2a.Endpoint{}, adk.Task)
	fmt.Println(p.Prompt())
	a := a2a.Text(p, "g.txt")
	fmt.Println(string(a.Parts[0].Data), string(a.Parts[0].Metadata))

	trpc, _ := a2a.Decode([]byte(`{"id":"t2","contextId":"c2","status":{"state":"completed"},"artifacts":[{"parts":[],
		"metadata":{"state_delta":{"_pregel_metadata":"eyJpbnRlcnJ1cHRLZXkiOiJhcHByb3ZlIiwiaW50ZXJydXB0VmFsdWUiOnsicXVlc3Rpb24iOiJEZWxldGUgZi50eHQ/IiwidG9vbCI6ImRlbGV0ZV9maWxlIn0sImxpbmVhZ2VJZCI6ImwxIiwiY2hlY2twb2ludElkIjoiY2sxIiwiY2hlY2twb2ludE5zIjoiIn0="}}}]}`))
	p = a2a.NewPause(a2a.Endpoint{}, trpc.Task)
	fmt.Println(p.Class, p.Prompt())
	a = a2a.Reject(p)
	fmt.Println(a.Action, string(a.Metadata))
	// Output:
	// What should f.txt be renamed to?
	// {"id":"call-7","name":"ask_human","response":{"answer":"g.txt"}} {"adk_type":"function_response"}
	// input-required Delete f.txt?
	// deny {"checkpoint_id":"ck1","checkpoint_ns":"","lineage_id":"l1","resume_map":{"approve":false}}
}
