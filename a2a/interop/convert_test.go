package interop

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	hk "github.com/hitlkit/hitlkit/a2a"
)

// TestA2AGoClientWithHitlkit: a program on a2a-go's own client sends to the real server,
// turns the *a2a.Task it gets into a Pause (question, tool call, prompt), and answers with
// the a2a-go message Message builds from hitlkit's Answer, over two questions to completion;
// the task's JSON reads the same. A task that is not paused is no pause; bad input is a typed
// error.
func TestA2AGoClientWithHitlkit(t *testing.T) {
	p := startPeer(t, 2)
	ep := p.endpoint(hk.JSONRPC10)
	client, err := a2aclient.NewFromEndpoints(ctx(t), []*a2a.AgentInterface{a2a.NewAgentInterface(ep.URL, a2a.TransportProtocolJSONRPC)},
		a2aclient.WithJSONRPCTransport(p.hc))
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.SendMessage(ctx(t), &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("clean up"))})
	if err != nil {
		t.Fatal(err)
	}
	for questions := 1; ; questions++ {
		task, ok := res.(*a2a.Task)
		if !ok {
			t.Fatalf("SendMessage = %T", res)
		}
		pause, err := PauseOf(ep, task)
		if err != nil {
			t.Fatal(err)
		}
		if pause == nil {
			if task.Status.State != a2a.TaskStateCompleted || questions != 3 {
				t.Fatalf("task ended %s after %d questions", task.Status.State, questions-1)
			}
			break
		}
		tc, ok := pause.ToolCall()
		if pause.Class != hk.ClassInputRequired || pause.TaskID != string(task.ID) || !ok || tc.Name != "delete_file" || !strings.Contains(pause.Prompt(), "delete_file") {
			t.Fatalf("pause %+v, tool call %+v", pause, tc)
		}
		fromJSON, err := PauseOfJSON(ep, mustMarshal(t, task))
		if err != nil || fromJSON.Prompt() != pause.Prompt() {
			t.Fatalf("PauseOfJSON = %+v, %v", fromJSON, err)
		}
		m, err := Message(pause, hk.Approve(pause))
		if err != nil || string(m.TaskID) != pause.TaskID || m.ContextID != pause.ContextID || m.Role != a2a.MessageRoleUser || m.ID == "" {
			t.Fatalf("Message = %+v, %v", m, err)
		}
		if res, err = client.SendMessage(ctx(t), &a2a.SendMessageRequest{Message: m}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := PauseOfJSON(ep, []byte(`{"kind":"message","messageId":"m","role":"agent","parts":[]}`)); !errors.Is(err, ErrNoTask) {
		t.Errorf("PauseOfJSON of a message = %v", err)
	}
	if _, err := PauseOfJSON(ep, []byte(`<html>`)); !errors.Is(err, hk.ErrMalformed) {
		t.Errorf("PauseOfJSON of a page = %v", err)
	}
	if _, err := Message(nil, hk.Approve(nil)); !errors.Is(err, hk.ErrNotPaused) {
		t.Errorf("Message without a pause = %v", err)
	}
	if _, err := Message(&hk.Pause{Class: hk.ClassInputRequired}, hk.Answer{}); !errors.Is(err, hk.ErrNoAnswer) {
		t.Errorf("Message without parts = %v", err)
	}
}

// TestMessageKeepsWhatADKReads: the parts' metadata (ADK's function response type) and the
// answer's metadata (trpc-agent-go's resume) reach the a2a-go message; a graph interrupt's
// answer names the context only.
func TestMessageKeepsWhatADKReads(t *testing.T) {
	adk, err := PauseOfJSON(hk.Endpoint{}, []byte(`{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q","role":"ROLE_AGENT","parts":[
		{"data":{"id":"call-1","name":"ask_human","args":{"question":"New name?"}},"metadata":{"adk_type":"function_call","adk_is_long_running":true}}]}}}`))
	if err != nil || adk == nil {
		t.Fatal(adk, err)
	}
	m, err := Message(adk, hk.Text(adk, "g.txt"))
	if err != nil || len(m.Parts) != 1 || m.Parts[0].Metadata["adk_type"] != "function_response" || m.Parts[0].Data().(map[string]any)["id"] != "call-1" {
		t.Fatalf("Message = %+v, %v", m, err)
	}
	trpc, err := PauseOfJSON(hk.Endpoint{}, []byte(`{"id":"t2","contextId":"c2","status":{"state":"completed"},"artifacts":[{"parts":[],
		"metadata":{"state_delta":{"_pregel_metadata":"eyJpbnRlcnJ1cHRLZXkiOiJhcHByb3ZlIiwiaW50ZXJydXB0VmFsdWUiOnsicXVlc3Rpb24iOiJEZWxldGUgZi50eHQ/IiwidG9vbCI6ImRlbGV0ZV9maWxlIn0sImxpbmVhZ2VJZCI6ImwxIiwiY2hlY2twb2ludElkIjoiY2sxIiwiY2hlY2twb2ludE5zIjoiIn0="}}}]}`))
	if err != nil || trpc == nil {
		t.Fatal(trpc, err)
	}
	m, err = Message(trpc, hk.Approve(trpc))
	if err != nil || m.TaskID != "" || m.ContextID != "c2" || m.Metadata["checkpoint_id"] != "ck1" {
		t.Fatalf("Message = %+v, %v", m, err)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
