package jsinterop

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

func say(s string) a2a.Message { return a2a.Message{Parts: []a2a.Part{a2a.TextPart(s)}} }

// send sends s with a blocking send and returns the handle the answer gives.
func send(t *testing.T, c *a2a.Client, ep a2a.Endpoint, s string, o *a2a.SendOptions) *a2a.Pause {
	t.Helper()
	ev, err := c.Send(ctx(t), ep, say(s), o)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	p := a2a.Track(ep, ev.Task)
	if p == nil {
		t.Fatalf("Send answered %+v", ev)
	}
	return p
}

func approve(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }

// TestApproval: on every binding, a blocking send pauses for input with the tool call named;
// approving twice completes the task, Approved; a denial ends it rejected, reported as the
// human's decision to reject.
func TestApproval(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			pause := send(t, c, p.endpoint(b), "clean up twice", nil)
			tc, ok := pause.ToolCall()
			if pause.Class != a2a.ClassInputRequired || !ok || tc.Name != "delete_file" || !strings.Contains(string(tc.Arguments), "report-1") || !strings.Contains(pause.Prompt(), "delete_file") {
				t.Fatalf("pause %v, tool call %+v, prompt %q", pause, tc, pause.Prompt())
			}
			questions := 0
			r, err := c.Run(ctx(t), pause, func(ctx context.Context, q *a2a.Pause) (a2a.Answer, error) {
				questions++
				return approve(ctx, q)
			}, nil)
			if err != nil || !r.Approved() || r.Action != "approve" || questions != 2 {
				t.Fatalf("Run = %v, %v after %d questions", r, err, questions)
			}
			task, err := a2a.TaskOf(r)
			if err != nil || len(task.Artifacts) == 0 || !strings.Contains(string(task.Artifacts[0].Parts[0].Data), `"deleted":2`) {
				t.Errorf("task %+v, %v", task, err)
			}

			deny := send(t, c, p.endpoint(b), "clean up", nil)
			r, err = c.Run(ctx(t), deny, func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(false), nil }, nil)
			if err != nil || r.Status != transport.StatusRejected || r.Decision != transport.DecisionReject || r.Approved() || r.Decision == "" {
				t.Fatalf("Run (deny) = %v, %v", r, err)
			}
		})
	}
}

// TestNonBlocking: a non-blocking send answers at once with the task still working; Run follows
// it to its question and to the end.
func TestNonBlocking(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			pause := send(t, c, p.endpoint(b), "clean up slow", &a2a.SendOptions{NonBlocking: true})
			if pause.Class != a2a.ClassWorking {
				t.Fatalf("non-blocking send answered %v", pause)
			}
			p.admin(t, http.MethodPost, "release/"+pause.TaskID, nil)
			r, err := c.Run(ctx(t), pause, approve, nil)
			if err != nil || r.Status != transport.StatusCompleted {
				t.Fatalf("Run = %v, %v", r, err)
			}
		})
	}
}

// TestStreaming: a streamed send stops at the question on every binding, and the agent's
// event streams are all closed once SendStream has returned.
func TestStreaming(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			ev, err := c.SendStream(ctx(t), p.endpoint(b), say("clean up"), nil)
			if err != nil || ev.Task == nil || ev.Task.State != a2a.StateInputRequired {
				t.Fatalf("SendStream = %+v, %v", ev, err)
			}
			r, err := c.Run(ctx(t), a2a.NewPause(p.endpoint(b), ev.Task), approve, nil)
			if err != nil || r.Status != transport.StatusCompleted {
				t.Fatalf("Run = %v, %v", r, err)
			}
		})
	}
	noOpenStreams(t, p)
}

// noOpenStreams waits (at most 5 s) for the agent to hold no event stream open.
func noOpenStreams(t *testing.T, p *peer) {
	t.Helper()
	var s struct {
		Open int `json:"open"`
	}
	until(t, 5*time.Second, "the agent's event streams closed", func() bool {
		p.admin(t, http.MethodGet, "streams", &s)
		return s.Open == 0
	})
}

