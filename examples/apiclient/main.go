// Command apiclient puts hitlkit under an API client that knows nothing of HITL — the kind
// code generators write, which takes an *http.Client and returns (*T, error) — so that a call
// the service holds for a human returns once the human decided.
//
//	go run ./examples/apiclient
//
// A fake HITL service on 127.0.0.1 plays the API: it answers every POST /actions/{type}
// with a 202 that asks for a human. A scripted reviewer, Ana, approves the first deletion
// and rejects the second. The API client sees a 200 for the approval and an error for the
// rejection; it never sees the "no" as a success.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "apiclient:", err)
		os.Exit(1)
	}
}

// FilesAPI is an API client of the generated kind: it holds an *http.Client and turns each
// 2xx into a typed answer, anything else into an error.
type FilesAPI struct {
	HTTP    *http.Client
	BaseURL string
}

// Deleted is the answer to DeleteReports: here, the data the reviewer gave with the approval.
type Deleted struct {
	Note string `json:"note"`
}

// DeleteReports asks the service to delete a month's reports.
func (a *FilesAPI) DeleteReports(ctx context.Context, month string) (*Deleted, error) {
	body := strings.NewReader(`{"prompt":"Delete the reports of ` + month + `?"}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.BaseURL+"/actions/approval", body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("delete reports: %s", resp.Status)
	}
	var d Deleted
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		return nil, err
	}
	return &d, nil
}

func run(ctx context.Context, out io.Writer) error {
	svc := hitltest.NewUnstartedServer()
	svc.Start()
	defer svc.Close()
	done := make(chan struct{})
	defer close(done)
	go func() { // Ana, answering in the review pages
		if id := svc.NextCase(done); id != "" {
			_ = svc.Respond(id, "approve", map[string]string{"note": "fine, they are archived"}, &transport.Responder{Name: "Ana"})
		}
		if id := svc.NextCase(done); id != "" {
			_ = svc.Respond(id, "reject", map[string]string{"note": "the auditors still need them"}, &transport.Responder{Name: "Ana"})
		}
	}()

	// 1. A hitlkit client: how to reach the human (here, print the question), and permission
	// to call a service on this machine (the fake serves http://127.0.0.1).
	client, err := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()),
		transport.WithAllowPrivateAddresses(),
		hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error {
			fmt.Fprintf(out, "→ to the human: %s\n", it.Prompt()) // it.ReviewURL() is the link to send
			return nil
		}),
	)
	if err != nil {
		return err
	}

	// 2. The API client gets an *http.Client whose Transport is hitlkit's.
	api := &FilesAPI{HTTP: &http.Client{Transport: client.Transport(nil, nil)}, BaseURL: svc.URL}

	// 3. Call it as usual. An approval is a normal answer.
	d, err := api.DeleteReports(ctx, "October")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "October: deleted (%s)\n", d.Note)

	// A rejection is an error: the program cannot go ahead by mistake. The error holds the
	// human's decision for whoever wants to say why.
	_, err = api.DeleteReports(ctx, "November")
	var no *hitl.NotApprovedError
	switch {
	case errors.As(err, &no):
		var why Deleted
		_ = json.Unmarshal(no.Result.Data, &why)
		fmt.Fprintf(out, "November: not deleted: %s said %s (%s)\n", no.Result.RespondedBy.Name, no.Result.Decision, why.Note)
	case err != nil:
		return err // no decision known: the network, the service, a cancelled context
	default:
		return errors.New("November was deleted without an approval")
	}
	return nil
}
