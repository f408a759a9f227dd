package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestResumeAnsweredByAnotherTask: an agent of the previous Hector generation answers a
// resume for a task that has ended (or that it never knew) by starting a new task. That task
// is never the answer: Resume fails with transport.ErrMismatch naming both ids; Run, which asks the
// agent for the task before it asks the human, fails with ErrTaskNotFound, and the new task's
// question never reaches the Asker.
func TestResumeAnsweredByAnotherTask(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(b), nil)
			if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(true)); err != nil {
				t.Fatal(err)
			}
			// The task has completed; the same pause, resumed again, reaches a new task.
			_, err := c.Resume(t.Context(), p, a2a.HectorDecision(true))
			if !errors.Is(err, transport.ErrMismatch) || !strings.HasSuffix(err.Error(), `", not "`+p.TaskID+`"`) || strings.Contains(err.Error(), `task "`+p.TaskID+`"`) || strings.Contains(err.Error(), `task "", not`) {
				t.Fatalf("Resume of an ended task = %v, want a mismatch naming %s and the new task", err, p.TaskID)
			}
			gone := *p
			gone.TaskID = "task-unknown"
			asked := 0
			_, err = c.Run(t.Context(), &gone, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
				asked++
				return a2a.HectorDecision(true), nil
			}, nil)
			if !errors.Is(err, a2a.ErrTaskNotFound) || asked != 0 {
				t.Fatalf("Run on an unknown task = %v after %d questions, want ErrTaskNotFound before any", err, asked)
			}
		})
	}
}

// TestRunAsksNoHumanAboutAnUnconfirmedTask: Run asks the agent for a saved pause's task
// before it asks the human; when the agent cannot confirm the task — its task query keeps
// failing (503), or is refused for another reason than an unknown task —
// the run ends with that error and the human is never asked, nothing is sent to the task.
// A transient failure that passes is ridden out: the human is asked once and the task
// completes.
func TestRunAsksNoHumanAboutAnUnconfirmedTask(t *testing.T) {
	never := func(t *testing.T) a2a.Asker {
		return func(context.Context, *a2a.Pause) (a2a.Answer, error) {
			t.Error("the human was asked about a task the agent did not confirm")
			return a2a.HectorDecision(true), nil
		}
	}
	for _, profile := range a2atest.Profiles() {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(profile))
					var sent atomic.Int32
					counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
						sent.Add(1)
						return agent.Client().Transport.RoundTrip(r)
					})
					c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: counting}))
					p := start(t, c, agent.Endpoint(b), nil)
					agent.FailNext(p.TaskID, a2atest.Fault503, 1000)
					sent.Store(0)
					_, err := c.Run(t.Context(), p, never(t), nil)
					if err == nil || !strings.Contains(err.Error(), "503") {
						t.Errorf("Run while the task query keeps failing = %v, want its 503", err)
					}
					if n := sent.Load(); n != a2a.DefaultMaxRepeats {
						t.Errorf("%d task queries, want %d", n, a2a.DefaultMaxRepeats)
					}
					if st, _ := agent.Task(p.TaskID); len(st.Answers) != 0 {
						t.Errorf("the agent read %v", st.Answers)
					}

					p = start(t, c, agent.Endpoint(b), nil)
					agent.FailNext(p.TaskID, a2atest.Fault503, 2)
					asked := 0
					r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
						asked++
						return a2a.HectorDecision(true), nil
					}, nil)
					if err != nil || r.Status != transport.StatusCompleted || asked != 1 {
						t.Errorf("Run after two 503s = %v, %v after %d asks; want completed after one", r, err, asked)
					}
				})
			})
		}
	}
	t.Run("refused", func(t *testing.T) {
		var sends atomic.Int32
		agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var in struct{ Method string }
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &in)
			if in.Method != "tasks/get" {
				sends.Add(1)
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request"}}`)
		})
		c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
		p := &a2a.Pause{Class: a2a.ClassInputRequired, TaskID: "t1", ContextID: "c1",
			Endpoint: a2a.Endpoint{URL: "https://agent.test/rpc", Binding: a2a.JSONRPC03},
			Task:     &a2a.Task{ID: "t1", ContextID: "c1", State: a2a.StateInputRequired}}
		if _, err := c.Run(t.Context(), p, never(t), nil); !errors.Is(err, a2a.ErrInvalidRequest) {
			t.Errorf("Run = %v, want ErrInvalidRequest", err)
		}
		if n := sends.Load(); n != 0 {
			t.Errorf("%d messages sent to the task", n)
		}
	})
}

