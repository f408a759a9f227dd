// Command quickstart runs an agent against the fake HITL service in hitltest: it makes one
// call per review type, forwards each question, waits for the decisions and prints the typed
// Results, in the order of the calls.
//
//	go run ./examples/quickstart               # a scripted reviewer, Ana, answers; exits in seconds
//	go run ./examples/quickstart -interactive  # you answer in a browser; every case waits for you
//
// A fake service on 127.0.0.1 plays the other side. In the scripted run a reviewer, Ana,
// answers in its review pages: three cases are completed, one is cancelled, and one is left
// to expire after 3 s (its default_action applies; no human decided). With -interactive no
// case expires: the run ends when you have answered all five (or at Ctrl-C).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

func main() {
	interactive := flag.Bool("interactive", false, "leave the cases open for a person to answer in a browser")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *interactive); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// call is one request the agent makes; body tunes the fake's case.
type call struct {
	reviewType string
	body       string
}

var calls = []call{
	{"approval", ""},
	{"selection", ""},
	{"input", ""},
	{"confirmation", ""},
	{"escalation", ""},
}

// scriptedExpiry is the escalation's lifetime in the scripted run, where Ana leaves it to
// expire; with -interactive it lives the fake's default 24 hours.
const scriptedExpiry = `{"timeout":"3s","default_action":"abort"}`

func run(ctx context.Context, out io.Writer, interactive bool) error {
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()

	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format, args...)
	}
	forwarded := make(chan struct{}, 1)
	forward := func(_ context.Context, it *hitl.Interrupt) error {
		link := withoutQuery(it.ReviewURL()) // a log line never shows the token
		if interactive {
			link = it.ReviewURL() // the person at this terminal is the reviewer
		}
		say("→ to the human: %s\n  review: %s\n", it.Prompt(), link)
		select {
		case forwarded <- struct{}{}:
		default: // a reminder: the question was already printed
		}
		return nil
	}
	client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithForwarder(forward))
	if err != nil {
		return err
	}
	if interactive {
		say("A fake HITL service on %s plays the service; you are the reviewer.\n", svc.URL)
		say("Open each review link in a browser and answer it. Every case waits for you (none expires);\n")
		say("the run ends when all five are answered. Ctrl-C stops.\n\n")
	} else {
		say("A fake HITL service on %s plays the service, and a scripted reviewer, Ana, answers\n", svc.URL)
		say("in its review pages: three cases completed, one cancelled, one left to expire after 3 s.\n")
		say("Run with -interactive to be the reviewer yourself.\n\n")
		done := make(chan struct{})
		defer close(done)
		go reviewer(svc, done)
	}

	// The calls run at once, as an agent's would; each starts once the previous question was
	// forwarded, so the questions print in the order of the calls.
	results := make([]*transport.Result, len(calls))
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		if !interactive && c.reviewType == "escalation" {
			c.body = scriptedExpiry
		}
		returned := make(chan struct{})
		wg.Go(func() {
			defer close(returned)
			results[i], errs[i] = agentCall(ctx, client, svc.URL, c)
		})
		select {
		case <-forwarded:
		case <-returned:
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("stopped before every case was decided: %w", context.Cause(ctx))
	}

	say("\nResults:\n")
	for i, c := range calls {
		if errs[i] != nil {
			return fmt.Errorf("%s: %w", c.reviewType, errs[i])
		}
		say("  %-13s %s\n", c.reviewType, describe(results[i]))
	}
	return nil
}

// agentCall is what an agent does around one outbound call.
func agentCall(ctx context.Context, client *hitl.Client, base string, c call) (*transport.Result, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/actions/"+c.reviewType, strings.NewReader(c.body))
	if err != nil {
		return nil, err
	}
	// Only an approval comes back without an error. Any other decision (a rejection, a
	// selection, an expiry, a cancellation) is a *hitl.NotApprovedError holding the Result:
	// this program prints every decision, so it reads the Result from the error too.
	resp, err := client.Do(ctx, req, nil)
	var notApproved *hitl.NotApprovedError
	if errors.As(err, &notApproved) {
		_ = resp.Body.Close()
		return notApproved.Result, nil
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.Result == nil {
		return nil, fmt.Errorf("the service answered %d without asking for a human", resp.StatusCode)
	}
	return resp.Result, nil
}

// reviewer plays the human for the scripted run, answering cases as they are created.
func reviewer(svc *hitltest.Server, done <-chan struct{}) {
	for {
		id := svc.NextCase(done)
		if id == "" {
			return
		}
		st, _ := svc.Case(id)
		_ = svc.Open(id)
		switch st.Type {
		case "approval":
			_ = svc.Respond(id, "approve", map[string]any{"feedback": "Looks good; watch the error rate."}, &transport.Responder{Name: "Ana"})
		case "selection":
			_ = svc.Respond(id, "select", map[string]any{"selected": []string{"job_2", "job_3"}, "note": "remote only"}, &transport.Responder{Name: "Ana"})
		case "input":
			_ = svc.Progress(id, hitl.Progress{CurrentStep: 1, TotalSteps: 1, CompletedFields: 2, TotalFields: 3})
			_ = svc.Respond(id, "submit", map[string]any{"salary_expectation": 95000, "start_date": "2027-01-04", "remote": true}, &transport.Responder{Name: "Ana"})
		case "confirmation":
			_ = svc.Cancel(id, "the emails are no longer needed")
		case "escalation":
			// Left alone: it expires after 3 s (scriptedExpiry) and its default_action applies.
		}
	}
}

func describe(r *transport.Result) string {
	switch {
	case r.Decision != "":
		by := ""
		if r.RespondedBy != nil {
			by = " by " + r.RespondedBy.Name
		}
		return fmt.Sprintf("completed: %s%s %s", r.Action, by, r.Data)
	case r.Status == transport.StatusExpired:
		return fmt.Sprintf("expired: no human decided; default_action %q applies", r.DefaultAction)
	case r.Status == transport.StatusCancelled:
		return fmt.Sprintf("cancelled: %s", r.Reason)
	}
	return string(r.Status)
}

// withoutQuery drops the query, where the review token lives, for printing in a log.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "[review link]"
	}
	u.RawQuery = ""
	return u.String() + "?token=…"
}
