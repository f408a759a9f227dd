package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// a2aCall sends a first message to ep the way an agent's own code would (a plain HTTP
// request), and returns the response for detection.
func a2aCall(t *testing.T, hc *http.Client, ep a2a.Endpoint, versionHeader bool) *http.Response {
	t.Helper()
	var body, target string
	switch ep.Binding {
	case a2a.JSONRPC03:
		body, target = `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"clean up"}]}}}`, ep.URL
	case a2a.JSONRPC10:
		body, target = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`, ep.URL
	case a2a.REST10:
		body, target = `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}`, ep.URL+"/message:send"
	case a2a.REST03:
		body, target = `{"message":{"messageId":"m1","role":"ROLE_USER","content":[{"text":"clean up"}]}}`, ep.URL+"/v1/message:send"
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if versionHeader {
		req.Header.Set("A2A-Version", "1.0")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestDetectA2A: Detect recognises A2A answers when they are marked as A2A (A2A-Version on
// the request) or the caller says so, infers the binding they were spoken in, and restores
// the body.
func TestDetectA2A(t *testing.T) {
	tests := []struct {
		binding a2a.Binding
		header  bool
		opts    *hitl.DetectOptions
	}{
		{a2a.JSONRPC10, true, nil},
		{a2a.REST10, true, nil},
		{a2a.JSONRPC03, false, &hitl.DetectOptions{A2A: true}},
		{a2a.REST03, false, &hitl.DetectOptions{A2A: true}},
		// Unmarked and without the option: the REST send path, the JSON-RPC method.
		{a2a.JSONRPC03, false, nil},
		{a2a.REST03, false, nil},
	}
	for _, tt := range tests {
		t.Run(string(tt.binding), func(t *testing.T) {
			agent := a2atest.NewMemoryAgent(t)
			ep := agent.Endpoint(tt.binding)
			resp := a2aCall(t, agent.Client(), ep, tt.header)
			it, err := hitl.Detect(resp, tt.opts)
			if err != nil || it == nil {
				t.Fatalf("Detect = %v, %v", it, err)
			}
			if it.Kind != hitl.KindA2AInput || it.Task.Endpoint != ep || it.ID() != it.Task.TaskID || !strings.Contains(it.Prompt(), "Tool Approval Required") {
				t.Errorf("interrupt = %v, endpoint %v, prompt %q", it, it.Task.Endpoint, it.Prompt())
			}
			rest, _ := io.ReadAll(resp.Body)
			if !bytes.Contains(rest, []byte(it.Task.TaskID)) {
				t.Errorf("body not restored: %s", rest)
			}
		})
	}
	t.Run("unmarked JSON-RPC answers read only for A2A task methods", func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		ep := agent.Endpoint(a2a.JSONRPC03)
		post := func(body string, rereadable bool) *http.Response {
			t.Helper()
			var r io.Reader = strings.NewReader(body)
			if !rereadable {
				r = io.MultiReader(r) // no GetBody: the request cannot be read again
			}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ep.URL, r)
			req.Header.Set("Content-Type", "application/json")
			resp, err := agent.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = resp.Body.Close() })
			return resp
		}
		send := `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"clean up"}]}}}`
		it, err := hitl.Detect(post(send, true), nil)
		if err != nil || it == nil || it.Kind != hitl.KindA2AInput || it.Task.Endpoint.Binding != a2a.JSONRPC03 {
			t.Fatalf("send: Detect = %v, %v", it, err)
		}
		get := `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"` + it.ID() + `"}}`
		if got, err := hitl.Detect(post(get, true), nil); err != nil || got == nil || got.ID() != it.ID() {
			t.Errorf("get: Detect = %v, %v", got, err)
		}
		// A body that cannot be read again, and a method that answers no task, leave the
		// answer unread.
		for _, resp := range []*http.Response{post(send, false), post(`{"jsonrpc":"2.0","id":3,"method":"tasks/pushNotificationConfig/list","params":{"id":"x"}}`, true)} {
			if got, err := hitl.Detect(resp, nil); got != nil || err != nil {
				t.Errorf("Detect = %v, %v; want the answer left unread", got, err)
			}
		}
		// Content-Length unknown, the body still replayable: read all the same.
		unknown := func() *http.Request {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ep.URL, strings.NewReader(send))
			req.Header.Set("Content-Type", "application/json")
			req.ContentLength = -1
			return req
		}
		resp, err := agent.Client().Do(unknown())
		if err != nil {
			t.Fatal(err)
		}
		resp.Request = unknown() // as a transport that streams the body hands it back
		if got, err := hitl.Detect(resp, nil); err != nil || got == nil || got.Kind != hitl.KindA2AInput {
			t.Errorf("unknown length: Detect = %v, %v", got, err)
		}
		_ = resp.Body.Close()
		// MCP has a JSON-RPC tasks/get too: its answer is not A2A, so no interrupt and no error,
		// and the body is left whole for the caller.
		mcpResult := `{"jsonrpc":"2.0","id":1,"result":{"taskId":"t1","status":"input_required","createdAt":"2026-11-24T10:00:00Z","ttl":60000}}`
		mcp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(mcpResult))}
		mcp.Request, _ = http.NewRequest(http.MethodPost, "https://mcp.example/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"t1"}}`))
		mcp.Request.Header.Set("Content-Type", "application/json")
		if got, err := hitl.Detect(mcp, nil); got != nil || err != nil {
			t.Errorf("MCP tasks/get: Detect = %v, %v", got, err)
		}
		if b, _ := io.ReadAll(mcp.Body); string(b) != mcpResult {
			t.Errorf("MCP answer not restored: %s", b)
		}
		plain := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"result":{}}`))}
		plain.Request, _ = http.NewRequest(http.MethodPost, "https://api.example/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"items.list"}`))
		plain.Request.Header.Set("Content-Type", "application/json")
		if got, err := hitl.Detect(plain, nil); got != nil || err != nil {
			t.Errorf("another service's JSON-RPC: Detect = %v, %v", got, err)
		}
	})
	t.Run("agent error is no interrupt, malformed body is an error", func(t *testing.T) {
		for _, tc := range []struct {
			body    string
			wantErr error
		}{
			{`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"task not found"}}`, nil},
			{`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}}`, nil},
			{`{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t1","status":{"state":"TASK_STATE_INPUT_REQUIRED"}}},"error":{"code":1,"message":"x"}}`, a2a.ErrResultAndError},
			{`<html>oops</html>`, a2a.ErrNotJSON},
		} {
			resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/a2a+json"}}, Body: io.NopCloser(strings.NewReader(tc.body))}
			it, err := hitl.Detect(resp, nil)
			if it != nil || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("%s: Detect = %v, %v", tc.body, it, err)
			}
		}
	})
}