// TestWaitIgnoresAnotherTask: a task query answered with another task (a proxy mixing up
// answers, an agent confused by its ids) is not the outcome; the wait carries on and returns
// the task asked about when it comes — nothing is lost to the check.
func TestWaitIgnoresAnotherTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var polls atomic.Int32
		agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			id := "task-mine"
			if polls.Add(1) <= 2 {
				id = "task-other"
			}
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"`+id+`","contextId":"ctx","status":{"state":"completed"}}}`)
		})
		c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
		ep := a2a.Endpoint{URL: "https://agent.test/rpc03", Binding: a2a.JSONRPC03}
		p := &a2a.Pause{Class: a2a.ClassAuthRequired, Endpoint: ep, TaskID: "task-mine", ContextID: "ctx"}
		task, err := c.Wait(t.Context(), p, nil)
		if err != nil || task.ID != "task-mine" || task.State != a2a.StateCompleted {
			t.Fatalf("Wait = %+v, %v", task, err)
		}
		if n := polls.Load(); n != 3 {
			t.Errorf("%d polls, want the two mismatches and the answer", n)
		}
	})
}

// TestNoQuestionAskedTwice: an agent that answers a resume with the task as it was before it
// read the answer (the question just answered, again) is polled until the task moves on; the
// human is asked each question once, though the task queries spell the question otherwise
// (Hector v1: "metadata": null on each part there, none in the reply, no message ids).
func TestNoQuestionAskedTwice(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector), a2atest.WithQuestions(2))
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				var asked []string
				r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
					tc, _ := q.ToolCall()
					asked = append(asked, string(tc.Arguments))
					return a2a.HectorDecision(true), nil
				}, nil)
				if err != nil || r.Status != transport.StatusCompleted {
					t.Fatalf("Run = %v, %v", r, err)
				}
				if len(asked) != 2 || asked[0] == asked[1] {
					t.Errorf("questions asked: %q, want two different ones", asked)
				}
				gets := 0
				for _, req := range agent.Requests() {
					if strings.Contains(strings.ToLower(req.Operation), "get") {
						gets++
					}
				}
				if gets < 2 {
					t.Errorf("%d task queries after stale replies, want at least 2", gets)
				}
			})
		})
	}
}

// TestEveryWaitEnds: an agent that keeps answering the task query with the same internal
// error ends the wait after DefaultMaxRepeats answers, with that error; errors that are not
// transient (invalid request, method not found, invalid params) end it at the first answer
// (invalid params after one query by name).
func TestEveryWaitEnds(t *testing.T) {
	t.Run("the same internal error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst())
			var sent atomic.Int32
			counting := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				sent.Add(1)
				return agent.Client().Transport.RoundTrip(r)
			})
			c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: counting}))
			p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
			agent.FailNext("", a2atest.FaultInternal, 1000)
			began := time.Now()
			_, err := c.Wait(t.Context(), p, nil)
			if !errors.Is(err, a2a.ErrRepeatedError) || !errors.Is(err, a2a.ErrInternal) {
				t.Fatalf("Wait = %v, want ErrRepeatedError wrapping ErrInternal", err)
			}
			if gets := int(sent.Load()) - 1; gets != a2a.DefaultMaxRepeats {
				t.Errorf("%d task queries, want %d", gets, a2a.DefaultMaxRepeats)
			}
			t.Logf("ended after %v (virtual)", time.Since(began))
		})
	})
	for _, tc := range []struct {
		code     int
		sentinel error
	}{{-32600, a2a.ErrInvalidRequest}, {-32601, a2a.ErrMethodNotFound}, {-32602, a2a.ErrInvalidParams}} {
		t.Run(tc.sentinel.Error(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var n atomic.Int32
				agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					n.Add(1)
					body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": tc.code, "message": "no"}})
					_, _ = w.Write(body)
				})
				c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
				p := &a2a.Pause{Class: a2a.ClassAuthRequired, TaskID: "t1", Endpoint: a2a.Endpoint{URL: "https://agent.test/rpc", Binding: a2a.JSONRPC03}}
				if _, err := c.Wait(t.Context(), p, nil); !errors.Is(err, tc.sentinel) {
					t.Fatalf("Wait = %v, want %v", err, tc.sentinel)
				}
				want := int32(1)
				if tc.code == -32602 {
					want = 2 // asked once more by name, as older agents want
				}
				if n.Load() != want {
					t.Errorf("%d queries, want %d", n.Load(), want)
				}
			})
		})
	}
}

// TestRefusalShapes: a refusal to touch an ended task matches ErrTaskTerminal whatever its
// shape, and a REST 404 with a bare message matches ErrTaskNotFound; against the profiles
// that send them.
func TestRefusalShapes(t *testing.T) {
	for name, e := range map[string]*a2a.Error{
		"-32004":                      {Code: -32004, Message: "unsupported operation"},
		"phrase in message":           {Code: -32603, Message: "Task is in a terminal state"},
		"phrase in data":              {Code: -32000, Message: "error", Data: json.RawMessage(`"task already in terminal state completed"`)},
		"phrase in data.error":        {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"task in a terminal state"}`)},
		"phrase in data.message":      {Code: -32603, Message: "failed", Data: json.RawMessage(`{"message":"TERMINAL state"}`)},
		"a2a-go v2 invalid params":    {Code: -32602, Message: "task in a terminal state"},
		"not terminal: invalid input": {Code: -32602, Message: "invalid params", Data: json.RawMessage(`{"error":"contextId mismatch"}`)},
	} {
		want := !strings.HasPrefix(name, "not terminal")
		if got := errors.Is(e, a2a.ErrTaskTerminal); got != want {
			t.Errorf("%s: Is(ErrTaskTerminal) = %v, want %v", name, got, want)
		}
	}
	t.Run("a2a-go v0.3 agent", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileA2AGoV03))
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		// a2a-go v0.3 mounts its one JSON-RPC endpoint at /agents/{name}.
		p := start(t, c, a2a.Endpoint{URL: agent.URL + a2atest.PathAgents + "files", Binding: a2a.JSONRPC03}, nil)
		if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(false)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resume(t.Context(), p, a2a.HectorDecision(false)); !errors.Is(err, a2a.ErrTaskTerminal) || !errors.Is(err, a2a.ErrInvalidParams) {
			t.Fatalf("Resume of an ended task = %v, want ErrTaskTerminal", err)
		}
	})
	t.Run("legacy REST 404", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		_, err := c.GetTask(t.Context(), agent.Endpoint(a2a.REST10), "task-unknown")
		var ae *a2a.Error
		if !errors.Is(err, a2a.ErrTaskNotFound) || !errors.As(err, &ae) || ae.HTTPStatus != http.StatusNotFound {
			t.Fatalf("GetTask of an unknown task = %v, want ErrTaskNotFound with status 404", err)
		}
	})
}

