package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestNotFoundShapes: every way agents say they do not know a task matches ErrTaskNotFound,
// and nothing else does.
func TestNotFoundShapes(t *testing.T) {
	for name, e := range map[string]*a2a.Error{
		"-32001":                  {Code: -32001, Message: "task not found"},
		"Hector v1.9.9 by name":   {Code: -32602, Message: "Task not found: rpc error: code = NotFound desc = task tasks/t1 not found"},
		"gRPC NotFound, internal": {Code: -32603, Message: "rpc error: code = NotFound desc = no such task"},
		"in data.error":           {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"task not found: t1"}`)},
		"REST reason":             {Code: -32001, Reason: "TASK_NOT_FOUND", HTTPStatus: 404},
		"not: invalid params":     {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"contextId mismatch"}`)},
		"not: method not found":   {Code: -32601, Message: "method not found"},
		"not: file not found":     {Code: -32603, Message: "file not found"},
	} {
		want := name[:4] != "not:"
		if got := errors.Is(e, a2a.ErrTaskNotFound); got != want {
			t.Errorf("%s: Is(ErrTaskNotFound) = %v, want %v", name, got, want)
		}
	}
}

// TestAgentThatDidNotUnderstand: an agent that does not understand "maybe" asks about the
// same tool call again; the human is asked again — told that "maybe" was not taken, with the
// agent's new text — and the task completes after the second answer; the Result keeps both
// answers in order. An agent that never takes the answer ends the run after the third ask
// with a RepeatedCallError. On every binding of every profile.
func TestAgentThatDidNotUnderstand(t *testing.T) {
	for _, profile := range a2atest.Profiles() {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(profile), a2atest.WithStrictAnswers())
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				var prompts []string
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					prompts = append(prompts, q.Prompt())
					if len(prompts) == 1 {
						return a2a.Text(q, "maybe"), nil
					}
					return a2a.Approve(q), nil
				}, nil)
				if err != nil || !r.Approved() {
					t.Fatalf("Run = %v, %v", r, err)
				}
				if len(prompts) != 2 || !strings.HasPrefix(prompts[1], `Your previous answer ("maybe") was not taken`) || !strings.Contains(prompts[1], `I did not understand "maybe" (try 2)`) {
					t.Errorf("prompts = %q", prompts)
				}
				answers, err := a2a.AnswersOf(r)
				if err != nil || len(answers) != 2 || answers[0].Parts[0].Text != "maybe" || answers[1].Action != "approve" {
					t.Errorf("AnswersOf = %+v, %v; want maybe, then approve", answers, err)
				}
				if st, _ := agent.Task(p.TaskID); len(st.Answers) != 1 || st.Answers[0] != "approve" {
					t.Errorf("the agent read %v", st.Answers)
				}

				p = start(t, c, agent.Endpoint(b), nil)
				asked := 0
				_, err = c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					asked++
					return a2a.Text(q, "maybe"), nil
				}, nil)
				var rc *a2a.RepeatedCallError
				if !errors.As(err, &rc) || rc.Asked != 3 || asked != 3 || rc.Call.Name != "delete_file" {
					t.Errorf("Run of an agent that never takes the answer = %v after %d asks; want a RepeatedCallError after 3", err, asked)
				}
			})
		}
	}
}

// TestMastraToolCall: Mastra's suspendPayload names the tool call, its id also in
// metadata.suspendedToolCallId; the prompt shows the call beside Mastra's generic text.
func TestMastraToolCall(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithStyle(a2atest.StyleMastra))
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(b), nil)
			tc, ok := p.ToolCall()
			if !ok || tc.Name != "delete_file" || string(tc.Arguments) != `{"path":"/tmp/report-1.txt"}` || tc.CallID != "call-"+p.TaskID+"-1" {
				t.Fatalf("ToolCall = %+v, %v", tc, ok)
			}
			if q := p.Prompt(); !strings.Contains(q, "Additional input is required") || !strings.Contains(q, `Approve the call of delete_file with arguments {"path":"/tmp/report-1.txt"}?`) {
				t.Errorf("Prompt = %q", q)
			}
			r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) { return a2a.Reject(q), nil }, nil)
			if err != nil || r.Approved() || r.Decision != transport.DecisionReject {
				t.Errorf("Run = %v, %v", r, err)
			}
		})
	}
}