// TestDoA2ARelay: an agent calls through a relay with Client.Do; the hold is forwarded and
// the administrator's decision comes back as the Result.
func TestDoA2ARelay(t *testing.T) {
	for _, reject := range []bool{false, true} {
		name := map[bool]string{false: "approved", true: "rejected"}[reject]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				relay := a2atest.NewMemoryRelay(t)
				var forwarded []hitl.Kind
				c, err := hitl.NewClient(transport.WithHTTPClient(relay.Client()),
					hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error { forwarded = append(forwarded, it.Kind); return nil }),
					hitl.WithA2A())
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					id := relay.NextHold(t.Context().Done())
					<-time.After(20 * time.Second)
					if reject {
						_ = relay.Reject(id, "blocked by policy")
					} else {
						_ = relay.Approve(id)
					}
				}()
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, relay.Endpoint().URL,
					strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"transfer 500 EUR"}]}}}`))
				resp, err := c.Do(t.Context(), req, nil)
				if reject != errors.Is(err, hitl.ErrNotApproved) || (!reject && err != nil) || resp == nil {
					t.Fatalf("Do = %v, %v; want ErrNotApproved only for the rejection", resp, err)
				}
				_ = resp.Body.Close()
				want := transport.StatusCompleted
				if reject {
					want = transport.StatusRejected
				}
				if resp.Interrupt == nil || resp.Interrupt.Kind != hitl.KindA2ARelay || resp.Result == nil || resp.Result.Status != want {
					t.Fatalf("interrupt %v, result %v", resp.Interrupt, resp.Result)
				}
				if len(forwarded) != 1 || forwarded[0] != hitl.KindA2ARelay {
					t.Errorf("forwarded %v", forwarded)
				}
				if reject && resp.Result.Reason != "blocked by policy" {
					t.Errorf("reason %q", resp.Result.Reason)
				}
			})
		})
	}
}

// TestWaitA2ARestart: an A2A interrupt saved as JSON by one process is carried to its end by
// another, which asks the question the first never answered; without an Asker the wait says
// so before sending anything.
func TestWaitA2ARestart(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t, a2atest.WithQuestions(2))
	resp := a2aCall(t, agent.Client(), agent.Endpoint(a2a.JSONRPC10), true)
	it, err := hitl.Detect(resp, nil)
	if err != nil || it == nil {
		t.Fatalf("Detect = %v, %v", it, err)
	}
	saved, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	var restored hitl.Interrupt
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(t.Context(), &restored, nil); !errors.Is(err, hitl.ErrNoAsker) {
		t.Fatalf("Wait without Asker = %v", err)
	}
	asked := 0
	r, err := c.Wait(t.Context(), &restored, &hitl.WaitOptions{Ask: func(_ context.Context, p *a2a.Pause) (a2a.Answer, error) {
		asked++
		return a2a.HectorDecision(true), nil
	}})
	if err != nil || r.Status != transport.StatusCompleted || asked != 2 {
		t.Fatalf("Wait = %v, %v after %d questions", r, err, asked)
	}
	if st, _ := agent.Task(it.ID()); len(st.Answers) != 2 {
		t.Errorf("agent read %v", st.Answers)
	}
}

// TestDetectPlain200AllocatesNothing: an ordinary 200 costs detection no allocation.
func TestDetectPlain200AllocatesNothing(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "https://api.example/items", nil)
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"items":[]}`)), Request: req}
	if n := testing.AllocsPerRun(100, func() { _, _ = hitl.Detect(resp, nil) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestDetectJSONPostAllocations: a 200 to a JSON POST costs detection a look at the first
// 4 KiB of the request body, read again into a pooled buffer, and nothing of the answer —
// the same whatever the size of the request, a JSON-RPC call with large params included.
func TestDetectJSONPostAllocations(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	tests := []struct {
		name, body string
		want       float64
	}{
		{"small", `{"model":"m","messages":[{"role":"user","content":"hello"}]}`, 2},
		{"1 MiB", `{"model":"m","messages":[{"role":"user","content":"` + big + `"}]}`, 2},
		{"JSON-RPC, 1 MiB of params", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"s":"` + big + `"}}}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "https://api.example/v1/call", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			body := &trackedBody{Reader: strings.NewReader(`{"ok":true}`)}
			resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body, Request: req}
			want := tt.want
			if raceEnabled {
				want++ // the pooled buffer, dropped now and then by the race detector's sync.Pool
			}
			if n := testing.AllocsPerRun(100, func() { _, _ = hitl.Detect(resp, nil) }); n > want {
				t.Errorf("%v allocations, want at most %v", n, want)
			}
			if body.read.Load() {
				t.Error("the answer's body was read")
			}
		})
	}
}