// TestLegacyHectorReadsTheDataPart: the previous Hector generation reads the decision only
// from a wrapped data part; HectorDecision's data part carries it there, so the decision holds
// with neutral text beside it.
func TestLegacyHectorReadsTheDataPart(t *testing.T) {
	for _, approve := range []bool{true, false} {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC03), nil)
		d := a2a.HectorDecision(approve)
		neutral := a2a.Answer{Action: d.Action, Parts: []a2a.Part{a2a.TextPart("ok, noted"), d.Parts[1]}}
		if _, err := c.Resume(t.Context(), p, neutral); err != nil {
			t.Fatal(err)
		}
		st, _ := agent.Task(p.TaskID)
		if len(st.Answers) != 1 || st.Answers[0] != d.Action {
			t.Errorf("approve=%v: the agent read %v", approve, st.Answers)
		}
	}
}

// TestCancel: on every binding, Cancel ends a task that a Run is waiting on, and the Run
// returns a cancelled Result; cancelling an ended task is ErrTaskNotCancelable.
func TestCancel(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst())
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				cancelled := make(chan error, 1)
				go func() {
					<-time.After(30 * time.Second)
					_, err := c.Cancel(t.Context(), p.Endpoint, p.TaskID)
					cancelled <- err
				}()
				r, err := c.Run(t.Context(), p, nil, nil)
				if err := <-cancelled; err != nil {
					t.Errorf("Cancel: %v", err)
				}
				if err != nil || r.Status != transport.StatusCancelled {
					t.Fatalf("Run = %v, %v; want cancelled", r, err)
				}
				if _, err := c.Cancel(t.Context(), p.Endpoint, p.TaskID); !errors.Is(err, a2a.ErrTaskNotCancelable) {
					t.Errorf("Cancel of an ended task = %v", err)
				}
			})
		})
	}
}

