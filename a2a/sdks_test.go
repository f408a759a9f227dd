package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// serveFunc is an HTTP client whose requests h answers in memory.
func serveFunc(h http.HandlerFunc) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		h(rec, r)
		resp := rec.Result()
		resp.Request = r
		return resp, nil
	})}
}

// TestBareErrorObjects: the JavaScript SDK's REST 0.3 binding sends its errors as a bare
// JSON-RPC error object with 404 or 400; each maps to its typed error, for a task query, a
// wait, a resume and a cancel.
func TestBareErrorObjects(t *testing.T) {
	hc := serveFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, ":cancel"):
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"code":-32002,"message":"Task t1 is in a terminal state (completed) and cannot be canceled."}`)
		case strings.HasSuffix(r.URL.Path, "/message:send"):
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"code":-32602,"message":"Task t1 is in a terminal state (completed) and cannot be modified."}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"code":-32001,"message":"Task not found: t1"}`)
		}
	})
	c := newClient(t, transport.WithHTTPClient(hc))
	ep := a2a.Endpoint{URL: "https://agent.example/a2a", Binding: a2a.REST03}
	check := func(what string, err, want error, status int) {
		t.Helper()
		var ae *a2a.Error
		if !errors.Is(err, want) || !errors.As(err, &ae) || ae.HTTPStatus != status {
			t.Errorf("%s = %v, want %v with status %d", what, err, want, status)
		}
	}
	_, err := c.GetTask(t.Context(), ep, "t1")
	check("GetTask", err, a2a.ErrTaskNotFound, 404)
	_, err = c.Cancel(t.Context(), ep, "t1")
	check("Cancel", err, a2a.ErrTaskNotCancelable, 400)
	p := &a2a.Pause{Class: a2a.ClassInputRequired, Endpoint: ep, TaskID: "t1"}
	_, err = c.Resume(t.Context(), p, a2a.HectorDecision(true))
	check("Resume", err, a2a.ErrTaskTerminal, 400)
	_, err = c.Wait(t.Context(), &a2a.Pause{Class: a2a.ClassAuthRequired, Endpoint: ep, TaskID: "t1"}, nil)
	check("Wait", err, a2a.ErrTaskNotFound, 404)
}

// TestLegacyHectorTaskName: Hector v1 refuses a task addressed by id with -32603 "… task
// name is required"; the task query, the cancel and a wait ask again by name.
func TestLegacyHectorTaskName(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.JSONRPC03, a2a.JSONRPC10} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector), a2atest.WithAuthFirst())
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				go func() {
					<-time.After(20 * time.Second)
					_ = agent.Authorize(p.TaskID)
				}()
				got, err := c.Wait(t.Context(), p, nil)
				if err != nil || got.State != a2a.StateInputRequired {
					t.Fatalf("Wait = %+v, %v", got, err)
				}
				if got, err := c.GetTask(t.Context(), p.Endpoint, p.TaskID); err != nil || got.ID != p.TaskID {
					t.Fatalf("GetTask = %+v, %v", got, err)
				}
				if got, err := c.Cancel(t.Context(), p.Endpoint, p.TaskID); err != nil || got.State != a2a.StateCanceled {
					t.Fatalf("Cancel = %+v, %v", got, err)
				}
				refusals := 0
				for _, r := range agent.Requests() {
					if strings.Contains(string(r.Body), `"id":"`+p.TaskID+`"`) {
						refusals++
					}
				}
				if refusals == 0 {
					t.Error("the agent was never asked by id: the fallback was not exercised")
				}
			})
		})
	}
}

