package hxp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// An agent asks its owner a yes or no — an APPROVE — waits for the receipt, and goes ahead
// only on Approved.
func Example() {
	srv := hxptest.NewUnstartedServer() // a fake HXP server on loopback
	srv.Start()
	defer srv.Close()
	go func() { // the human, in their inbox
		id := srv.NextRequest(nil)
		_, _ = srv.Resolve(id, hxp.Approved, "", "user_owner")
	}()

	client, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
	if err != nil {
		panic(err)
	}
	created, err := client.Create(context.Background(), &hxp.Request{
		Priority: hxp.PriorityHigh, TimeoutSeconds: 3600, AgentID: "agent_alpha_01",
		Approve: &hxp.Approve{Item: "Stripe plan at $99/mo", Details: json.RawMessage(`{"plan":"pro"}`)},
	})
	if err != nil {
		panic(err)
	}
	res, err := client.Wait(context.Background(), created, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Approved(), "by", res.RespondedBy.Name)

	// A bad request is refused before anything is sent.
	_, err = client.Create(context.Background(), &hxp.Request{Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Yes"}}})
	fmt.Println(err)
	// Output:
	// true by user_owner
	// hxp: invalid request: payload.options: needs 2 to 6 options, has 1
}

// Waiter holds the wait as a transport.Waiter, the shape every protocol's wait shares: here a
// framework's list of pending waits, run later. The request is a DECIDE: the option chosen is
// an answer, read from Action, and never an approval, whatever its words.
func ExampleClient_Waiter() {
	srv := hxptest.NewUnstartedServer()
	srv.Start()
	defer srv.Close()
	go func() {
		_, _ = srv.Resolve(srv.NextRequest(nil), "Deny", "", "user_owner")
	}()
	client, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
	if err != nil {
		panic(err)
	}
	created, err := client.Create(context.Background(), &hxp.Request{
		Priority: hxp.PriorityNormal, TimeoutSeconds: 3600, Fallback: hxp.FallbackDefault, AgentID: "agent_alpha_01",
		Decide: &hxp.Decide{Question: "Ship release 2.4?", Options: []string{"Ship", "Deny"}, DefaultOption: "Deny"},
	})
	if err != nil {
		panic(err)
	}
	var w transport.Waiter[*hxp.Created] = client.Waiter(nil)
	res, err := w.Wait(context.Background(), created)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Decision, res.Action, res.Approved(), res.CaseID == created.RequestID)
	// Output:
	// answer Deny false true
}
