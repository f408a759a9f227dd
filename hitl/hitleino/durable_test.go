package hitleino_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitleino"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// askService is the Asker of a host whose people decide on a HITL service: each question
// becomes an approval case, opened with the question's Labels so that the case is kept in
// the client's store with the run it belongs to.
func askService(client *hitl.Client, svcURL, checkpointID string) hitleino.Asker {
	return func(ctx context.Context, q hitleino.Question) (*transport.Result, error) {
		body, _ := json.Marshal(map[string]string{"tool": q.Tool, "arguments": q.Arguments})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, svcURL+"/actions/approval", strings.NewReader(string(body)))
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(ctx, req, &hitl.CallOptions{Labels: hitleino.Labels(checkpointID, q), EveryDecisionOK: true})
		if err != nil {
			return nil, err
		}
		_ = resp.Body.Close()
		return resp.Result, nil
	}
}

func newClient(t *testing.T, svc *hitltest.Server, store hitl.Store) *hitl.Client {
	t.Helper()
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithStore(store),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRestartMidWait: a host runs an Eino agent whose model asks to delete two files in one
// message; each question becomes a case on a HITL service, kept in a file store with its
// run's checkpoint id and tool call. The host is stopped while the person has not decided.
// The person approves one deletion and rejects the other. A new host — new Runner, new
// tool, new client, the same checkpoint directory and store file — resumes every kept case:
// the approved deletion runs once, in the new host, the rejected one never; the model is told
// of both; no case is opened twice; and the same Result delivered again runs nothing.
func TestRestartMidWait(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	checkpoints := files{t.TempDir()}
	storePath := filepath.Join(t.TempDir(), "interrupts")
	calls := []schema.ToolCall{call("call-a", "delete_file", `{"path":"/a"}`), call("call-b", "delete_file", `{"path":"/b"}`)}

	// The first host: its run interrupts, it opens both cases and is stopped mid-wait.
	firstTool := &deleteFile{}
	first := newRunner(t, checkpoints, calls, hitleino.Approval(firstTool, nil))
	ev, _ := drain(t, first.Query(ctx, "clean up", adk.WithCheckPointID("run-7")))
	qs := hitleino.Questions(ev)
	if len(qs) != 2 {
		t.Fatalf("questions %+v", qs)
	}
	store1, err := filestore.Open(storePath)
	if err != nil {
		t.Fatal(err)
	}
	stopCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := hitleino.Answer(stopCtx, qs, askService(newClient(t, svc, store1), svc.URL, "run-7"))
		done <- err
	}()
	byCall := map[string]string{} // tool call id → case id
	deadline := time.Now().Add(10 * time.Second)
	for len(byCall) < 2 && time.Now().Before(deadline) {
		kept, _ := store1.List(ctx) // a case is kept once Do has read the 202
		for _, it := range kept {
			byCall[it.Labels["eino.call_id"]] = it.ID()
		}
		if len(byCall) < 2 {
			<-time.After(10 * time.Millisecond)
		}
	}
	stop()
	if err := <-done; err == nil {
		t.Fatal("Answer returned without its stop")
	}
	if err := store1.Close(); err != nil {
		t.Fatal(err)
	}
	if len(firstTool.ran()) != 0 {
		t.Fatalf("the first host ran %q", firstTool.ran())
	}

	// The person decides while no host runs.
	if err := svc.Respond(byCall["call-a"], "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.Respond(byCall["call-b"], "reject", map[string]string{"feedback": "keep b"}, nil); err != nil {
		t.Fatal(err)
	}

	// The second host.
	secondTool := &deleteFile{}
	second := newRunner(t, checkpoints, calls, hitleino.Approval(secondTool, nil))
	store2, err := filestore.Open(storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer store2.Close()
	var told []string
	handle := hitleino.ResumeHandler(second, checkpoints, func(ev *adk.AgentEvent) {
		if ev.Err != nil {
			t.Errorf("resumed run: %v", ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			told = append(told, ev.Output.MessageOutput.Message.Content)
		}
	})
	var (
		mu   sync.Mutex
		kept []*hitl.Interrupt
	)
	record := func(ctx context.Context, it *hitl.Interrupt, r *transport.Result) error {
		mu.Lock()
		kept = append(kept, it)
		mu.Unlock()
		return handle(ctx, it, r) // called at once for both cases: the handler takes them in turn
	}
	if err := newClient(t, svc, store2).Resume(ctx, record, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(secondTool.ran()); got != `[{"path":"/a"}]` || len(firstTool.ran()) != 0 {
		t.Errorf("ran %s in the new host, %q in the first; want /a once, in the new host", got, firstTool.ran())
	}
	final := told[len(told)-1]
	if !strings.Contains(final, `call-a=deleted {"path":"/a"}`) || !strings.Contains(final, "call-b=not run: the person rejected it: keep b") {
		t.Errorf("the model was told %q", final)
	}
	if left, _ := store2.List(ctx); len(left) != 0 || len(kept) != 2 {
		t.Errorf("%d resumed, %d left in the store; want 2 and 0", len(kept), len(left))
	}
	opened := 0
	for _, q := range svc.Requests() {
		if q.Method == http.MethodPost && strings.HasPrefix(q.Path, "/actions/") {
			opened++
		}
	}
	if opened != 2 {
		t.Errorf("%d cases opened, want 2", opened)
	}

	// Each case again, approved (a crash between the handler and the store's delete): the run
	// finished, its checkpoint is gone, nothing runs.
	for _, it := range kept {
		if err := handle(ctx, it, &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(secondTool.ran()); n != 1 {
		t.Errorf("delivered again: the tool ran %d times in all, want 1", n)
	}
	if err := handle(ctx, &hitl.Interrupt{}, nil); err != hitleino.ErrNotEino {
		t.Errorf("an interrupt without labels: %v, want ErrNotEino", err)
	}
}

// TestThroughAService: each question becomes a case on a HITL service and the person's
// answer there resumes the run: approve runs the tool once; reject, an expiry and a
// cancellation of the case run nothing and the model is told which.
func TestThroughAService(t *testing.T) {
	for _, tt := range []struct {
		name   string
		decide func(svc *hitltest.Server, id string) error
		ran    int
		told   string
	}{
		{"approve", func(svc *hitltest.Server, id string) error { return svc.Respond(id, "approve", nil, nil) }, 1, "deleted"},
		{"reject", func(svc *hitltest.Server, id string) error { return svc.Respond(id, "reject", nil, nil) }, 0, "not run: the person rejected it"},
		{"expire", func(svc *hitltest.Server, id string) error { return svc.Expire(id) }, 0, "not run: the request expired"},
		{"cancel", func(svc *hitltest.Server, id string) error { return svc.Cancel(id, "withdrawn") }, 0, "not run: the request was cancelled: withdrawn"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			svc := hitltest.NewServer(t)
			del := &deleteFile{}
			r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "delete_file", `{"path":"/a"}`)}, hitleino.Approval(del, nil))
			ev, _ := drain(t, r.Query(t.Context(), "go", adk.WithCheckPointID("cp")))
			go func() {
				if id := svc.NextCase(t.Context().Done()); id != "" {
					_ = tt.decide(svc, id)
				}
			}()
			params, err := hitleino.Answer(t.Context(), hitleino.Questions(ev), askService(newClient(t, svc, &hitl.MemoryStore{}), svc.URL, "cp"))
			if err != nil {
				t.Fatal(err)
			}
			iter, err := r.ResumeWithParams(t.Context(), "cp", params)
			if err != nil {
				t.Fatal(err)
			}
			if _, last := drain(t, iter); len(del.ran()) != tt.ran || !strings.Contains(last, tt.told) {
				t.Errorf("ran %q, told %q; want %d runs, %q", del.ran(), last, tt.ran, tt.told)
			}
		})
	}
}

// TestDoWithItsDefaults: an Asker that calls Do with its defaults gets a rejection as an
// error matching hitl.ErrNotApproved; Answer then returns no parameters, and the tool, never
// resumed, does not run.
func TestDoWithItsDefaults(t *testing.T) {
	svc := hitltest.NewServer(t)
	del := &deleteFile{}
	r := newRunner(t, files{t.TempDir()}, []schema.ToolCall{call("call-1", "delete_file", `{"path":"/a"}`)}, hitleino.Approval(del, nil))
	ev, _ := drain(t, r.Query(t.Context(), "go", adk.WithCheckPointID("cp")))
	go func() {
		if id := svc.NextCase(t.Context().Done()); id != "" {
			_ = svc.Respond(id, "reject", nil, nil)
		}
	}()
	client := newClient(t, svc, &hitl.MemoryStore{})
	params, err := hitleino.Answer(t.Context(), hitleino.Questions(ev), func(ctx context.Context, q hitleino.Question) (*transport.Result, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", nil)
		resp, err := client.Do(ctx, req, nil)
		if err != nil {
			return nil, err
		}
		_ = resp.Body.Close()
		return resp.Result, nil
	})
	if params != nil || !errors.Is(err, hitl.ErrNotApproved) || len(del.ran()) != 0 {
		t.Errorf("Answer = %v, %v; ran %q", params, err, del.ran())
	}
}
