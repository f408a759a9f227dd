package a2atest_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var bindings = []a2a.Binding{a2a.JSONRPC10, a2a.JSONRPC03, a2a.REST10, a2a.REST03}

func newClient(t *testing.T, hc *http.Client) *a2a.Client {
	t.Helper()
	c, err := a2a.NewClient(transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func send(t *testing.T, c *a2a.Client, ep a2a.Endpoint) *a2a.Pause {
	t.Helper()
	ev, err := c.Send(t.Context(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("delete the reports")}}, nil)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	p := a2a.NewPause(ep, ev.Task)
	if p == nil {
		t.Fatalf("Send: task %+v does not ask", ev.Task)
	}
	return p
}

// TestAgentAsksAndReads: on every binding of every profile, a task asks its questions one by
// one, reads an approval and a denial as such, and completes after the last; the log shows
// each request with its operation, task and status.
func TestAgentAsksAndReads(t *testing.T) {
	for _, profile := range a2atest.Profiles() {
		for _, b := range bindings {
			t.Run(profile.String()+" "+string(b), func(t *testing.T) {
				agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(profile), a2atest.WithQuestions(2))
				c := newClient(t, agent.Client())
				p := send(t, c, agent.Endpoint(b))
				if tc, ok := p.ToolCall(); !ok || tc.Name != "delete_file" {
					t.Errorf("tool call %+v, %v", tc, ok)
				}
				if st, ok := agent.Task(p.TaskID); !ok || st.State != a2a.StateInputRequired || len(st.Answers) != 0 {
					t.Errorf("Task = %+v, %v", st, ok)
				}
				ev, err := c.Resume(t.Context(), p, a2a.HectorDecision(true))
				if err != nil {
					t.Fatal(err)
				}
				task, err := c.GetTask(t.Context(), p.Endpoint, p.TaskID)
				if err != nil || task.State != a2a.StateInputRequired || !strings.Contains(task.Question.Text(), "Tool Approval") {
					t.Fatalf("after the first answer: %+v (resume answered %+v), %v", task, ev.Task, err)
				}
				if _, err := c.Resume(t.Context(), a2a.NewPause(p.Endpoint, task), a2a.HectorDecision(false)); err != nil {
					t.Fatal(err)
				}
				task, err = c.GetTask(t.Context(), p.Endpoint, p.TaskID)
				if err != nil || task.State != a2a.StateCompleted {
					t.Fatalf("after the last answer: %+v, %v", task, err)
				}
				st, _ := agent.Task(p.TaskID)
				if want := []string{"approve", "deny"}; !slices.Equal(st.Answers, want) {
					t.Errorf("answers %q, want %q", st.Answers, want)
				}
				sends := 0
				for i, r := range agent.Requests() {
					if strings.Contains(strings.ToLower(r.Operation), "send") {
						sends++
					}
					if r.Binding != b || r.Status != http.StatusOK || r.Operation == "" || r.Time.IsZero() || r.Path == "" {
						t.Errorf("request %d = %+v", i, r)
					}
					if i > 0 && r.TaskID != p.TaskID {
						t.Errorf("request %d names task %q, want %q", i, r.TaskID, p.TaskID)
					}
				}
				if sends != 3 {
					t.Errorf("%d sends logged, want 3", sends)
				}
			})
		}
	}
}

// rpc posts one JSON-RPC 0.3 request to the agent and returns the answer's content type and
// its decoded body.
func rpc(t *testing.T, agent *a2atest.Agent, method, params string) (string, map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	resp, err := agent.Client().Post(agent.Endpoint(a2a.JSONRPC03).URL, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: not JSON: %s", method, raw)
	}
	return resp.Header.Get("Content-Type"), out
}

