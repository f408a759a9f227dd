// Command toolapproval runs an agent that calls another agent over A2A: the callee wants to
// delete files and pauses its task for tool approval (input-required), the way Hector does.
// The calling agent puts each question to its human, resumes the task with the answer, and
// prints the outcome. The file agent asks twice within the one task, as an agent does that
// needs approval for each of two tool calls: after the first answer the task pauses again,
// and Run asks again, until the task ends (a deny ends it at once). It then calls through a relay that holds the task until an
// administrator decides.
//
//	go run ./examples/toolapproval              # answers "approve" by itself; exits at once
//	go run ./examples/toolapproval -ask         # you answer each question on the terminal
//	go run ./examples/toolapproval -binding rest/0.3
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

func main() {
	ask := flag.Bool("ask", false, "ask on the terminal instead of approving")
	binding := flag.String("binding", string(a2a.JSONRPC10), "jsonrpc/1.0, rest/1.0, jsonrpc/0.3 or rest/0.3")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var in io.Reader
	if *ask {
		in = os.Stdin
	}
	if err := run(ctx, os.Stdout, in, a2a.Binding(*binding)); err != nil {
		fmt.Fprintln(os.Stderr, "toolapproval:", err)
		os.Exit(1)
	}
}

// run calls a tool-approval agent and a relay. With in nil every question is approved;
// otherwise each answer is a line read from in.
func run(ctx context.Context, out io.Writer, in io.Reader, b a2a.Binding) error {
	agent := a2atest.NewUnstartedAgent(a2atest.WithQuestions(2))
	agent.Start()
	defer agent.Close()
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		return err
	}
	ep := agent.Endpoint(b)
	fmt.Fprintf(out, "Calling the file agent over %s. It asks for approval twice in one task, once per\n", b)
	fmt.Fprintln(out, "tool call; each answer resumes the same task, which then pauses again or ends.")
	ev, err := c.Send(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("Delete last month's reports.")}}, nil)
	if err != nil {
		return err
	}
	p := a2a.NewPause(ep, ev.Task)
	if p == nil {
		return fmt.Errorf("the agent did not pause: task is %s", ev.Class())
	}
	r, err := c.Run(ctx, p, terminalAsker(out, in), nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Outcome: %s (%s). Approved: %v.\n\n", r.Status, r.Action, r.Approved())

	relay := a2atest.NewUnstartedRelay()

	relay.Start()
	defer relay.Close()
	rc, err := a2a.NewClient(transport.WithHTTPClient(relay.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second))
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "Calling through the relay.")
	ev, err = rc.Send(ctx, relay.Endpoint(), a2a.Message{Parts: []a2a.Part{a2a.TextPart("Transfer 500 EUR to ACME.")}}, nil)
	if err != nil {
		return err
	}
	go func() { // the relay's administrator approves a moment later
		if id := relay.NextHold(ctx.Done()); id != "" {
			_ = relay.Approve(id)
		}
	}()
	r, err = rc.Run(ctx, a2a.NewPause(relay.Endpoint(), ev.Task), nil, &a2a.RunOptions{
		Notify: func(_ context.Context, p *a2a.Pause) { fmt.Fprintf(out, "Held by the relay: %s\n", p.Prompt()) },
	})
	if err != nil {
		return err
	}
	task, err := a2a.TaskOf(r)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Outcome: %s: %s\n", r.Status, task.Artifacts[0].Parts[0].Text)
	return nil
}

// terminalAsker shows each question and reads "approve" or "deny" from in; with in nil it
// approves.
func terminalAsker(out io.Writer, in io.Reader) a2a.Asker {
	var lines *bufio.Scanner
	if in != nil {
		lines = bufio.NewScanner(in)
	}
	n := 0
	return func(ctx context.Context, p *a2a.Pause) (a2a.Answer, error) {
		n++
		fmt.Fprintf(out, "Question %d of task %s: %s\n", n, p.TaskID, p.Prompt())
		if lines == nil {
			fmt.Fprintln(out, "Answer: approve")
			return a2a.Approve(p), nil
		}
		fmt.Fprint(out, "approve or deny? ")
		if !lines.Scan() {
			return a2a.Answer{}, errors.New("no answer on the terminal")
		}
		if strings.EqualFold(strings.TrimSpace(lines.Text()), "approve") {
			return a2a.Approve(p), nil // spelled the way this agent reads a yes
		}
		return a2a.Reject(p), nil
	}
}
