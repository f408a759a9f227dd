package servertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/server/temporaltest"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	ht "github.com/hitlkit/hitlkit/hitl/temporal"
	"github.com/hitlkit/hitlkit/transport"
)

// TestWorkerRestartOnARealServer: a workflow waits on a case; its worker is stopped
// mid-wait and another starts; a notification for another case is refused and one for this
// case, sent twice by two replicas, counts once; the human decides; the workflow returns
// the decision, and its history holds one completed watcher.
func TestWorkerRestartOnARealServer(t *testing.T) {
	if os.Getenv("HITLKIT_TEMPORAL_SERVER") != "1" {
		t.Skip("set HITLKIT_TEMPORAL_SERVER=1 to run against an in-process Temporal server")
	}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	tc := ts.GetDefaultClient()

	svc := hitltest.NewServer(t, hitltest.WithRetryAfter(time.Second))
	hc, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{}`))
	resp, err := hc.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
	if err != nil || resp.Interrupt == nil {
		t.Fatalf("Do = %v, %v", resp, err)
	}
	_ = resp.Body.Close()
	it := *resp.Interrupt

	const queue = "hitlkit-decisions"
	newWorker := func() worker.Worker {
		w := worker.New(tc, queue, worker.Options{})
		ht.Register(w, &ht.Activities{Client: hc})
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		return w
	}
	first := newWorker()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "decision-" + it.ID(), TaskQueue: queue},
		ht.WorkflowName, ht.Input{Interrupt: it})
	if err != nil {
		t.Fatal(err)
	}
	seenBy(t, svc, 0, "/status") // the watcher is polling
	first.Stop()                 // the worker dies mid-wait
	second := newWorker()
	defer second.Stop()

	if err := ht.Notify(ctx, tc, run.GetID(), "review_another", "d0"); err == nil || !strings.Contains(err.Error(), ht.ErrWrongCase.Error()) {
		t.Errorf("Notify for another case = %v, want the validator's refusal", err)
	}
	n := len(svc.Requests())
	if err := svc.Respond(it.ID(), "approve", nil, nil); err != nil {
		t.Fatal(err)
	}
	for range 2 { // two replicas received the same callback
		if err := ht.Notify(ctx, tc, run.GetID(), it.ID(), "delivery-1"); err != nil {
			t.Fatal(err)
		}
	}
	seenBy(t, svc, n, "/status")

	var r transport.Result
	if err := run.Get(ctx, &r); err != nil || r.Action != "approve" || r.Decision == "" {
		t.Fatalf("workflow = %+v, %v", r, err)
	}
	completed := 0
	history := tc.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for history.HasNext() {
		ev, err := history.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
			completed++
		}
	}
	if completed != 1 {
		t.Errorf("%d completed watcher activities, want 1", completed)
	}
}

// TestDurableExample runs examples/durable against an in-process server: worker 1 stops
// mid-wait, worker 2 carries the wait on, and the human's approval is the result.
func TestDurableExample(t *testing.T) {
	if os.Getenv("HITLKIT_TEMPORAL_SERVER") != "1" {
		t.Skip("set HITLKIT_TEMPORAL_SERVER=1 to run against an in-process Temporal server")
	}
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".", "-temporal", ts.GetFrontendHostPort(), "-namespace", ts.GetDefaultNamespace())
	cmd.Dir = filepath.Join("..", "..", "..", "examples", "durable")
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"worker 1 stopped mid-wait", "worker 2 carries the wait on", "result: completed approve by Ana (decided by a human: true)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// seenBy returns once the fake has received a request to a path ending in suffix after its
// first n requests.
func seenBy(t *testing.T, svc *hitltest.Server, n int, suffix string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); <-time.After(20 * time.Millisecond) {
		for _, q := range svc.Requests()[n:] {
			if strings.HasSuffix(q.Path, suffix) {
				return
			}
		}
	}
	t.Fatal(errors.New("no such request within a minute"))
}

// TestMain checks that no goroutine of hitlkit's is left once the tests end. The in-process
// Temporal server leaves its own (database, listeners, gRPC) behind when it stops, so the
// check looks for hitlkit's frames rather than for every goroutine, as goleak would.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if left := hitlkitGoroutines(5 * time.Second); left != "" {
			fmt.Fprintf(os.Stderr, "goroutines of hitlkit left behind:\n%s\n", left)
			code = 1
		}
	}
	os.Exit(code)
}

// hitlkitGoroutines returns the stacks of the goroutines still running hitlkit's code after
// waiting up to d for them to end, or "".
func hitlkitGoroutines(d time.Duration) string {
	for deadline := time.Now().Add(d); ; <-time.After(50 * time.Millisecond) {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "github.com/hitlkit/hitlkit/") && !strings.Contains(g, "servertest.hitlkitGoroutines") &&
				!strings.Contains(g, "servertest.TestMain") {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
	}
}
