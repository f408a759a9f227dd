package hitl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// deployAPI stands for any library an agent uses that takes only an *http.Client: a
// generated API client, an LLM provider's SDK, an MCP or A2A client. It knows nothing of
// HITL, and never shows its caller the response.
type deployAPI struct {
	hc   *http.Client
	base string
}

// Deployment is what the API returns on success.
type Deployment struct {
	Feedback string `json:"feedback"`
}

// Deploy asks the service to deploy, as generated clients do: a 2xx is a *Deployment,
// anything else an error.
func (a *deployAPI) Deploy(ctx context.Context, version string) (*Deployment, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/actions/approval", strings.NewReader(`{"version":"`+version+`"}`))
	if err != nil {
		return nil, err
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("deploy: %s", resp.Status)
	}
	var d Deployment
	return &d, json.NewDecoder(resp.Body).Decode(&d)
}

// A library that only takes an *http.Client gets HITL handling from the client's
// Transport: its call returns once the human decided. An approval is a 200 whose body is the
// approval's data; a rejection (like an expiry or a cancellation) is an error the library
// passes up, which holds the Result.
func ExampleClient_Transport() {
	svc := hitltest.NewUnstartedServer() // a fake HITL service on loopback
	svc.Start()
	defer svc.Close()
	go func() { // the human, answering in the review page: yes, then no
		_ = svc.Respond(svc.NextCase(nil), "approve", map[string]string{"feedback": "ship it"}, &transport.Responder{Name: "Ana"})
		_ = svc.Respond(svc.NextCase(nil), "reject", map[string]string{"feedback": "not on a Friday"}, &transport.Responder{Name: "Ana"})
	}()

	client, err := hitl.NewClient(
		transport.WithHTTPClient(svc.Client()),
		transport.WithAllowPrivateAddresses(), // the fake serves http://127.0.0.1
		hitl.WithForwarder(hitl.WriteTo(new(strings.Builder))),
	)
	if err != nil {
		panic(err)
	}
	api := &deployAPI{hc: &http.Client{Transport: client.Transport(svc.Client().Transport, nil)}, base: svc.URL}

	d, err := api.Deploy(context.Background(), "2.1.0")
	fmt.Printf("2.1.0: %+v, %v\n", d, err)

	_, err = api.Deploy(context.Background(), "2.2.0")
	var no *hitl.NotApprovedError
	if errors.As(err, &no) {
		fmt.Println("2.2.0:", errors.Is(err, hitl.ErrNotApproved), no.Result.Decision, "by", no.Result.RespondedBy.Name, string(no.Result.Data))
	}
	// Output:
	// 2.1.0: &{Feedback:ship it}, <nil>
	// 2.2.0: true reject by Ana {"feedback":"not on a Friday"}
}