// TestADKLongRunningCall: ADK Go's long-running ask_human call in the status message is the
// tool call (long-running, its id), its question is the prompt, and only a function response
// for its id answers it: a plain text answer is not taken (the human is asked again, told
// so), ADKFunctionResponse's (through Text) completes the task with the human's words. ADK
// serves A2A through a2a-go: the profiles of a2a-go.
func TestADKLongRunningCall(t *testing.T) {
	for _, profile := range []a2atest.Profile{a2atest.ProfileSpec, a2atest.ProfileA2AGoV03} {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(profile), a2atest.WithStyle(a2atest.StyleADKLongRunning))
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				tc, ok := p.ToolCall()
				if !ok || !tc.LongRunning || tc.Name != "ask_human" || tc.CallID != "lr-"+p.TaskID+"-1" {
					t.Fatalf("ToolCall = %+v, %v", tc, ok)
				}
				if q := p.Prompt(); q != "What should f-1.txt be renamed to?" {
					t.Errorf("Prompt = %q", q)
				}
				asked := 0
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					asked++
					if asked == 1 {
						return a2a.Answer{Parts: []a2a.Part{a2a.TextPart("g-1.txt")}}, nil
					}
					if q.NotTaken == nil {
						t.Errorf("second ask without NotTaken")
					}
					return a2a.Text(q, "g-1.txt"), nil
				}, nil)
				if err != nil || r.Status != transport.StatusCompleted || r.Decision != transport.DecisionAnswer || asked != 2 {
					t.Fatalf("Run = %v, %v after %d asks", r, err, asked)
				}
				if st, _ := agent.Task(p.TaskID); len(st.Answers) != 1 || st.Answers[0] != "g-1.txt" {
					t.Errorf("the agent read %v", st.Answers)
				}
				if _, err := a2a.ADKFunctionResponse(&a2a.Pause{}, nil); !errors.Is(err, a2a.ErrNoToolCall) {
					t.Errorf("ADKFunctionResponse without a call = %v", err)
				}
			})
		}
	}
}

// TestProgressIsNoPause: trpc-agent-go streams graph progress as agent messages without
// parts; they are not questions: a plain answer streams to its completed task, on every
// binding. A status without a state is no pause either.
func TestProgressIsNoPause(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileTRPC), a2atest.WithQuestions(0))
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			ev, err := c.SendStream(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("hello")}}, nil)
			if err != nil || ev.Task == nil || ev.Task.State != a2a.StateCompleted || a2a.NewPause(agent.Endpoint(b), ev.Task) != nil {
				t.Fatalf("SendStream = %+v, %v; want the completed task", ev, err)
			}
		})
	}
	for _, body := range []string{
		`{"kind":"status-update","taskId":"t1","status":{"message":{"role":"agent","parts":[{"kind":"text","text":"thinking"}]}}}`,
		`{"statusUpdate":{"taskId":"t1","status":{}}}`,
		`{"kind":"message","role":"agent","messageId":"m1","taskId":"t1","parts":null}`,
	} {
		ev, err := a2a.Decode([]byte(body))
		if err != nil || ev.Class().Paused() {
			t.Errorf("%s: class %v, %v", body, ev.Class(), err)
		}
	}
}

