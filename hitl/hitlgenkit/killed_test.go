package hitlgenkit_test

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
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

var killedRequests = []request{{"delete_file", "call-a", `{"path":"/a"}`}, {"delete_file", "call-b", `{"path":"/b"}`}}

// TestKilledMidWait is the restart with a real second process. The first host is this test
// binary run again: its Genkit agent's model asks to delete two files, Generate interrupts,
// the host keeps the run's messages in files (Keep), and each question becomes a case on a
// HITL service, kept with the question's Labels in a file store; while it waits for the
// person it is killed (SIGKILL: no Close, no cleanup). The person approves one deletion and
// rejects the other. This process — a new Genkit, new tools, a new client over the same
// history directory and store file — resumes every kept case: the approved deletion runs
// once, here; the rejected one never; nothing ran in the killed process; the model is told
// of both; no case is opened twice.
func TestKilledMidWait(t *testing.T) {
	if dir := os.Getenv("HITLGENKIT_FIRST_HOST"); dir != "" {
		firstHost(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("runs a second process")
	}
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	dir := t.TempDir()
	histories, storePath, logPath := files{filepath.Join(dir, "histories")}, filepath.Join(dir, "interrupts"), filepath.Join(dir, "ran")
	ran := func() []string {
		b, err := os.ReadFile(logPath)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return strings.Fields(string(b))
	}

	// The first host reads the service's address from a file beside the others it shares.
	if err := os.WriteFile(filepath.Join(dir, "service"), []byte(svc.URL), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKilledMidWait$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HITLGENKIT_FIRST_HOST="+dir)
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
	if got := ran(); len(got) != 0 {
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
	byRef := map[string]string{}
	for _, it := range open {
		byRef[it.Labels["genkit.ref"]] = it.ID()
	}
	if err := svc.Respond(byRef["call-a"], "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.Respond(byRef["call-b"], "reject", map[string]string{"feedback": "keep b"}, nil); err != nil {
		t.Fatal(err)
	}

	// This process is the new host.
	second := newAgent(t, killedRequests...)
	second.log = logPath
	var final *ai.ModelResponse
	handle := hitlgenkit.ResumeHandler(histories, second.generate, func(resp *ai.ModelResponse, err error) {
		if err != nil {
			t.Errorf("resumed run: %v", err)
		}
		final = resp
	}, second.tools()...)
	if err := newClient(t, svc, store).Resume(ctx, handle, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ran()); got != "[/a]" {
		t.Errorf("ran %s in all; want /a once, in the new host", got)
	}
	if final == nil || !strings.Contains(final.Text(), `call-a="deleted /a"`) || !strings.Contains(final.Text(), `call-b="not run: the person rejected it: keep b"`) {
		t.Errorf("the model was told %v", final)
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
// keeps the run's messages, asks both questions on the service whose address dir holds, says
// "kept 2 cases" once its store holds both, and waits for the person until it is killed.
func firstHost(t *testing.T, dir string) {
	ctx := t.Context()
	svcURL, err := os.ReadFile(filepath.Join(dir, "service"))
	if err != nil {
		t.Fatal(err)
	}
	histories := files{filepath.Join(dir, "histories")}
	if err := os.MkdirAll(histories.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	first := newAgent(t, killedRequests...)
	first.log = filepath.Join(dir, "ran")
	resp, qs := first.start(t)
	if err := hitlgenkit.Keep(ctx, histories, "run-7", resp); err != nil {
		t.Fatal(err)
	}
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
	_, err = hitlgenkit.Answer(ctx, qs, askService(client, string(svcURL), "run-7"), first.tools()...)
	t.Errorf("Answer returned in the host that should have been killed waiting: %v", err)
}