func errorCode(v map[string]any) float64 {
	e, _ := v["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// TestAgentProfilesOnTheWire: each profile answers as the agents it models do: the content
// type a2a-go v0.3 sends, its refusal of an ended task, the older Hector's query by name and
// its resume of an ended task as a new one.
func TestAgentProfilesOnTheWire(t *testing.T) {
	const msg = `{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"go"}]}}`
	idOf := func(v map[string]any) string {
		res, _ := v["result"].(map[string]any)
		id, _ := res["id"].(string)
		return id
	}
	t.Run("spec", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		ct, v := rpc(t, agent, "message/send", msg)
		id := idOf(v)
		if id == "" || !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("send: %q %v", ct, v)
		}
		// A task paused for input is not streamed: -32001, as a2a-go answers.
		if _, v := rpc(t, agent, "tasks/resubscribe", `{"id":"`+id+`"}`); errorCode(v) == 0 {
			t.Errorf("resubscribe to a paused task: %v", v)
		}
		if _, v := rpc(t, agent, "tasks/get", `{"id":"nope"}`); errorCode(v) != -32001 {
			t.Errorf("unknown task: %v", v)
		}
	})
	t.Run("a2a-go v0.3", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileA2AGoV03))
		ct, v := rpc(t, agent, "message/send", msg)
		id := idOf(v)
		if id == "" || !strings.HasPrefix(ct, "text/plain") {
			t.Fatalf("send: %q %v", ct, v)
		}
		if _, v := rpc(t, agent, "tasks/cancel", `{"id":"`+id+`"}`); v["result"] == nil {
			t.Fatalf("cancel: %v", v)
		}
		// A message to an ended task: the generic "invalid params", the reason in data.error.
		_, v = rpc(t, agent, "message/send", `{"message":{"kind":"message","role":"user","messageId":"m2","taskId":"`+id+`","parts":[{"kind":"text","text":"approve"}]}}`)
		e, _ := v["error"].(map[string]any)
		if data, _ := e["data"].(map[string]any); errorCode(v) != -32602 || e["message"] != "invalid params" || data["error"] == nil {
			t.Errorf("message to an ended task: %v", v)
		}
	})
	t.Run("legacy Hector", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
		_, v := rpc(t, agent, "message/send", msg)
		id := idOf(v)
		if _, v := rpc(t, agent, "tasks/get", `{"id":"`+id+`"}`); errorCode(v) == 0 {
			t.Errorf("query by id: %v, want an error (the older Hector asks for a name)", v)
		}
		if _, v := rpc(t, agent, "tasks/get", `{"name":"tasks/`+id+`"}`); idOf(v) != id {
			t.Errorf("query by name: %v", v)
		}
		// A resume naming an unknown task starts a new one.
		_, v = rpc(t, agent, "message/send", `{"message":{"kind":"message","role":"user","messageId":"m2","taskId":"gone","parts":[{"kind":"text","text":"approve"}]}}`)
		if got := idOf(v); got == "" || got == "gone" {
			t.Errorf("resume of an unknown task: %v", v)
		}
	})
}

// TestAgentFailNext: a fault queued for a task hits only requests about that task, one per
// request, and the log records the status the client saw; a fault for any task hits the next
// request.
func TestAgentFailNext(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	c := newClient(t, agent.Client())
	ep := agent.Endpoint(a2a.JSONRPC10)
	p1, p2 := send(t, c, ep), send(t, c, ep)
	agent.FailNext(p1.TaskID, a2atest.Fault503, 1)
	if _, err := c.GetTask(t.Context(), ep, p2.TaskID); err != nil {
		t.Errorf("another task's query failed: %v", err)
	}
	var se *transport.StatusError
	if _, err := c.GetTask(t.Context(), ep, p1.TaskID); !errors.As(err, &se) || se.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("faulted query: %v, want a 503", err)
	}
	if _, err := c.GetTask(t.Context(), ep, p1.TaskID); err != nil {
		t.Errorf("the fault hit twice: %v", err)
	}
	for _, b := range bindings { // an internal error is the agent's -32603 (REST: 500), on the request's id
		agent.FailNext("", a2atest.FaultInternal, 1)
		var ae *a2a.Error
		var se *transport.StatusError
		_, err := c.GetTask(t.Context(), agent.Endpoint(b), p2.TaskID)
		if !(errors.As(err, &ae) && ae.Code == -32603) && !(errors.As(err, &se) && se.StatusCode == http.StatusInternalServerError) {
			t.Errorf("%s: a fault for any task = %v, want the agent's internal error", b, err)
		}
	}
	agent.FailNext("", a2atest.FaultLostReply, 1)
	if _, err := c.Resume(t.Context(), p2, a2a.HectorDecision(true)); err == nil {
		t.Error("a lost reply arrived")
	}
	if st, _ := agent.Task(p2.TaskID); st.State != a2a.StateCompleted {
		t.Errorf("behind a lost reply the agent did not act: %+v", st)
	}
	reqs := agent.Requests()
	if last := reqs[len(reqs)-1]; last.Status != http.StatusBadGateway || last.TaskID != p2.TaskID {
		t.Errorf("last request %+v, want the lost reply's 502", last)
	}
}