// TestStreamCut: a stream the agent cuts after its first event: SendStream asks the agent
// for the task it had named, and the run carries on from there.
func TestStreamCut(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			p.admin(t, http.MethodPost, "cut-next", nil)
			ev, err := c.SendStream(ctx(t), p.endpoint(b), say("clean up slow"), nil)
			if err != nil || ev.Task == nil || ev.Task.State.Terminal() {
				t.Fatalf("SendStream = %+v, %v", ev, err)
			}
			p.admin(t, http.MethodPost, "release/"+ev.Task.ID, nil)
			r, err := c.Run(ctx(t), a2a.Track(p.endpoint(b), ev.Task), approve, nil)
			if err != nil || r.Status != transport.StatusCompleted {
				t.Fatalf("Run = %v, %v", r, err)
			}
		})
	}
	noOpenStreams(t, p)
}

// TestResubscribe: a task waiting for authorisation is followed over the agent's
// resubscription (tasks/resubscribe, SubscribeToTask, GET …:subscribe): the wait learns of
// the authorisation from the stream, long before its next poll.
func TestResubscribe(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t, transport.WithPollInterval(time.Hour))
			pause := send(t, c, p.endpoint(b), "clean up auth", nil)
			if pause.Class != a2a.ClassAuthRequired {
				t.Fatalf("pause %v", pause)
			}
			before := len(p.requests(t))
			type outcome struct {
				task *a2a.Task
				err  error
			}
			waited := make(chan outcome, 1)
			wctx := ctx(t)
			go func() {
				got, err := c.Wait(wctx, pause, &a2a.WaitOptions{Stream: true})
				waited <- outcome{got, err}
			}()
			// Authorise once the subscription is open.
			until(t, 20*time.Second, "a resubscription", func() bool {
				for _, r := range p.requests(t)[before:] {
					if r.Method == "tasks/resubscribe" || r.Method == "SubscribeToTask" || strings.HasSuffix(r.Path, ":subscribe") {
						return true
					}
				}
				return false
			})
			p.admin(t, http.MethodPost, "authorize/"+pause.TaskID, nil)
			o := <-waited
			got, err := o.task, o.err
			if err != nil || got.State != a2a.StateInputRequired {
				t.Fatalf("Wait = %+v, %v", got, err)
			}
			if _, err := c.Cancel(ctx(t), pause.Endpoint, pause.TaskID); err != nil {
				t.Errorf("Cancel: %v", err)
			}
		})
	}
	noOpenStreams(t, p)
}

// TestPush: the agent's push notifications (1.0 StreamResponse, 0.3 Task through the
// compatibility layer) reach an a2a.PushReceiver, which wakes a wait that would otherwise poll
// an hour later.
func TestPush(t *testing.T) {
	p := need(t)
	rc := &a2a.PushReceiver{Token: "push-token-5f1e"}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t, transport.WithPollInterval(time.Hour))
			pause := send(t, c, p.endpoint(b), "clean up auth", &a2a.SendOptions{Push: &a2a.PushConfig{URL: srv.URL + "/push", Token: rc.Token}})
			if pause.Class != a2a.ClassAuthRequired {
				t.Fatalf("pause %v", pause)
			}
			done := make(chan struct{})
			var got *a2a.Task
			var err error
			go func() {
				defer close(done)
				got, err = c.Wait(ctx(t), pause, &a2a.WaitOptions{Push: rc})
			}()
			p.admin(t, http.MethodPost, "authorize/"+pause.TaskID, nil)
			<-done
			if err != nil || got.State != a2a.StateInputRequired {
				t.Fatalf("Wait = %+v, %v", got, err)
			}
		})
	}
}

// TestCancel: Cancel ends a task that asks; a Run of the pause saved before ends cancelled
// without asking; cancelling again returns the cancelled task (the SDK's cancel is
// idempotent); cancelling an ended task is ErrTaskNotCancelable (see TestErrors).
func TestCancel(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			pause := send(t, c, p.endpoint(b), "clean up", nil)
			task, err := c.Cancel(ctx(t), pause.Endpoint, pause.TaskID)
			if err != nil || task.State != a2a.StateCanceled {
				t.Fatalf("Cancel = %+v, %v", task, err)
			}
			r, err := c.Run(ctx(t), pause, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
				t.Error("asked about a cancelled task")
				return a2a.HectorDecision(true), nil
			}, nil)
			if err != nil || r.Status != transport.StatusCancelled {
				t.Fatalf("Run = %v, %v", r, err)
			}
			if task, err := c.Cancel(ctx(t), pause.Endpoint, pause.TaskID); err != nil || task.State != a2a.StateCanceled {
				t.Errorf("second Cancel = %+v, %v", task, err)
			}
		})
	}
}