// TestNonBlockingSend: a non-blocking send returns the task as the agent accepted it
// (submitted); Track gives the handle Run takes, and Run carries the task through its
// question to the end.
func TestNonBlockingSend(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t)
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				ev, err := c.Send(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, &a2a.SendOptions{NonBlocking: true})
				if err != nil || ev.Task == nil || ev.Task.State != a2a.StateSubmitted {
					t.Fatalf("Send = %+v, %v; want the submitted task", ev, err)
				}
				if a2a.NewPause(agent.Endpoint(b), ev.Task) != nil {
					t.Error("NewPause of a submitted task is not nil")
				}
				p := a2a.Track(agent.Endpoint(b), ev.Task)
				if p == nil || p.Class != a2a.ClassWorking {
					t.Fatalf("Track = %+v", p)
				}
				asked := 0
				r, err := c.Run(t.Context(), p, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
					asked++
					return a2a.HectorDecision(true), nil
				}, nil)
				if err != nil || r.Status != transport.StatusCompleted || asked != 1 {
					t.Fatalf("Run = %v, %v after %d questions", r, err, asked)
				}
			})
		})
	}
}

// TestToolCall: the tool call being approved, from every shape agents send it in.
func TestToolCall(t *testing.T) {
	data := func(s string) a2a.Part { return a2a.Part{Data: json.RawMessage(s)} }
	tests := []struct {
		name  string
		pause a2a.Pause
		want  a2a.ToolCall
	}{
		{"Hector data part", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Approve?"),
			data(`{"interaction_type":"tool_approval","tool_name":"delete_file","tool_input":{"path":"/tmp/a"},"options":["approve","deny"]}`)}}},
			a2a.ToolCall{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/a"}`), Options: []string{"approve", "deny"}}},
		{"previous Hector: tool_input as a string", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{
			data(`{"interaction_type":"tool_approval","tool_name":"delete_file","tool_input":"{\"path\":\"/tmp/a\"}","tool_call_id":"c1"}`)}}},
			a2a.ToolCall{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/a"}`), CallID: "c1"}},
		{"ADK confirmation", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{
			data(`{"id":"adk-1","name":"adk_request_confirmation","args":{"originalFunctionCall":{"name":"delete_file","args":{"path":"/tmp/a"}},"toolConfirmation":{"hint":"sure?"}}}`)}}},
			a2a.ToolCall{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/a"}`), CallID: "adk-1"}},
		{"Hector v2 metadata", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Approve delete_file?")}},
			Metadata: json.RawMessage(`{"input_required":true,"long_running_tool_ids":["call-9"]}`)},
			a2a.ToolCall{CallID: "call-9"}},
		{"pending call in an artifact", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Approve?")}},
			Task: &a2a.Task{Artifacts: []a2a.Artifact{{Parts: []a2a.Part{data(`{"id":"f1","name":"send_email","args":{"to":"a@b.example"}}`)}}}}},
			a2a.ToolCall{Name: "send_email", Arguments: json.RawMessage(`{"to":"a@b.example"}`), CallID: "f1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.pause.ToolCall()
			if !ok {
				t.Fatal("no tool call")
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("ToolCall (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := (&a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("What is your name?")}}}).ToolCall(); ok {
		t.Error("a plain question has a tool call")
	}
	// From the fakes, every style and profile.
	for _, style := range []a2atest.Style{a2atest.StyleHectorV1, a2atest.StyleHectorV2, a2atest.StyleADK} {
		for _, profile := range a2atest.Profiles() {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithStyle(style), a2atest.WithProfile(profile))
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			p := start(t, c, agent.Endpoint(a2a.JSONRPC03), nil)
			tc, ok := p.ToolCall()
			if !ok || tc.CallID == "" && tc.Name == "" {
				t.Errorf("style %d, %s: ToolCall = %+v, %v", style, profile, tc, ok)
			}
			if style != a2atest.StyleHectorV2 && (tc.Name != "delete_file" || !strings.Contains(string(tc.Arguments), `"path"`)) {
				t.Errorf("style %d, %s: ToolCall = %+v", style, profile, tc)
			}
		}
	}
}

