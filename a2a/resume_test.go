package a2a_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

func sequentialIDs() transport.Option {
	var n atomic.Int64
	return a2a.WithMessageIDs(func() string { return fmt.Sprintf("msg-%d", n.Add(1)) })
}

func jsonValue(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	return v
}

// TestCase19ResumeRequest: the resume is a new message with the task's ids, spelled for the
// binding the task came from: method, path, headers, role and part shapes.
func TestCase19ResumeRequest(t *testing.T) {
	tests := []struct {
		binding     a2a.Binding
		method      string
		contentType string
		version     string
		body        string
	}{
		{a2a.JSONRPC03, "message/send", "application/json", "",
			`{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"msg-2","role":"user",
			"parts":[{"kind":"text","text":"approve"},{"kind":"data","data":{"decision":"approve","data":{"decision":"approve"}}}],"taskId":"task-1","contextId":"ctx-1"}}}`},
		{a2a.JSONRPC10, "SendMessage", "application/json", "1.0",
			`{"jsonrpc":"2.0","id":2,"method":"SendMessage","params":{"message":{"messageId":"msg-2","contextId":"ctx-1","taskId":"task-1","role":"ROLE_USER",
			"parts":[{"text":"approve"},{"data":{"decision":"approve","data":{"decision":"approve"}}}]}}}`},
		{a2a.REST03, "message:send", "application/json", "",
			`{"message":{"messageId":"msg-2","contextId":"ctx-1","taskId":"task-1","role":"ROLE_USER",
			"content":[{"text":"approve"},{"data":{"data":{"decision":"approve","data":{"decision":"approve"}}}}]}}`},
		{a2a.REST10, "message:send", "application/a2a+json", "1.0",
			`{"message":{"messageId":"msg-2","contextId":"ctx-1","taskId":"task-1","role":"ROLE_USER",
			"parts":[{"text":"approve"},{"data":{"decision":"approve","data":{"decision":"approve"}}}]}}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.binding), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t)
			c := newClient(t, transport.WithHTTPClient(agent.Client()), sequentialIDs())
			p := start(t, c, agent.Endpoint(tt.binding), nil)
			ev, err := c.Resume(t.Context(), p, a2a.HectorDecision(true))
			if err != nil || ev.Task.State != a2a.StateCompleted {
				t.Fatalf("Resume = %+v, %v", ev, err)
			}
			reqs := agent.Requests()
			got := reqs[len(reqs)-1]
			if got.Operation != tt.method || got.Header.Get("Content-Type") != tt.contentType || got.Header.Get("A2A-Version") != tt.version {
				t.Errorf("request %s, Content-Type %q, A2A-Version %q", got.Operation, got.Header.Get("Content-Type"), got.Header.Get("A2A-Version"))
			}
			if diff := cmp.Diff(jsonValue(t, []byte(tt.body)), jsonValue(t, got.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			// The first message had its own id: a resume never reuses one.
			if first := string(reqs[0].Body); !strings.Contains(first, `"msg-1"`) {
				t.Errorf("first message: %s", first)
			}
		})
	}
}

// TestCase22ContextMismatch: a resume whose contextId is not the task's is refused by the
// agent as invalid params, which is not "terminal".
func TestCase22ContextMismatch(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	c := newClient(t, transport.WithHTTPClient(agent.Client()))
	p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
	wrong := *p
	wrong.ContextID = "ctx-other"
	_, err := c.Resume(t.Context(), &wrong, a2a.HectorDecision(true))
	if !errors.Is(err, a2a.ErrInvalidParams) || errors.Is(err, a2a.ErrTaskTerminal) {
		t.Fatalf("Resume = %v", err)
	}
	if st, _ := agent.Task(p.TaskID); st.State != a2a.StateInputRequired {
		t.Errorf("task is %s after a refused resume", st.State)
	}
}

// TestCase34And35FrameworkAnswers: Hector v2 and ADK pauses are answered in their own
// payloads, which the agent reads; a pause without a tool call cannot be answered so.
func TestCase34And35FrameworkAnswers(t *testing.T) {
	tests := []struct {
		name   string
		style  a2atest.Style
		answer func(*a2a.Pause, bool) (a2a.Answer, error)
	}{
		{"case34 Hector v2 tool_approval", a2atest.StyleHectorV2, a2a.HectorToolApproval},
		{"case35 ADK adk_request_confirmation", a2atest.StyleADK, a2a.ADKConfirmation},
	}
	for _, tt := range tests {
		for _, approve := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s approve=%v", tt.name, approve), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithStyle(tt.style), a2atest.WithQuestions(2))
				c := newClient(t, transport.WithHTTPClient(agent.Client()))
				p := start(t, c, agent.Endpoint(a2a.JSONRPC03), nil)
				r, err := c.Run(t.Context(), p, func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) { return tt.answer(p, approve) }, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"approve", "approve"}
				if !approve {
					want = []string{"deny"}
				}
				st, _ := agent.Task(p.TaskID)
				if diff := cmp.Diff(want, st.Answers); diff != "" || r.Action != want[0] {
					t.Errorf("agent read (-want +got):\n%s; action %q", diff, r.Action)
				}
			})
		}
		t.Run(tt.name+" without a tool call", func(t *testing.T) {
			p := &a2a.Pause{Class: a2a.ClassInputRequired, TaskID: "t1", Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Approve?")}}}
			if _, err := tt.answer(p, true); !errors.Is(err, a2a.ErrNoToolCall) {
				t.Errorf("err = %v", err)
			}
		})
	}
	// The ADK answer's exact shape: the call's id, the function's name, {"confirmed":…}.
	p := &a2a.Pause{Question: &a2a.Message{Parts: []a2a.Part{{Data: json.RawMessage(`{"id":"fc-9","name":"adk_request_confirmation","args":{}}`)}}}}
	a, err := a2a.ADKConfirmation(p, false)
	if err != nil || string(a.Parts[0].Data) != `{"id":"fc-9","name":"adk_request_confirmation","response":{"confirmed":false}}` ||
		string(a.Parts[0].Metadata) != `{"adk_type":"function_response"}` {
		t.Errorf("ADK answer = %s %s, %v", a.Parts[0].Data, a.Parts[0].Metadata, err)
	}
}

// TestCase36ResumeWithoutContext: a task without contextId is resumed with its taskId alone.
func TestCase36ResumeWithoutContext(t *testing.T) {
	var got []byte
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}}}`)
	})
	c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h}}), sequentialIDs())
	ev, _ := a2a.Decode([]byte(`{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}`))
	p := a2a.NewPause(a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, ev.Task)
	if _, err := c.Resume(t.Context(), p, a2a.Answer{Parts: []a2a.Part{a2a.TextPart("yes")}}); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"msg-1","taskId":"t1","role":"ROLE_USER","parts":[{"text":"yes"}]}}}`
	if diff := cmp.Diff(jsonValue(t, []byte(want)), jsonValue(t, got)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestCase29IDMismatch: an answer whose id is not the request's is refused, on a real call.
func TestCase29IDMismatch(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}}`)
	})
	c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h}}))
	_, err := c.Send(t.Context(), a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, a2a.Message{Parts: []a2a.Part{a2a.TextPart("hi")}}, nil)
	if !errors.Is(err, a2a.ErrIDMismatch) {
		t.Fatalf("err = %v", err)
	}
	// An HTML 502 from a proxy is an HTTP failure, temporary, not an A2A answer.
	h502 := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html>502 Bad Gateway</html>")
	})
	c = newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h502}}))
	_, err = c.Send(t.Context(), a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}, a2a.Message{Parts: []a2a.Part{a2a.TextPart("hi")}}, nil)
	var se *transport.StatusError
	if !errors.As(err, &se) || se.StatusCode != 502 || !httpx.IsTemporary(err) || errors.Is(err, a2a.ErrRemote) {
		t.Fatalf("502: %v", err)
	}
}

