package hitl_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// deployAPI stands for any library an agent uses that takes only an *http.Client: a
// generated API client, an LLM provider's SDK, an MCP or A2A client. It knows nothing of
// HITL.
type deployAPI struct {
	hc   *http.Client
	base string
}

// Deploy asks the service to deploy and returns what it answered, and the response, as
// generated clients do.
func (a *deployAPI) Deploy(ctx context.Context, version string) (string, *http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/actions/approval", strings.NewReader(`{"version":"`+version+`"}`))
	if err != nil {
		return "", nil, err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return string(body), resp, err
}

// A library that only takes an *http.Client gets HITL handling from the client's
// Transport: its call returns once the human decided, with the service's answer as the body
// and the typed Result beside it.
func ExampleClient_Transport() {
	svc := hitltest.NewUnstartedServer() // a fake HITL service on loopback
	svc.Start()
	defer svc.Close()
	go func() { // the human, answering in the review page
		id := svc.NextCase(nil)
		_ = svc.Respond(id, "approve", map[string]string{"feedback": "ship it"}, &transport.Responder{Name: "Ana"})
	}()

	client, err := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()),
		transport.WithAllowPrivateAddresses(), // the fake serves http://127.0.0.1
		hitl.WithForwarder(func(ctx context.Context, it *hitl.Interrupt) error {
			fmt.Println("forward to the human:", it.Prompt())
			return nil
		}),
	)
	if err != nil {
		panic(err)
	}
	api := &deployAPI{hc: &http.Client{Transport: client.Transport(svc.Client().Transport, nil)}, base: svc.URL}

	body, resp, err := api.Deploy(context.Background(), "2.1.0")
	if err != nil {
		panic(err)
	}
	fmt.Println("the library saw:", resp.StatusCode, body)
	if r := hitl.ResultOf(resp); r != nil {
		fmt.Println("decided:", r.Action, "by", r.RespondedBy.Name)
	}
	// Output:
	// forward to the human: Approve deployment of acme-web v2.1.0 to production
	// the library saw: 200 {"feedback":"ship it"}
	// decided: approve by Ana
}