// TestRelay: a held task stays held through polls until the administrator decides; an
// approval completes it with the sink's answer, a rejection fails it with the reason.
func TestRelay(t *testing.T) {
	for _, form := range []a2atest.RelayForm{a2atest.RelayWorking, a2atest.RelayReason, a2atest.RelayPending} {
		relay := a2atest.NewMemoryRelay(t, a2atest.WithRelayForm(form))
		c := newClient(t, relay.Client())
		ok, no := send(t, c, relay.Endpoint()), send(t, c, relay.Endpoint())
		if ok.Relay == nil || !ok.Class.Paused() || relay.NextHold(t.Context().Done()) != ok.TaskID {
			t.Fatalf("form %d: held %+v", form, ok)
		}
		if task, err := c.GetTask(t.Context(), ok.Endpoint, ok.TaskID); err != nil || a2a.NewPause(ok.Endpoint, task) == nil {
			t.Errorf("form %d: before a decision %+v, %v", form, task, err)
		}
		if err := relay.Approve(ok.TaskID); err != nil {
			t.Fatal(err)
		}
		if err := relay.Reject(no.TaskID, "not allowed"); err != nil {
			t.Fatal(err)
		}
		if err := relay.Approve(ok.TaskID); !errors.Is(err, a2atest.ErrEnded) {
			t.Errorf("form %d: a second decision: %v", form, err)
		}
		if err := relay.Reject("relay-404", "no"); !errors.Is(err, a2atest.ErrNotFound) {
			t.Errorf("form %d: a decision on an unknown task: %v", form, err)
		}
		task, err := c.GetTask(t.Context(), ok.Endpoint, ok.TaskID)
		if err != nil || task.State != a2a.StateCompleted || len(task.Artifacts) != 1 || !strings.Contains(task.Artifacts[0].Parts[0].Text, "delete the reports") {
			t.Errorf("form %d: approved %+v, %v", form, task, err)
		}
		task, err = c.GetTask(t.Context(), no.Endpoint, no.TaskID)
		if err != nil || task.State != a2a.StateFailed || task.Question.Text() != "not allowed" {
			t.Errorf("form %d: rejected %+v, %v", form, task, err)
		}
		var ops []string
		for _, r := range relay.Requests() {
			ops = append(ops, r.Operation)
			if r.Status != http.StatusOK || r.Method != http.MethodPost || r.Path != a2atest.RelayPath {
				t.Errorf("form %d: request %+v", form, r)
			}
		}
		if want := []string{"message/send", "message/send", "tasks/get", "tasks/get", "tasks/get"}; !slices.Equal(ops, want) {
			t.Errorf("form %d: requests %q, want %q", form, ops, want)
		}
	}
}

// TestUnstarted: an unstarted fake serves nothing until Start, then on loopback; StartTLS
// serves HTTP/2 with a certificate its client trusts.
func TestUnstarted(t *testing.T) {
	agent := a2atest.NewUnstartedAgent()
	if agent.URL != "" {
		t.Fatalf("unstarted agent at %q", agent.URL)
	}
	agent.StartTLS()
	defer agent.Close()
	if !strings.HasPrefix(agent.URL, "https://127.0.0.1:") || agent.Certificate() == nil {
		t.Errorf("URL %q, certificate %v", agent.URL, agent.Certificate())
	}
	c := newClient(t, agent.Client())
	send(t, c, agent.Endpoint(a2a.REST10))
	if reqs := agent.Requests(); len(reqs) != 1 || reqs[0].Header.Get("A2A-Version") == "" {
		t.Errorf("requests %+v", reqs)
	}
	relay := a2atest.NewUnstartedRelay()
	relay.Start()
	defer relay.Close()
	if !strings.HasPrefix(relay.URL, "http://127.0.0.1:") {
		t.Errorf("relay URL %q", relay.URL)
	}
	send(t, newClient(t, relay.Client()), relay.Endpoint())
}

