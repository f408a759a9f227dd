package hitlgenkit_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// files is a durable HistoryStore: one file per run in dir.
type files struct{ dir string }

func (f files) path(id string) string { return filepath.Join(f.dir, hex.EncodeToString([]byte(id))) }

func (f files) Get(_ context.Context, id string) ([]byte, bool, error) {
	b, err := os.ReadFile(f.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func (f files) Set(_ context.Context, id string, b []byte) error {
	return os.WriteFile(f.path(id), b, 0o600)
}

func (f files) Delete(_ context.Context, id string) error {
	err := os.Remove(f.path(id))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// askService is the Asker of a host whose people decide on a HITL service: each question
// becomes an approval case, opened with the question's Labels so that the case is kept in
// the client's store with the run it belongs to.
func askService(client *hitl.Client, svcURL, runID string) hitlgenkit.Asker {
	return func(ctx context.Context, q hitlgenkit.Question) (*transport.Result, error) {
		body, _ := json.Marshal(map[string]any{"tool": q.Tool, "arguments": q.Arguments})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, svcURL+"/actions/approval", strings.NewReader(string(body)))
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(ctx, req, &hitl.CallOptions{Labels: hitlgenkit.Labels(runID, q), EveryDecisionOK: true})
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

// TestRestartMidWait: a host runs a Genkit agent whose model asks to delete two files in one
// message; it keeps the run's messages, and each question becomes a case on a HITL service,
// kept in a file store with its run id, tool and ref. The host is stopped while the person
// has not decided. The person approves one deletion and rejects the other. A new host — new
// Genkit, new tools, new client, the same history directory and store file — resumes every
// kept case: the approved deletion runs once, in the new host, the rejected one never; the
// model is told of both; no case is opened twice; and each Result delivered again runs
// nothing.
func TestRestartMidWait(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	histories := files{t.TempDir()}
	storePath := filepath.Join(t.TempDir(), "interrupts")
	reqs := []request{{"delete_file", "call-a", `{"path":"/a"}`}, {"delete_file", "call-b", `{"path":"/b"}`}}

	// The first host: its run interrupts, it keeps the messages, opens both cases and is
	// stopped mid-wait.
	first := newAgent(t, reqs...)
	resp, qs := first.start(t)
	if len(qs) != 2 {
		t.Fatalf("questions %+v", qs)
	}
	if err := hitlgenkit.Keep(ctx, histories, "run-7", resp); err != nil {
		t.Fatal(err)
	}
	store1, err := filestore.Open(storePath)
	if err != nil {
		t.Fatal(err)
	}
	stopCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := hitlgenkit.Answer(stopCtx, qs, askService(newClient(t, svc, store1), svc.URL, "run-7"), first.tools()...)
		done <- err
	}()
	byRef := map[string]string{} // ref → case id
	deadline := time.Now().Add(10 * time.Second)
	for len(byRef) < 2 && time.Now().Before(deadline) {
		kept, _ := store1.List(ctx) // a case is kept once Do has read the 202
		for _, it := range kept {
			byRef[it.Labels["genkit.ref"]] = it.ID()
		}
		if len(byRef) < 2 {
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

	// The person decides while no host runs.
	if err := svc.Respond(byRef["call-a"], "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.Respond(byRef["call-b"], "reject", map[string]string{"feedback": "keep b"}, nil); err != nil {
		t.Fatal(err)
	}

	// The second host.
	second := newAgent(t, reqs...)
	store2, err := filestore.Open(storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer store2.Close()
	var (
		mu    sync.Mutex
		final *ai.ModelResponse
		kept  []*hitl.Interrupt
	)
	handle := hitlgenkit.ResumeHandler(histories, second.generate, func(resp *ai.ModelResponse, err error) {
		if err != nil {
			t.Errorf("resumed run: %v", err)
		}
		final = resp
	}, second.tools()...)
	record := func(ctx context.Context, it *hitl.Interrupt, r *transport.Result) error {
		mu.Lock()
		kept = append(kept, it)
		mu.Unlock()
		return handle(ctx, it, r) // called at once for both cases: the handler takes them in turn
	}
	if err := newClient(t, svc, store2).Resume(ctx, record, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(second.ran()); got != "[/a]" || len(first.ran()) != 0 {
		t.Errorf("ran %s in the new host, %q in the first; want /a once, in the new host", got, first.ran())
	}
	if final == nil || !strings.Contains(final.Text(), `call-a="deleted /a"`) || !strings.Contains(final.Text(), `call-b="not run: the person rejected it: keep b"`) {
		t.Errorf("the model was told %v", final)
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

	// Each case again, approved (a crash between the handler and the store's delete): the
	// run ended, its messages are gone, nothing runs.
	for _, it := range kept {
		if err := handle(ctx, it, approve); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(second.ran()); n != 1 {
		t.Errorf("delivered again: the tool ran %d times in all, want 1", n)
	}
	if err := handle(ctx, &hitl.Interrupt{}, nil); !errors.Is(err, hitlgenkit.ErrNotGenkit) {
		t.Errorf("an interrupt without labels: %v, want ErrNotGenkit", err)
	}
}

// FuzzApprove: whatever resumed metadata a restart carries (it comes back from a kept
// history), Approve goes ahead only for an approval, or for an edit whose arguments came as
// the tool's new input, and never panics.
func FuzzApprove(f *testing.F) {
	f.Add(`{"status":"completed","decision":"approve","action":"approve"}`, false)
	f.Add(`{"status":"completed","action":"edit","decision":"answer","data":{"edits":{"path":"/"}}}`, true)
	f.Add(`{"status":"expired","default_applied":true,"default_action":"approve"}`, false)
	f.Add(`{"status":"completed","action":"edit","data":{"edits":{"path":"/"}}}`, false)
	f.Fuzz(func(t *testing.T, result string, replaced bool) {
		tc := &ai.ToolContext{Context: context.Background(), Resumed: map[string]any{"hitlkit_result": result}}
		if replaced {
			tc.OriginalInput = map[string]any{}
		}
		ok, why, err := hitlgenkit.Approve(tc, "Go?")
		if err != nil {
			t.Fatal(err)
		}
		var r transport.Result
		jsonErr := json.Unmarshal([]byte(result), &r)
		edit := r.Status == transport.StatusCompleted && !r.DefaultApplied && r.Action == "edit" && replaced
		if ok && (jsonErr != nil || !(r.Approved() || edit)) {
			t.Fatalf("went ahead on %q (input replaced %v)", result, replaced)
		}
		if !ok && !strings.HasPrefix(why, "not run: ") {
			t.Fatalf("why %q", why)
		}
	})
}

// TestThroughAService: each question becomes a case on a HITL service and the person's
// answer there resumes Generate: approve runs the tool once; reject, an expiry and a
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
			a := newAgent(t, request{"delete_file", "call-1", `{"path":"/a"}`})
			resp, qs := a.start(t)
			go func() {
				if id := svc.NextCase(t.Context().Done()); id != "" {
					_ = tt.decide(svc, id)
				}
			}()
			parts, err := hitlgenkit.Answer(t.Context(), qs, askService(newClient(t, svc, &hitl.MemoryStore{}), svc.URL, "run"), a.tools()...)
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.generate(t.Context(), resp.History(), parts)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.ran()) != tt.ran || !strings.Contains(out.Text(), tt.told) {
				t.Errorf("ran %q, told %q; want %d runs, %q", a.ran(), out.Text(), tt.ran, tt.told)
			}
		})
	}
}

// TestDoWithItsDefaults: an Asker that calls Do with its defaults gets a rejection as an
// error matching hitl.ErrNotApproved; Answer then returns no restarts, and the tool, never
// restarted, does not run.
func TestDoWithItsDefaults(t *testing.T) {
	svc := hitltest.NewServer(t)
	a := newAgent(t, request{"delete_file", "call-1", `{"path":"/a"}`})
	_, qs := a.start(t)
	go func() {
		if id := svc.NextCase(t.Context().Done()); id != "" {
			_ = svc.Respond(id, "reject", nil, nil)
		}
	}()
	client := newClient(t, svc, &hitl.MemoryStore{})
	parts, err := hitlgenkit.Answer(t.Context(), qs, func(ctx context.Context, q hitlgenkit.Question) (*transport.Result, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", nil)
		resp, err := client.Do(ctx, req, nil)
		if err != nil {
			return nil, err
		}
		_ = resp.Body.Close()
		return resp.Result, nil
	}, a.tools()...)
	if parts != nil || !errors.Is(err, hitl.ErrNotApproved) || len(a.ran()) != 0 {
		t.Errorf("Answer = %v, %v; ran %q", parts, err, a.ran())
	}
}