// TestToolCallShapes: Hector v2's pending call in an artifact under "arguments", and an ADK
// confirmation's arguments alone (originalFunctionCall), name their call.
func TestToolCallShapes(t *testing.T) {
	data := func(s string) a2a.Part { return a2a.Part{Data: json.RawMessage(s)} }
	tests := []struct {
		name  string
		pause a2a.Pause
		want  a2a.ToolCall
	}{
		{"Hector v2 artifact", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Approve?")}},
			Metadata: json.RawMessage(`{"long_running_tool_ids":["call-7"]}`),
			Task:     &a2a.Task{Artifacts: []a2a.Artifact{{Parts: []a2a.Part{data(`{"name":"delete_file","arguments":{"path":"/tmp/a"}}`)}}}}},
			a2a.ToolCall{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/a"}`), CallID: "call-7"}},
		{"ADK originalFunctionCall", a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{
			data(`{"originalFunctionCall":{"id":"fc-1","name":"delete_file","args":{"path":"/tmp/a"}},"toolConfirmation":{"hint":"Delete it?","confirmed":false}}`)}}},
			a2a.ToolCall{Name: "delete_file", Arguments: json.RawMessage(`{"path":"/tmp/a"}`), CallID: "fc-1"}},
	}
	for _, tt := range tests {
		got, ok := tt.pause.ToolCall()
		if !ok {
			t.Errorf("%s: no tool call", tt.name)
			continue
		}
		if diff := cmp.Diff(tt.want, *got); diff != "" {
			t.Errorf("%s: ToolCall (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPromptWithoutText: a question without a text part still has a prompt: the
// confirmation's hint, Hector v2's input_prompt, or words built from the tool call.
func TestPromptWithoutText(t *testing.T) {
	data := func(s string) a2a.Part { return a2a.Part{Data: json.RawMessage(s)} }
	ask := func(parts ...a2a.Part) a2a.Pause {
		return a2a.Pause{Class: a2a.ClassInputRequired, Question: &a2a.Message{Parts: parts}}
	}
	hinted := ask(data(`{"id":"adk-1","name":"adk_request_confirmation","args":{"originalFunctionCall":{"name":"delete_file","args":{"path":"/tmp/a"}},"toolConfirmation":{"hint":"Delete /tmp/a?"}}}`))
	bare := ask(data(`{"id":"adk-1","name":"adk_request_confirmation","args":{"originalFunctionCall":{"name":"delete_file","args":{"path":"/tmp/a"}}}}`))
	v2 := a2a.Pause{Class: a2a.ClassInputRequired, Metadata: json.RawMessage(`{"input_prompt":"Approve delete_file?"}`)}
	nothing := ask(data(`{"x":1}`))
	for _, tt := range []struct {
		pause a2a.Pause
		want  string
	}{
		{hinted, "Delete /tmp/a?"},
		{bare, `Approve the call of delete_file with arguments {"path":"/tmp/a"}?`},
		{v2, "Approve delete_file?"},
		{nothing, "The agent asks for input."},
	} {
		if got := tt.pause.Prompt(); got != tt.want {
			t.Errorf("Prompt = %q, want %q", got, tt.want)
		}
	}
	// From the fake ADK agent, whose question is a data part alone.
	agent := a2atest.NewMemoryAgent(t, a2atest.WithStyle(a2atest.StyleADK))
	c := newClient(t, transport.WithHTTPClient(agent.Client()))
	if p := start(t, c, agent.Endpoint(a2a.REST03), nil); p.Prompt() != "Delete the report?" {
		t.Errorf("ADK prompt = %q", p.Prompt())
	}
}

// TestRunSavedPauseOfEndedTask: a pause saved while the task asked, run after the task was
// cancelled, ends as a cancelled Result without asking the human.
func TestRunSavedPauseOfEndedTask(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t)
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(b), nil)
				saved, _ := json.Marshal(p)
				if _, err := c.Cancel(t.Context(), p.Endpoint, p.TaskID); err != nil {
					t.Fatal(err)
				}
				var restored a2a.Pause
				if err := json.Unmarshal(saved, &restored); err != nil {
					t.Fatal(err)
				}
				asked := 0
				r, err := c.Run(t.Context(), &restored, func(context.Context, *a2a.Pause) (a2a.Answer, error) {
					asked++
					return a2a.HectorDecision(true), nil
				}, nil)
				if err != nil || r.Status != transport.StatusCancelled || asked != 0 {
					t.Fatalf("Run = %v, %v after %d questions; want cancelled, none asked", r, err, asked)
				}
			})
		})
	}
}

// reasker is an ADK-like agent (JSON-RPC 1.0) that, after each answer, asks about the same
// tool call with the same arguments under a new confirmation id, repeats times, then
// completes. It records the confirmation ids the answers named.
type reasker struct {
	repeats int
	mu      sync.Mutex
	asked   int
	answers []string
}

func (a *reasker) question() string {
	return fmt.Sprintf(`{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q%d","role":"ROLE_AGENT","parts":[{"data":{"id":"confirm-%d","name":"adk_request_confirmation","args":{"originalFunctionCall":{"name":"transfer","args":{"amount":500,"to":"acme"}}}}}]}}}`, a.asked, a.asked)
}