// TestAgentAuthPushAndFail: a task waits in auth-required until Authorize, then asks; every
// change is pushed to the webhook with the token and credentials it was given; Fail ends the
// task as failed with the reason.
func TestAgentAuthPushAndFail(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			type push struct {
				token, auth, state string
			}
			pushes := make(chan push, 16)
			hook := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				ev, err := a2a.Decode(body)
				state := ""
				switch {
				case err == nil && ev.Task != nil:
					state = string(ev.Task.State)
				case err == nil && ev.Status != nil:
					state = string(ev.Status.State)
				}
				pushes <- push{r.Header.Get("A2A-Notification-Token") + r.Header.Get("X-A2A-Notification-Token"), r.Header.Get("Authorization"), state}
			})
			agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst(), a2atest.WithPushHandler(hook))
			c := newClient(t, agent.Client())
			cfg := &a2a.PushConfig{URL: "https://agent.example/push", Token: "tok-1", Scheme: "Bearer", Credentials: "cred-1"}
			ev, err := c.Send(t.Context(), agent.Endpoint(b), a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}}, &a2a.SendOptions{Push: cfg})
			if err != nil || ev.Task == nil || ev.Task.State != a2a.StateAuthRequired {
				t.Fatalf("Send = %+v, %v", ev, err)
			}
			id := ev.Task.ID
			// Each change is pushed on its own, so pushes may arrive out of order.
			waitFor := func(state a2a.State) {
				t.Helper()
				for {
					select {
					case p := <-pushes:
						if p.token != "tok-1" || p.auth != "Bearer cred-1" {
							t.Errorf("push %+v", p)
						}
						if p.state == string(state) {
							return
						}
					case <-time.After(5 * time.Second):
						t.Fatalf("no push of %s", state)
					}
				}
			}
			waitFor(a2a.StateAuthRequired)
			if err := agent.Authorize(id); err != nil {
				t.Fatal(err)
			}
			waitFor(a2a.StateInputRequired)
			if err := agent.Authorize(id); err == nil {
				t.Error("a second Authorize was taken")
			}
			if err := agent.Fail("task-404", "x"); !errors.Is(err, a2atest.ErrNotFound) {
				t.Errorf("Fail of an unknown task: %v", err)
			}
			if err := agent.Fail(id, "disk full"); err != nil {
				t.Fatal(err)
			}
			waitFor(a2a.StateFailed)
			task, err := c.GetTask(t.Context(), agent.Endpoint(b), id)
			if err != nil || task.State != a2a.StateFailed || task.Question.Text() != "disk full" {
				t.Errorf("failed task %+v, %v", task, err)
			}
		})
	}
}

// TestAgentStyles: each style asks in its own shape and reads only the answer in that shape:
// Hector v2's tool approval for its pending call, ADK's function response with its metadata
// (without it, a deny).
func TestAgentStyles(t *testing.T) {
	tests := []struct {
		style  a2atest.Style
		answer func(*a2a.Pause) (a2a.Answer, error)
		want   string
	}{
		{a2atest.StyleHectorV1, func(*a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }, "approve"},
		{a2atest.StyleHectorV2, func(p *a2a.Pause) (a2a.Answer, error) { return a2a.HectorToolApproval(p, true) }, "approve"},
		{a2atest.StyleADK, func(p *a2a.Pause) (a2a.Answer, error) { return a2a.ADKConfirmation(p, true) }, "approve"},
		{a2atest.StyleADK, func(p *a2a.Pause) (a2a.Answer, error) {
			a, err := a2a.ADKConfirmation(p, true)
			for i := range a.Parts {
				a.Parts[i].Metadata = nil
			}
			return a, err
		}, "deny"},
	}
	for _, tt := range tests {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithStyle(tt.style))
		c := newClient(t, agent.Client())
		p := send(t, c, agent.Endpoint(a2a.JSONRPC03))
		a, err := tt.answer(p)
		if err != nil {
			t.Fatalf("style %d: %v", tt.style, err)
		}
		if _, err := c.Resume(t.Context(), p, a); err != nil {
			t.Fatalf("style %d: %v", tt.style, err)
		}
		if st, _ := agent.Task(p.TaskID); !slices.Equal(st.Answers, []string{tt.want}) || st.State != a2a.StateCompleted {
			t.Errorf("style %d: agent read %q, state %s; want %q", tt.style, st.Answers, st.State, tt.want)
		}
	}
}

// TestCloseWhilePushesStart: task changes racing with Close start their push deliveries
// before Close began or not at all (the race detector checks the count Close waits on),
// and a change after Close starts none.
func TestCloseWhilePushesStart(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			var pushed atomic.Int32
			hook := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pushed.Add(1) })
			agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst(), a2atest.WithPushHandler(hook))
			c := newClient(t, agent.Client())
			ids := make([]string, 9)
			for i := range ids {
				ev, err := c.Send(t.Context(), agent.Endpoint(a2a.JSONRPC10), a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}},
					&a2a.SendOptions{Push: &a2a.PushConfig{URL: "https://agent.example/push", Token: "tok"}})
				if err != nil || ev.Task == nil {
					t.Fatalf("Send = %+v, %v", ev, err)
				}
				ids[i] = ev.Task.ID
			}
			var changed sync.WaitGroup
			for _, id := range ids[1:] {
				changed.Go(func() { _ = agent.Fail(id, "stopped") })
			}
			agent.Close()
			changed.Wait()
			synctest.Wait()
			n := pushed.Load()
			if err := agent.Fail(ids[0], "stopped"); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
			if m := pushed.Load(); m != n {
				t.Errorf("a change after Close was pushed (%d pushes, %d before)", m, n)
			}
		})
	}
}