// TestErrors: every error shape the SDK sends is typed: an unknown task (JSON-RPC error
// objects, google.rpc.Status on REST 1.0, a bare {"code","message"} with 404 or 400 on REST
// 0.3, the error a stream answers with) for a task query, a cancel, a message sent or
// streamed to it and a wait on its stream; a resume of an ended task, blocking and streamed;
// and a cancel of one.
func TestErrors(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			_, err := c.GetTask(ctx(t), p.endpoint(b), "no-such-task")
			var ae *a2a.Error
			if !errors.Is(err, a2a.ErrTaskNotFound) || !errors.As(err, &ae) {
				t.Errorf("GetTask of an unknown task = %v", err)
			}
			if _, err := c.Cancel(ctx(t), p.endpoint(b), "no-such-task"); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Cancel of an unknown task = %v", err)
			}
			unknown := a2a.Message{TaskID: "no-such-task", Parts: []a2a.Part{a2a.TextPart("approve")}}
			if _, err := c.Send(ctx(t), p.endpoint(b), unknown, nil); !errors.Is(err, a2a.ErrTaskNotFound) || !errors.As(err, &ae) {
				t.Errorf("Send to an unknown task = %v", err)
			}
			if _, err := c.SendStream(ctx(t), p.endpoint(b), unknown, nil); !errors.Is(err, a2a.ErrTaskNotFound) || !errors.As(err, &ae) {
				t.Errorf("SendStream to an unknown task = %v", err)
			}
			gone := &a2a.Pause{Class: a2a.ClassAuthRequired, Endpoint: p.endpoint(b), TaskID: "no-such-task"}
			if _, err := c.Wait(ctx(t), gone, &a2a.WaitOptions{Stream: true}); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Wait on an unknown task = %v", err)
			}
			pause := send(t, c, p.endpoint(b), "clean up", nil)
			if _, err := c.Resume(ctx(t), pause, a2a.HectorDecision(false)); err != nil {
				t.Fatal(err)
			}
			_, err = c.Resume(ctx(t), pause, a2a.HectorDecision(true))
			if !errors.Is(err, a2a.ErrTaskTerminal) {
				t.Errorf("Resume of an ended task = %v", err)
			}
			again := a2a.Message{TaskID: pause.TaskID, ContextID: pause.ContextID, Parts: []a2a.Part{a2a.TextPart("approve")}}
			if _, err := c.SendStream(ctx(t), pause.Endpoint, again, nil); !errors.Is(err, a2a.ErrTaskTerminal) || !errors.As(err, &ae) {
				t.Errorf("SendStream to an ended task = %v", err)
			}
			if _, err := c.Cancel(ctx(t), pause.Endpoint, pause.TaskID); !errors.Is(err, a2a.ErrTaskNotCancelable) {
				t.Errorf("Cancel of an ended task = %v", err)
			}
		})
	}
}