// TestCase15StreamEndsEarly: a stream that ends while the task works is followed by GetTask,
// which tells the truth; on every binding, SendStream reads a whole turn.
func TestCase15StreamEndsEarly(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ":stream") {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "data: {\"task\":{\"id\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}\n\n")
			return
		}
		_, _ = io.WriteString(w, `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}`)
	})
	c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h}}))
	ev, err := c.SendStream(t.Context(), a2a.Endpoint{URL: "https://agent.example", Binding: a2a.REST10}, a2a.Message{Parts: []a2a.Part{a2a.TextPart("hi")}}, nil)
	if err != nil || ev.Class() != a2a.ClassInputRequired {
		t.Fatalf("SendStream = %+v, %v", ev, err)
	}
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t, a2atest.WithQuestions(2))
			c := newClient(t, transport.WithHTTPClient(agent.Client()))
			ev, err := c.SendStream(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
			if err != nil || ev.Class() != a2a.ClassInputRequired || ev.Task.Question == nil {
				t.Fatalf("SendStream = %+v, %v", ev, err)
			}
			reqs := agent.Requests()
			if len(reqs) != 1 {
				t.Errorf("%d requests, want the stream alone", len(reqs))
			}
		})
	}
}

// TestCase23SubscribeFallsBackToPolling: a2a-go (and the fake) refuse to stream a task
// paused for input with -32001; the wait keeps its handle and polls.
func TestCase23SubscribeFallsBackToPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		c := newClient(t, transport.WithHTTPClient(agent.Client()))
		p := start(t, c, agent.Endpoint(a2a.JSONRPC10), nil)
		go func() {
			<-time.After(12 * time.Second)
			// Another process answers the question meanwhile.
			other := newClient(t, transport.WithHTTPClient(agent.Client()))
			_, _ = other.Resume(context.Background(), p, a2a.HectorDecision(true))
		}()
		task, err := c.Wait(t.Context(), p, &a2a.WaitOptions{Stream: true})
		if err != nil || task.State != a2a.StateCompleted {
			t.Fatalf("Wait = %+v, %v", task, err)
		}
		var methods []string
		for _, r := range agent.Requests() {
			methods = append(methods, r.Operation)
		}
		// Polls at 0, 5, 10 and 15 s (the last sees the answer of 12 s); one refused subscribe.
		want := []string{"GetTask", "GetTask", "GetTask", "GetTask", "SendMessage", "SendMessage", "SubscribeToTask"}
		slices.Sort(methods)
		if diff := cmp.Diff(want, methods); diff != "" {
			t.Errorf("requests (-want +got):\n%s", diff)
		}
	})
}
