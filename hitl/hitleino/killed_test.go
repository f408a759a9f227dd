package hitleino_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitleino"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// loggedDelete is a delete_file tool that appends each run's arguments, one a line, to a
// file that every process of a test shares: what ran, wherever it ran.
type loggedDelete struct{ path string }

func (*loggedDelete) Info(ctx context.Context) (*schema.ToolInfo, error) {
	return (*deleteFile)(nil).Info(ctx)
}

func (d *loggedDelete) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	f, err := os.OpenFile(d.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.WriteString(args + "\n"); err != nil {
		return "", err
	}
	return "deleted " + args, nil
}

func (d *loggedDelete) ran(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(d.path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

var killedCalls = []schema.ToolCall{call("call-a", "delete_file", `{"path":"/a"}`), call("call-b", "delete_file", `{"path":"/b"}`)}

// TestKilledMidWait is the restart with a real second process. The first host is this test
// binary run again: its Eino agent's model asks to delete two files, the run interrupts and
// keeps its checkpoint in files, and each question becomes a case on a HITL service, kept with
// the question's Labels in a file store; while it waits for the person it is killed
// (SIGKILL: no Close, no cleanup). The person approves one deletion and rejects the other.
// This process — a new Runner, tool and client over the same checkpoint directory and store
// file — resumes every kept case: the approved deletion runs once, here; the rejected one
// never; nothing ran in the killed process; the model is told of both; no case is opened
// twice.
func TestKilledMidWait(t *testing.T) {
	if dir := os.Getenv("HITLEINO_FIRST_HOST"); dir != "" {
		firstHost(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("runs a second process")
	}
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	dir := t.TempDir()
	checkpoints, storePath := files{filepath.Join(dir, "checkpoints")}, filepath.Join(dir, "interrupts")
	del := &loggedDelete{path: filepath.Join(dir, "ran")}

	// The first host reads the service's address from a file beside the others it shares.
	if err := os.WriteFile(filepath.Join(dir, "service"), []byte(svc.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledMidWait$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HITLEINO_FIRST_HOST="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kept := false
	for sc := bufio.NewScanner(out); !kept && sc.Scan(); {
		kept = sc.Text() == "kept 2 cases"
	}
	if !kept {
		_ = cmd.Wait()
		t.Fatalf("the first host ended before it kept its cases:\n%s", stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := del.ran(t); len(got) != 0 {
		t.Fatalf("the first host ran %q", got)
	}

	// The person decides while no host runs.
	store, err := filestore.Open(storePath)
	if err != nil {
		t.Fatalf("the killed host's store: %v", err)
	}
	defer store.Close()
	open, err := store.List(ctx)
	if err != nil || len(open) != 2 {
		t.Fatalf("the killed host's store holds %d interrupts, %v; want 2", len(open), err)
	}
	byCall := map[string]string{}
	for _, it := range open {
		byCall[it.Labels["eino.call_id"]] = it.ID()
	}
	if err := svc.Respond(byCall["call-a"], "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.Respond(byCall["call-b"], "reject", map[string]string{"feedback": "keep b"}, nil); err != nil {
		t.Fatal(err)
	}

	// This process is the new host.
	runner := newRunner(t, checkpoints, killedCalls, hitleino.Approval(del, nil))
	var (
		mu   sync.Mutex
		told []string
	)
	handle := hitleino.ResumeHandler(runner, checkpoints, func(ev *adk.AgentEvent) {
		if ev.Err != nil {
			t.Errorf("resumed run: %v", ev.Err)
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil && ev.Output.MessageOutput.Message != nil {
			mu.Lock()
			told = append(told, ev.Output.MessageOutput.Message.Content)
			mu.Unlock()
		}
	})
	if err := newClient(t, svc, store).Resume(ctx, handle, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(del.ran(t)); got != `[{"path":"/a"}]` {
		t.Errorf("ran %s in all; want /a once, in the new host", got)
	}
	if len(told) == 0 || !strings.Contains(told[len(told)-1], `call-a=deleted {"path":"/a"}`) ||
		!strings.Contains(told[len(told)-1], "call-b=not run: the person rejected it: keep b") {
		t.Errorf("the model was told %q", told)
	}
	if left, _ := store.List(ctx); len(left) != 0 {
		t.Errorf("%d interrupts left in the store, want 0", len(left))
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
}

// firstHost is the process TestKilledMidWait kills: it runs the agent until it interrupts,
// asks both questions on the service whose address dir holds, says "kept 2 cases" once its
// store holds both, and waits for the person until it is killed.
func firstHost(t *testing.T, dir string) {
	ctx := t.Context()
	svcURL, err := os.ReadFile(filepath.Join(dir, "service"))
	if err != nil {
		t.Fatal(err)
	}
	runner := newRunner(t, files{filepath.Join(dir, "checkpoints")}, killedCalls, hitleino.Approval(&loggedDelete{path: filepath.Join(dir, "ran")}, nil))
	if err := os.MkdirAll(filepath.Join(dir, "checkpoints"), 0o700); err != nil {
		t.Fatal(err)
	}
	ev, _ := drain(t, runner.Query(ctx, "clean up", adk.WithCheckPointID("run-7")))
	qs := hitleino.Questions(ev)
	store, err := filestore.Open(filepath.Join(dir, "interrupts"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := hitl.NewClient(transport.WithAllowPrivateAddresses(), hitl.WithStore(store),
		hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			if kept, _ := store.List(ctx); len(kept) == len(qs) {
				fmt.Printf("kept %d cases\n", len(kept))
				return
			}
			<-time.After(10 * time.Millisecond)
		}
	}()
	_, err = hitleino.Answer(ctx, qs, askService(client, string(svcURL), "run-7"))
	t.Errorf("Answer returned in the host that should have been killed waiting: %v", err)
}