// TestWaitA2AOptions: hitl's Wait on an A2A interrupt takes the run's options: a limit of one
// question ends a task that asks two with ErrTooManyTurns.
func TestWaitA2AOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t, a2atest.WithQuestions(2))
		resp := a2aCall(t, agent.Client(), agent.Endpoint(a2a.JSONRPC10), true)
		it, err := hitl.Detect(resp, nil)
		if err != nil || it == nil {
			t.Fatalf("Detect = %v, %v", it, err)
		}
		c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()))
		if err != nil {
			t.Fatal(err)
		}
		ask := func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }
		_, err = c.Wait(t.Context(), it, &hitl.WaitOptions{Ask: ask, A2A: &a2a.RunOptions{MaxTurns: 1}})
		if !errors.Is(err, a2a.ErrTooManyTurns) {
			t.Fatalf("Wait with MaxTurns 1 = %v", err)
		}
	})
}

// TestWaitA2AMismatch: hitl's Wait on an A2A interrupt whose task an older agent no longer
// knows fails with the agent's ErrTaskNotFound before the human is asked, and sends nothing
// the agent could take for a new task; no new task is ever the Result.
func TestWaitA2AMismatch(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t, a2atest.WithProfile(a2atest.ProfileLegacyHector))
	resp := a2aCall(t, agent.Client(), agent.Endpoint(a2a.JSONRPC10), true)
	it, err := hitl.Detect(resp, nil)
	if err != nil || it == nil {
		t.Fatalf("Detect = %v, %v", it, err)
	}
	it.Task.TaskID = "task-forgotten"
	c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()))
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	r, err := c.Wait(t.Context(), it, &hitl.WaitOptions{Ask: func(context.Context, *a2a.Pause) (a2a.Answer, error) {
		asked++
		return a2a.HectorDecision(true), nil
	}})
	if r != nil || !errors.Is(err, a2a.ErrTaskNotFound) || asked != 0 {
		t.Fatalf("Wait = %v, %v after %d questions; want ErrTaskNotFound before any", r, err, asked)
	}
	for _, req := range agent.Requests() {
		if req.Operation == "SendMessage" && req.TaskID != it.Task.Task.ID {
			t.Errorf("a send reached the agent for %s", req.TaskID)
		}
	}
}

