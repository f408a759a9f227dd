// Command durable shows a wait for a human's decision surviving the restart of the worker
// that runs it. A Temporal workflow (hitl/temporal) waits on a case of a HITL service — the
// fake one, hitltest, in this process. Worker 1 starts the wait and is stopped mid-wait;
// worker 2 carries it on from the last heartbeat; the human approves; the workflow returns
// the decision.
//
//	cd examples/durable && go run .                                 # a Temporal server at localhost:7233
//	cd examples/durable && go run . -temporal host:7233 -namespace ns
//
// Without a Temporal server at that address it says how to start one and exits with
// status 1. With no Temporal CLI at hand, the module hitl/temporal/servertest runs this same
// example against a Temporal server inside the test's process (a large first download):
//
//	cd hitl/temporal/servertest && HITLKIT_TEMPORAL_SERVER=1 go test -run TestDurableExample ./...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	ht "github.com/hitlkit/hitlkit/hitl/temporal"
	"github.com/hitlkit/hitlkit/transport"
)

// errNoServer: nothing answers at the Temporal address.
var errNoServer = errors.New("no Temporal server")

func main() {
	hostPort := flag.String("temporal", client.DefaultHostPort, "the Temporal server's host:port")
	namespace := flag.String("namespace", client.DefaultNamespace, "the Temporal namespace")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	err := run(ctx, os.Stdout, *hostPort, *namespace)
	if errors.Is(err, errNoServer) {
		fmt.Fprintf(os.Stderr, "no Temporal server at %s; start one with `temporal server start-dev` (https://docs.temporal.io/cli) and run again,\n"+
			"or run this example against an in-process Temporal server, with nothing to install (a large first download),\n"+
			"from the repository's top directory:\n"+
			"  cd hitl/temporal/servertest && HITLKIT_TEMPORAL_SERVER=1 go test -run TestDurableExample ./...\n", *hostPort)
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "durable:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, hostPort, namespace string) error {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tc, err := client.DialContext(dctx, client.Options{HostPort: hostPort, Namespace: namespace,
		Logger: log.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		return fmt.Errorf("%w: %w", errNoServer, err)
	}
	defer tc.Close()

	// The service a tool called: it answered 202, a human must approve.
	svc := hitltest.NewUnstartedServer(hitltest.WithRetryAfter(time.Second))
	svc.Start()
	defer svc.Close()
	hc, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"action":"deploy"}`))
	if err != nil {
		return err
	}
	resp, err := hc.Do(ctx, req, &hitl.CallOptions{DetectOnly: true})
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	it := resp.Interrupt
	if it == nil {
		return errors.New("the service answered without asking a human")
	}

	const queue = "hitlkit-durable"
	start := func(n int) (worker.Worker, error) {
		w := worker.New(tc, queue, worker.Options{})
		ht.Register(w, &ht.Activities{Client: hc})
		if err := w.Start(); err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "worker %d started\n", n)
		return w, nil
	}
	first, err := start(1)
	if err != nil {
		return err
	}
	wf, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "decision-" + it.ID(), TaskQueue: queue},
		ht.WorkflowName, ht.Input{Interrupt: *it})
	if err != nil {
		first.Stop()
		return err
	}
	fmt.Fprintf(out, "workflow %s waits for a human on case %s\n", wf.GetID(), it.ID())
	if err := polled(ctx, svc, 0); err != nil {
		first.Stop()
		return err
	}
	first.Stop()
	fmt.Fprintln(out, "worker 1 stopped mid-wait")

	seen := len(svc.Requests())
	second, err := start(2)
	if err != nil {
		return err
	}
	defer second.Stop()
	if err := polled(ctx, svc, seen); err != nil {
		return err
	}
	fmt.Fprintln(out, "worker 2 carries the wait on; the human approves")
	if err := svc.Respond(it.ID(), "approve", nil, &transport.Responder{Name: "Ana"}); err != nil {
		return err
	}
	var r transport.Result
	if err := wf.Get(ctx, &r); err != nil {
		return err
	}
	fmt.Fprintf(out, "result: %s %s by %s (decided by a human: %v)\n", r.Status, r.Action, r.RespondedBy.Name, r.Decision != "")
	return nil
}

// polled returns once the service has been polled after its first n requests: a watcher
// is waiting.
func polled(ctx context.Context, svc *hitltest.Server, n int) error {
	for {
		for _, q := range svc.Requests()[n:] {
			if strings.HasSuffix(q.Path, "/status") {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no watcher polled the service: %w", context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
}