// TestCreated: the SDK's REST 0.3 binding answers a send with 201 Created and no A2A marker;
// hitl.Detect and hitl.Client.Do see the question, with and without the A2A option, and Do
// puts it to the human and completes the task.
func TestCreated(t *testing.T) {
	p := need(t)
	post := func() *http.Request {
		req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, p.url+"/rest/v1/message:send",
			strings.NewReader(`{"message":{"messageId":"m-created","role":"ROLE_USER","content":[{"text":"clean up"}]}}`))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	resp, err := http.DefaultClient.Do(post())
	if err != nil {
		t.Fatal(err)
	}
	it, err := hitl.Detect(resp, nil)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || err != nil || it == nil || it.Kind != hitl.KindA2AInput || it.Task.Endpoint.Binding != a2a.REST03 {
		t.Fatalf("%d: Detect = %v, %v", resp.StatusCode, it, err)
	}
	if !strings.Contains(string(body), it.ID()) {
		t.Errorf("body not restored: %s", body)
	}
	for _, opts := range [][]transport.Option{{transport.WithAllowPrivateAddresses()}, {transport.WithAllowPrivateAddresses(), hitl.WithA2A()}} {
		hc, err := hitl.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := hc.Do(ctx(t), post(), &hitl.CallOptions{DetectOnly: true})
		if err != nil || out.StatusCode != http.StatusCreated || out.Interrupt == nil {
			t.Fatalf("Do = %+v, %v", out, err)
		}
		_ = out.Body.Close()
		if _, err := newClient(t).Cancel(ctx(t), out.Interrupt.Task.Endpoint, out.Interrupt.ID()); err != nil {
			t.Errorf("Cancel: %v", err)
		}
	}
	// Do carries the question to the human and the answer to the agent, to the task's end.
	hc, err := hitl.NewClient(transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	out, err := hc.Do(ctx(t), post(), &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: func(ctx context.Context, q *a2a.Pause) (a2a.Answer, error) {
		asked++
		return approve(ctx, q)
	}}})
	if err != nil || out.StatusCode != http.StatusCreated || out.Result == nil || !out.Result.Approved() || out.Result.Status != transport.StatusCompleted || asked != 1 {
		t.Fatalf("Do = %+v, %v after %d questions", out, err, asked)
	}
	_ = out.Body.Close()
}

// TestUnmarkedJSONRPC: an agent's own code calls the SDK's JSON-RPC 0.3 binding with a plain
// message/send, no A2A-Version and no A2A option; the answer (200, application/json) carries
// a task asking for a human, and hitl.Client.Do sees it, puts it to the human and completes
// the task.
func TestUnmarkedJSONRPC(t *testing.T) {
	p := need(t)
	post := func() *http.Request {
		req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, p.endpoint(a2a.JSONRPC03).URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-unmarked","role":"user","parts":[{"kind":"text","text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	hc, err := hitl.NewClient(transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	out, err := hc.Do(ctx(t), post(), &hitl.CallOptions{DetectOnly: true})
	if err != nil || out.StatusCode != http.StatusOK || out.Interrupt == nil || out.Interrupt.Kind != hitl.KindA2AInput || out.Interrupt.Task.Endpoint.Binding != a2a.JSONRPC03 {
		t.Fatalf("Do = %+v, %v", out, err)
	}
	_ = out.Body.Close()
	if _, err := newClient(t).Cancel(ctx(t), out.Interrupt.Task.Endpoint, out.Interrupt.ID()); err != nil {
		t.Errorf("Cancel: %v", err)
	}
	asked := 0
	out, err = hc.Do(ctx(t), post(), &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: func(ctx context.Context, q *a2a.Pause) (a2a.Answer, error) {
		asked++
		return approve(ctx, q)
	}}})
	if err != nil || out.Result == nil || !out.Result.Approved() || out.Result.Status != transport.StatusCompleted || asked != 1 {
		t.Fatalf("Do = %+v, %v after %d questions", out, err, asked)
	}
	_ = out.Body.Close()
}