// TestDoA2AAskWithoutForwarder: a client without a forwarder, given WaitOptions.Ask, carries
// an A2A task that asks for input to its end through Do and through its Transport — the
// Asker puts the question —; without the Asker the call still ends with ErrNoForwarder, and
// a relay hold (which no Asker answers) still needs a forwarder.
func TestDoA2AAskWithoutForwarder(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	asked := 0
	ask := func(context.Context, *a2a.Pause) (a2a.Answer, error) { asked++; return a2a.HectorDecision(true), nil }
	c := newClient(t, agent.Client().Transport)
	ep := agent.Endpoint(a2a.JSONRPC10)
	call := func() *http.Request {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ep.URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		return req
	}
	resp, err := c.Do(t.Context(), call(), &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: ask}})
	if err != nil || resp.Result == nil || !resp.Result.Approved() || asked != 1 {
		t.Fatalf("Do with Ask = %v, %v after %d questions; want the approved task", resp, err, asked)
	}
	_ = resp.Body.Close()

	hc := &http.Client{Transport: c.Transport(agent.Client().Transport, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: ask}})}
	tr := a2aCall(t, hc, ep, true)
	if r := hitl.ResultOf(tr); tr.StatusCode != http.StatusOK || r == nil || !r.Approved() || asked != 2 {
		t.Fatalf("Transport with Ask: %d, %v after %d questions", tr.StatusCode, r, asked)
	}

	resp, err = c.Do(t.Context(), call(), nil)
	if !errors.Is(err, hitl.ErrNoForwarder) || resp == nil || resp.Interrupt == nil || asked != 2 {
		t.Fatalf("Do without Ask = %v, %v; want ErrNoForwarder with the interrupt, nobody asked", resp, err)
	}
	_ = resp.Body.Close()

	relay := a2atest.NewMemoryRelay(t)
	rc := newClient(t, relay.Client().Transport, hitl.WithA2A())
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, relay.Endpoint().URL,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"transfer 500 EUR"}]}}}`))
	resp, err = rc.Do(t.Context(), req, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: ask}})
	if !errors.Is(err, hitl.ErrNoForwarder) || resp == nil || resp.Interrupt == nil || resp.Interrupt.Kind != hitl.KindA2ARelay {
		t.Fatalf("relay Do without forwarder = %v, %v; want ErrNoForwarder", resp, err)
	}
	_ = resp.Body.Close()
}
