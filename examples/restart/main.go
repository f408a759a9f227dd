// Command restart shows a wait for a human's decision surviving `kill -9` of the agent that
// runs it, with a store file (hitl/filestore) and Client.Resume: no workflow engine.
//
//	go run ./examples/restart
//
// A fake HITL service on 127.0.0.1 plays the API. The program starts the agent as a process
// of its own (it runs itself again): the agent calls the service, the call needs a human,
// the question is saved in the store and forwarded, and the agent waits. The program then
// kills the agent with SIGKILL, mid-wait. While no agent runs, the reviewer, Ana, approves.
// A second agent process opens the same store, calls Client.Resume, gets Ana's decision —
// the one she made, not a new question — and the store is empty again.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/filestore"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// The agent processes learn their part from the environment, so that the program (or its
// test binary) can run itself again as an agent.
const (
	envRole    = "HITLKIT_RESTART_ROLE"    // "ask" or "resume"
	envStore   = "HITLKIT_RESTART_STORE"   // the store file
	envService = "HITLKIT_RESTART_SERVICE" // the service's base URL
)

// saved is the line the first agent prints once the question is in the store.
// saved and asked are the lines an agent prints once its question is saved, then put to the
// human (in that order: Do stores an interrupt before it forwards it).
const (
	saved = "the question is saved in the store"
	asked = "→ to the human:"
)

func main() {
	var err error
	if role := os.Getenv(envRole); role != "" {
		err = agent(context.Background(), os.Stdout, role)
	} else {
		err = run(context.Background(), os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "restart:", err)
		os.Exit(1)
	}
}

// run plays the service, the reviewer and the operator who kills the agent.
func run(ctx context.Context, out io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound on the whole program
	defer cancel()
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	dir, err := os.MkdirTemp("", "hitl-restart-") // mode 0700: a private directory
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	env := []string{envStore + "=" + filepath.Join(dir, "hitl.db"), envService + "=" + svc.URL}

	// The first agent asks, and is killed once its question is saved and put to the human.
	first, lines, err := start(ctx, append(env, envRole+"=ask"))
	if err != nil {
		return err
	}
	for lines.Scan() {
		fmt.Fprintln(out, "agent 1:", lines.Text())
		if strings.HasPrefix(lines.Text(), asked) {
			break
		}
	}
	if err := first.Process.Kill(); err != nil { // SIGKILL: no deferred call, no Close runs
		return err
	}
	if err := first.Wait(); err == nil || first.ProcessState.Success() {
		return fmt.Errorf("the first agent was not killed: %v", err)
	}
	fmt.Fprintln(out, "killed agent 1 with SIGKILL, mid-wait")

	// While no agent runs, the reviewer decides.
	id := svc.NextCase(ctx.Done()) // the case the first agent opened
	if id == "" {
		return errors.New("the first agent opened no case")
	}
	if err := svc.Respond(id, "approve", map[string]any{"note": "archived first"}, &transport.Responder{Name: "Ana"}); err != nil {
		return err
	}
	fmt.Fprintln(out, "Ana approves while no agent runs")

	// A new agent process picks the wait up from the store.
	second, lines, err := start(ctx, append(env, envRole+"=resume"))
	if err != nil {
		return err
	}
	for lines.Scan() {
		fmt.Fprintln(out, "agent 2:", lines.Text())
	}
	return second.Wait()
}

// start runs this program again as an agent, its standard output read line by line.
func start(ctx context.Context, env []string) (*exec.Cmd, *bufio.Scanner, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, bufio.NewScanner(stdout), nil
}

// agent is one agent process: "ask" calls the service and waits for the decision; "resume"
// waits on what the store holds.
func agent(ctx context.Context, out io.Writer, role string) error {
	store, err := filestore.Open(os.Getenv(envStore))
	if err != nil {
		return err
	}
	defer store.Close()
	forward := func(_ context.Context, it *hitl.Interrupt) error {
		_, err := fmt.Fprintln(out, asked, it.Prompt()+"; waiting") // in production: a chat message with the review link
		return err
	}
	client, err := hitl.NewClient(hitl.WithStore(announce{store, out}), hitl.WithForwarder(forward),
		transport.WithAllowPrivateAddresses()) // the fake service is on 127.0.0.1
	if err != nil {
		return err
	}
	switch role {
	case "ask":
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, os.Getenv(envService)+"/actions/approval",
			strings.NewReader(`{"prompt":"Delete the reports of October?"}`))
		if err != nil {
			return err
		}
		resp, err := client.Do(ctx, req, nil) // killed while it waits
		if resp != nil {
			_ = resp.Body.Close()
		}
		return fmt.Errorf("the wait ended before the agent was killed: %v", err)
	case "resume":
		err := client.Resume(ctx, func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
			if !r.Approved() {
				_, err := fmt.Fprintf(out, "%q: no go-ahead (%s); nothing deleted\n", it.Prompt(), r.Status)
				return err
			}
			_, err := fmt.Fprintf(out, "%q: approved by %s (%s); deleting\n", it.Prompt(), r.RespondedBy.Name, r.Data)
			return err // nil: the interrupt leaves the store
		}, nil)
		if err != nil {
			return err
		}
		left, err := store.List(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%d questions left in the store\n", len(left))
		return err
	}
	return fmt.Errorf("unknown role %q", role)
}

// announce is the store, saying when a question has been saved: from then on the wait
// survives the process.
type announce struct {
	hitl.Store
	out io.Writer
}

func (a announce) Put(ctx context.Context, it *hitl.Interrupt) error {
	if err := a.Store.Put(ctx, it); err != nil {
		return err
	}
	_, err := fmt.Fprintln(a.out, saved)
	return err
}