// TestStreamsOfEveryProfile: a streamed send stops at the question whatever the profile's
// stream looks like (a2a-go v0.3 begins with a status update and sends no task snapshot).
func TestStreamsOfEveryProfile(t *testing.T) {
	for _, profile := range a2atest.Profiles() {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(profile))
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				ev, err := c.SendStream(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
				if err != nil || ev.Task == nil || a2a.Classify(ev.Task) != a2a.ClassInputRequired {
					t.Fatalf("SendStream = %+v, %v", ev, err)
				}
				if ev.Task.Question == nil || !strings.Contains(ev.Task.Question.Text(), "Tool Approval") {
					t.Errorf("question %+v", ev.Task.Question)
				}
			})
		}
	}
}

// TestOlderWire: what older agents send decodes: parts without kind, an empty message id,
// metadata null, both spellings of cancelled, data parts kept in their wrapper.
func TestOlderWire(t *testing.T) {
	tests := []struct {
		name, body string
		check      func(*a2a.Task) bool
	}{
		{"parts without kind", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","status":{"state":"input-required","message":{"role":"agent","messageId":"","parts":[{"text":"Approve?"},{"data":{"tool_name":"x","tool_input":{}}}]}}}}`,
			func(t *a2a.Task) bool { return t.Question.Text() == "Approve?" && len(t.Question.Parts) == 2 }},
		{"metadata null", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","metadata":null,"status":{"state":"working"}}}`,
			func(t *a2a.Task) bool { return t.State == a2a.StateWorking }},
		{"TASK_STATE_CANCELLED", `{"task":{"id":"t1","status":{"state":"TASK_STATE_CANCELLED"}}}`,
			func(t *a2a.Task) bool { return t.State == a2a.StateCanceled }},
		{"TASK_STATE_CANCELED", `{"task":{"id":"t1","status":{"state":"TASK_STATE_CANCELED"}}}`,
			func(t *a2a.Task) bool { return t.State == a2a.StateCanceled }},
		{"wrapped data part", `{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","status":{"state":"input-required","message":{"role":"agent","messageId":"m","parts":[{"kind":"data","data":{"data":{"decision":"x"}}}]}}}}`,
			func(t *a2a.Task) bool { return string(t.Question.Parts[0].Data) == `{"decision":"x"}` }},
	}
	for _, tt := range tests {
		ev, err := a2a.Decode([]byte(tt.body))
		if err != nil || ev.Task == nil || !tt.check(ev.Task) {
			t.Errorf("%s: Decode = %+v, %v", tt.name, ev, err)
		}
	}
}

// TestSlowHumanAfterAnInputTimeout: a previous-generation Hector task fails when its question
// waits ten minutes. A human who answers after that gets the failed task as the Result; the
// late answer is not sent (it would have started a new task).
func TestSlowHumanAfterAnInputTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
		r, err := c.Run(t.Context(), p, func(ctx context.Context, _ *a2a.Pause) (a2a.Answer, error) {
			<-time.After(a2atest.LegacyInputTimeout + time.Minute)
			return a2a.HectorDecision(true), nil
		}, nil)
		if err != nil || r.Status != transport.StatusFailed || r.CaseID != p.TaskID {
			t.Fatalf("Run = %v, %v; want the task's failure", r, err)
		}
		for _, req := range agent.Requests()[1:] {
			if strings.Contains(req.Operation, "Send") {
				t.Errorf("the late answer was sent: %s", req.Operation)
			}
		}
	})
}

// TestStreamQuestionAsMessage: an older agent streams the task, then its question as an
// agent's message event: the turn ends there, the task waiting for input with that question.
func TestStreamQuestionAsMessage(t *testing.T) {
	stream := "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"working\"}}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"m1\",\"taskId\":\"t1\",\"parts\":[{\"kind\":\"text\",\"text\":\"Approve delete_file?\"}]}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t1\",\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n"
	ev, err := a2a.ReadStream(strings.NewReader(stream))
	if err != nil || ev.Task == nil {
		t.Fatalf("ReadStream = %+v, %v", ev, err)
	}
	if a2a.Classify(ev.Task) != a2a.ClassInputRequired || ev.Task.Question.Text() != "Approve delete_file?" {
		t.Errorf("task %+v: want it waiting for input with the message's question", ev.Task)
	}
	if p := a2a.NewPause(a2a.Endpoint{URL: "https://agent.test/rpc03", Binding: a2a.JSONRPC03}, ev.Task); p == nil || p.Prompt() != "Approve delete_file?" {
		t.Errorf("pause %+v", p)
	}
}