// TestGraphInterrupt: trpc-agent-go reports a graph interrupt as a completed task whose
// artifact metadata (blocking) or streamed message metadata carries it; it is a pause with
// its question and tool call, answered by a new message in the context naming the
// checkpoint (TRPCResume, through Approve), over two questions, on every binding. A
// completed task without a pending interrupt is still done.
func TestGraphInterrupt(t *testing.T) {
	for _, stream := range []bool{false, true} {
		for _, b := range bindings {
			t.Run(fmt.Sprintf("%s stream %v", b, stream), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileTRPC), a2atest.WithQuestions(2))
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				send := c.Send
				if stream {
					send = c.SendStream
				}
				ev, err := send(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
				if err != nil || ev.Task == nil {
					t.Fatalf("send = %+v, %v", ev, err)
				}
				p := a2a.NewPause(agent.Endpoint(b), ev.Task)
				if p == nil || p.Class != a2a.ClassInputRequired || p.Checkpoint == nil || p.Checkpoint.Key != "approve" || p.Checkpoint.CheckpointID != "ckpt-"+p.TaskID+"-1" {
					t.Fatalf("pause = %+v", p)
				}
				tc, ok := p.ToolCall()
				if !ok || tc.Name != "delete_file" || string(tc.Arguments) != `{"path":"/tmp/report-1.txt"}` || p.Prompt() != "Delete /tmp/report-1.txt?" {
					t.Fatalf("ToolCall = %+v, %v; prompt %q", tc, ok, p.Prompt())
				}
				var prompts []string
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					prompts = append(prompts, q.Prompt())
					return a2a.Approve(q), nil
				}, nil)
				if err != nil || !r.Approved() || len(prompts) != 2 || prompts[1] != "Delete /tmp/report-2.txt?" {
					t.Fatalf("Run = %v, %v; prompts %q", r, err, prompts)
				}
				final, err := a2a.TaskOf(r)
				if err != nil || final.ContextID != p.ContextID || final.ID == p.TaskID {
					t.Fatalf("final task %+v, %v", final, err)
				}
				if st, _ := agent.Task(final.ID); len(st.Answers) != 2 || st.Answers[0] != "approve" || st.Answers[1] != "approve" {
					t.Errorf("the agent read %v", st.Answers)
				}
				if a2a.Track(agent.Endpoint(b), final) != nil {
					t.Errorf("the final task %+v is not done", final)
				}
			})
		}
	}
	for name, body := range map[string]string{
		"no interrupt":     `{"id":"t1","status":{"state":"completed"},"artifacts":[{"parts":[{"text":"x"}],"metadata":{"state_delta":{"other":"eA=="}}}]}`,
		"not base64":       `{"id":"t1","status":{"state":"completed"},"artifacts":[{"parts":[],"metadata":{"state_delta":{"_pregel_metadata":"%%%"}}}]}`,
		"no interrupt key": `{"id":"t1","status":{"state":"completed"},"artifacts":[{"parts":[],"metadata":{"state_delta":{"_pregel_metadata":"e30="}}}]}`,
		"failed with one":  `{"id":"t1","status":{"state":"failed"},"artifacts":[{"parts":[],"metadata":{"state_delta":{"_pregel_metadata":"eyJpbnRlcnJ1cHRLZXkiOiJhIn0="}}}]}`,
	} {
		ev, err := a2a.Decode([]byte(body))
		if err != nil || ev.Class() != a2a.ClassDone {
			t.Errorf("%s: class %v, %v; want done", name, ev.Class(), err)
		}
	}
	if _, err := a2a.TRPCResume(&a2a.Pause{}, true); !errors.Is(err, a2a.ErrNoCheckpoint) {
		t.Errorf("TRPCResume without a checkpoint = %v", err)
	}
}

// TestReplyReadsBack: Reply spells a task as the agent's answer to a send in each binding;
// it decodes, in that binding, to the same task, echoing the JSON-RPC id; a JSON-RPC request
// without a readable id is refused.
func TestReplyReadsBack(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	c := newClient(t, transport.WithHTTPClient(agent.Client()))
	for _, b := range bindings {
		p := start(t, c, agent.Endpoint(b), nil)
		req, _ := http.NewRequest(http.MethodPost, p.Endpoint.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"req-7","method":"SendMessage","params":{}}`))
		body, err := a2a.Reply(req, p.Endpoint, p.Task)
		if err != nil {
			t.Fatalf("%s: Reply: %v", b, err)
		}
		ev, err := a2a.Decode(body)
		if err != nil || ev.Task == nil || ev.Task.ID != p.TaskID || ev.Task.State != a2a.StateInputRequired || !cmp.Equal(ev.Task.Question.Parts, p.Task.Question.Parts) || a2a.NewPause(p.Endpoint, ev.Task).Prompt() != p.Prompt() {
			t.Errorf("%s: Reply %s decodes to %+v, %v", b, body, ev, err)
		}
		if got := a2a.InferBinding(req, ev).Binding; got != b && !(b == a2a.REST03 && got == a2a.REST10) {
			t.Errorf("%s: Reply reads as %s", b, got)
		}
		if (b == a2a.JSONRPC03 || b == a2a.JSONRPC10) != strings.Contains(string(body), `"id":"req-7"`) {
			t.Errorf("%s: Reply %s", b, body)
		}
	}
	bare, _ := http.NewRequest(http.MethodPost, "https://agent.example/rpc", nil)
	if _, err := a2a.Reply(bare, a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, &a2a.Task{ID: "t"}); err == nil {
		t.Error("Reply to a request without a body: no error")
	}
}