// TestJSClientAgainstFake: the SDK's own client completes an approval against hitlkit's fake
// agent on every binding, and reads a streamed turn to its question: the fake speaks what the
// SDK's client understands.
func TestJSClientAgainstFake(t *testing.T) {
	node := need(t).node(t)
	fake := a2atest.NewAgent(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			cmd := exec.CommandContext(ctx(t), node, "client.mjs", string(b), fake.Endpoint(b).URL)
			cmd.Dir = "agent"
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("client: %v\n%s", err, stderr.String())
			}
			var got struct {
				Task      string `json:"task"`
				Questions int    `json:"questions"`
				State     string `json:"state"`
				Streamed  int    `json:"streamed"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client printed %q: %v", out, err)
			}
			st, ok := fake.Task(got.Task)
			if got.Questions != 1 || got.State != "TASK_STATE_COMPLETED" || got.Streamed == 0 || !ok || len(st.Answers) != 1 || st.Answers[0] != "approve" {
				t.Errorf("client: %+v; the fake read %+v", got, st)
			}
		})
	}
}

// TestFailedTask: an agent whose executor throws ends the task failed, sent and streamed;
// the Result says so with the agent's reason.
func TestFailedTask(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			sent, err := c.Send(ctx(t), p.endpoint(b), say("crash"), nil)
			if err != nil || sent.Task == nil {
				t.Fatalf("Send = %+v, %v", sent, err)
			}
			streamed, err := c.SendStream(ctx(t), p.endpoint(b), say("crash"), nil)
			if err != nil || streamed.Task == nil {
				t.Fatalf("SendStream = %+v, %v", streamed, err)
			}
			for _, task := range []*a2a.Task{sent.Task, streamed.Task} {
				r := a2a.ResultOf(task, "", false)
				if a2a.Track(p.endpoint(b), task) != nil || r == nil || r.Status != transport.StatusFailed || !strings.Contains(r.Reason, "file service is down") {
					t.Errorf("task %+v: Result %v", task, r)
				}
			}
		})
	}
}

// TestADKConfirmation: an ADK-style confirmation (a data part alone) has a prompt and names
// its tool call; answered with ADKConfirmation it completes where the SDK keeps part
// metadata. The SDK's REST 0.3 layer drops it, so the agent never sees the answer and asks
// about the same call again under a new id: the human is asked again, told the answer was
// not taken, three times in all, and the run ends with a RepeatedCallError naming the call.
func TestADKConfirmation(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			pause := send(t, c, p.endpoint(b), "clean up adk", nil)
			tc, ok := pause.ToolCall()
			if pause.Prompt() != "Delete /tmp/report.txt?" || !ok || tc.Name != "delete_file" {
				t.Fatalf("prompt %q, tool call %+v", pause.Prompt(), tc)
			}
			asked := 0
			r, err := c.Run(ctx(t), pause, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
				asked++
				if (asked > 1) != (q.NotTaken != nil) {
					t.Errorf("ask %d: NotTaken %+v", asked, q.NotTaken)
				}
				return a2a.ADKConfirmation(q, true)
			}, nil)
			var rc *a2a.RepeatedCallError
			if b == a2a.REST03 {
				if !errors.As(err, &rc) || rc.Call.Name != "delete_file" || rc.Action != "approve" || asked != 3 {
					t.Fatalf("Run = %v, %v after %d asks; want a RepeatedCallError after 3", r, err, asked)
				}
				return
			}
			if err != nil || !r.Approved() || asked != 1 {
				t.Fatalf("Run = %v, %v after %d asks", r, err, asked)
			}
		})
	}
}

// TestAgentDidNotUnderstand: a tool-approval agent on the SDK that does not understand
// "maybe" asks about the same call again; the human is asked again (never answered for),
// sees that "maybe" was not taken beside the agent's new text, and the task completes after
// the second answer, with both answers in the Result in order.
func TestAgentDidNotUnderstand(t *testing.T) {
	p := need(t)
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			c := newClient(t)
			pause := send(t, c, p.endpoint(b), "clean up strict", nil)
			var prompts []string
			r, err := c.Run(ctx(t), pause, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
				prompts = append(prompts, q.Prompt())
				if len(prompts) == 1 {
					return a2a.Text(q, "maybe"), nil
				}
				return a2a.Approve(q), nil
			}, nil)
			if err != nil || !r.Approved() {
				t.Fatalf("Run = %v, %v", r, err)
			}
			if len(prompts) != 2 || !strings.HasPrefix(prompts[1], `Your previous answer ("maybe") was not taken`) || !strings.Contains(prompts[1], `I did not understand "maybe"`) {
				t.Errorf("prompts %q", prompts)
			}
			answers, err := a2a.AnswersOf(r)
			if err != nil || len(answers) != 2 || answers[0].Parts[0].Text != "maybe" || answers[1].Action != "approve" {
				t.Errorf("AnswersOf = %+v, %v", answers, err)
			}
		})
	}
}