func (a *reasker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Message struct {
				TaskID string `json:"taskId"`
				Parts  []struct {
					Data struct {
						ID string `json:"id"`
					} `json:"data"`
				} `json:"parts"`
			} `json:"message"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	a.mu.Lock()
	defer a.mu.Unlock()
	task := a.question()
	switch {
	case in.Method == "GetTask":
	case in.Params.Message.TaskID == "":
		a.asked++
		task = a.question()
	default:
		for _, p := range in.Params.Message.Parts {
			a.answers = append(a.answers, p.Data.ID)
		}
		if len(a.answers) > a.repeats {
			task = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}`
		} else {
			a.asked++
			task = a.question()
		}
	}
	if in.Method == "SendMessage" {
		task = `{"task":` + task + `}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, in.ID, task)
}

// TestSameCallAskedAgain: an agent that asks about the tool call just answered, same name,
// same arguments, under a new confirmation id, gets the question put to the human again —
// never an answer made up for them — and the human sees that the previous answer was not
// taken; once the call has been put to the human MaxAsksPerCall times (default 3), one more
// ask ends the run with a RepeatedCallError naming the call.
func TestSameCallAskedAgain(t *testing.T) {
	for _, tt := range []struct {
		repeats     int
		max         int
		wantErr     bool
		wantAnswers []string
	}{
		{1, 0, false, []string{"confirm-1", "confirm-2"}},
		{5, 0, true, []string{"confirm-1", "confirm-2", "confirm-3"}},
		{5, 1, true, []string{"confirm-1"}},
	} {
		t.Run(fmt.Sprintf("repeats %d max %d", tt.repeats, tt.max), func(t *testing.T) {
			agent := &reasker{repeats: tt.repeats}
			c := newClient(t, transport.WithHTTPClient(serveFunc(agent.ServeHTTP)))
			p := start(t, c, a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, nil)
			var prompts []string
			r, err := c.Run(t.Context(), p, func(_ context.Context, q *a2a.Pause) (a2a.Answer, error) {
				prompts = append(prompts, q.Prompt())
				if len(prompts) > 1 && (q.NotTaken == nil || q.NotTaken.Action != "deny") {
					t.Errorf("ask %d: NotTaken = %+v, want the deny not taken", len(prompts), q.NotTaken)
				}
				return a2a.ADKConfirmation(q, false)
			}, &a2a.RunOptions{MaxAsksPerCall: tt.max})
			var rc *a2a.RepeatedCallError
			switch {
			case tt.wantErr && (!errors.Is(err, a2a.ErrRepeatedToolCall) || !errors.As(err, &rc) || rc.Call.Name != "transfer" || rc.Action != "deny" || rc.Asked != len(tt.wantAnswers) || !strings.Contains(err.Error(), "transfer")):
				t.Errorf("Run = %v, %v; want a RepeatedCallError naming transfer", r, err)
			case !tt.wantErr && (err != nil || r.Status != transport.StatusCompleted || r.Action != "deny"):
				t.Errorf("Run = %v, %v", r, err)
			}
			if len(prompts) != len(tt.wantAnswers) {
				t.Errorf("the human was asked %d times, want %d", len(prompts), len(tt.wantAnswers))
			}
			for i, q := range prompts {
				if taken := !strings.Contains(q, `previous answer ("deny") was not taken`); taken != (i == 0) {
					t.Errorf("prompt %d = %q", i+1, q)
				}
			}
			if diff := cmp.Diff(tt.wantAnswers, agent.answers); diff != "" {
				t.Errorf("answers the agent read (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSendStreamLeavesNothingOpen: over a real loopback server whose stream stays open and
// silent after the turn's last event, SendStream returns at that event and the stream's
// handler and connection end with it.
func TestSendStreamLeavesNothingOpen(t *testing.T) {
	var open atomic.Int64
	ended := make(chan struct{}, 4)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { ended <- struct{}{} }()
		w.Header().Set("Content-Type", "text/event-stream")
		event := `{"task":{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q1","role":"ROLE_AGENT","parts":[{"text":"Approve?"}]}}}}`
		if strings.HasSuffix(r.URL.Path, "/rpc") {
			event = `{"jsonrpc":"2.0","id":1,"result":` + event + `}`
		}
		fmt.Fprintf(w, "data: %s\n\n", event)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open and silent until the client goes
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			open.Add(1)
		case http.StateClosed, http.StateHijacked:
			open.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := newClient(t, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(), a2a.WithMessageIDs(func() string { return "m" }))
	for _, ep := range []a2a.Endpoint{{URL: srv.URL + "/rpc", Binding: a2a.JSONRPC10}, {URL: srv.URL + "/rest", Binding: a2a.REST10}} {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		ev, err := c.SendStream(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}}, nil)
		late := ctx.Err()
		cancel()
		if err != nil || ev.Task == nil || ev.Task.State != a2a.StateInputRequired {
			t.Fatalf("%s: SendStream = %+v, %v", ep.Binding, ev, err)
		}
		if late != nil {
			t.Fatalf("%s: SendStream returned only when its context ended: the stream held it", ep.Binding)
		}
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the stream's handler still runs after SendStream returned", ep.Binding)
		}
	}
	deadline := time.After(5 * time.Second)
	for open.Load() != 0 {
		select {
		case <-deadline:
			t.Fatalf("%d connections still open", open.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// rejecter is an agent (JSON-RPC 1.0) that asks once and ends a denied task "rejected", as
// agents on the JavaScript SDK do, where a2atest's agent ends it "completed".
func rejecter(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params struct {
			Message struct {
				TaskID string `json:"taskId"`
			} `json:"message"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	task := `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED","message":{"messageId":"q1","role":"ROLE_AGENT","parts":[{"text":"Delete /tmp/a?"}]}}}`
	if in.Method == "SendMessage" && in.Params.Message.TaskID != "" {
		task = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_REJECTED","message":{"messageId":"r1","role":"ROLE_AGENT","parts":[{"text":"Denied."}]}}}`
	}
	if in.Method == "SendMessage" {
		task = `{"task":` + task + `}`
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, in.ID, task)
}

// TestDecisionWhateverTheAgentDid: a human's "deny" is reported the same way whether the agent
// then completes the task or rejects it; the task's final state is reported beside it.
func TestDecisionWhateverTheAgentDid(t *testing.T) {
	deny := func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(false), nil }
	fake := a2atest.NewMemoryAgent(t)
	completes := newClient(t, transport.WithHTTPClient(fake.Client()))
	r1, err := completes.Run(t.Context(), start(t, completes, fake.Endpoint(a2a.JSONRPC10), nil), deny, nil)
	if err != nil {
		t.Fatal(err)
	}
	rejects := newClient(t, transport.WithHTTPClient(serveFunc(rejecter)))
	r2, err := rejects.Run(t.Context(), start(t, rejects, a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, nil), deny, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*transport.Result{r1, r2} {
		if r.Action != "deny" || r.Decision != transport.DecisionReject || r.Approved() || r.Decision == "" {
			t.Errorf("%s task: the human's decision reads %q, %q, approved %v, by a human %v", r.Status, r.Action, r.Decision, r.Approved(), r.Decision != "")
		}
	}
	t1, _ := a2a.TaskOf(r1)
	t2, _ := a2a.TaskOf(r2)
	if r1.Status != transport.StatusCompleted || t1.State != a2a.StateCompleted || r2.Status != transport.StatusRejected || t2.State != a2a.StateRejected {
		t.Errorf("final states: %s/%s and %s/%s", r1.Status, t1.State, r2.Status, t2.State)
	}
}

// TestAnswerWithoutAnActionWord: a human's answer that names no action word (only parts the
// agent reads) is a human's decision all the same: DecisionAnswer, never "no human decided".
func TestAnswerWithoutAnActionWord(t *testing.T) {
	partsOnly := func(context.Context, *a2a.Pause) (a2a.Answer, error) {
		return a2a.Answer{Parts: a2a.HectorDecision(true).Parts}, nil
	}
	fake := a2atest.NewMemoryAgent(t)
	c := newClient(t, transport.WithHTTPClient(fake.Client()))
	r, err := c.Run(t.Context(), start(t, c, fake.Endpoint(a2a.JSONRPC10), nil), partsOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != transport.StatusCompleted || r.Action != "" || r.Decision != transport.DecisionAnswer || r.Approved() {
		t.Errorf("Result %v: Decision %q, approved %v", r, r.Decision, r.Approved())
	}
}

// TestSubscriptionClosedAfterAnError: a subscription that carries an error event and then
// stays open and silent is closed by the client at once, not held until the wait ends.
func TestSubscriptionClosedAfterAnError(t *testing.T) {
	ended := make(chan struct{}, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &in)
		if in.Method != "SubscribeToTask" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"id":"t1","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}}`, in.ID)
			return
		}
		defer func() { ended <- struct{}{} }()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"error\":{\"code\":-32603,\"message\":\"busy\"}}\n\n", in.ID)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open and silent until the client goes
	}))
	defer srv.Close()
	c := newClient(t, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses())
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Wait(ctx, &a2a.Pause{Class: a2a.ClassAuthRequired, Endpoint: a2a.Endpoint{URL: srv.URL, Binding: a2a.JSONRPC10}, TaskID: "t1"}, &a2a.WaitOptions{Stream: true})
	}()
	select {
	case <-ended:
	case <-ctx.Done():
		t.Error("the subscription was held open until the wait ended")
	}
	cancel()
	<-done
}

type cutReader struct{}

func (cutReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestSendStreamCut: a stream cut off after it named the task is not the end of the task:
// SendStream asks the agent for it.
func TestSendStreamCut(t *testing.T) {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), "SendStreamingMessage") {
			stream := io.MultiReader(strings.NewReader(`data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_SUBMITTED"}}}}`+"\n\n"), cutReader{})
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(stream), Request: r}, nil
		}
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"jsonrpc":"2.0","id":2,"result":{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}`))}, nil
	})}
	c := newClient(t, transport.WithHTTPClient(hc))
	ev, err := c.SendStream(t.Context(), a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}}, nil)
	if err != nil || ev.Task == nil || ev.Task.State != a2a.StateInputRequired {
		t.Fatalf("SendStream = %+v, %v", ev, err)
	}
}
