package hitl_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// acmeWaiter waits on an approval of the in-house "acme-approval" protocol; a real one runs
// a transport.Wait on the poll URL it finds in the pause's Data.
type acmeWaiter struct{}

func (acmeWaiter) Wait(_ context.Context, it *hitl.Interrupt) (*transport.Result, error) {
	var d struct {
		Poll string `json:"poll"`
	}
	if err := json.Unmarshal(it.Custom.Data, &d); err != nil {
		return nil, err
	}
	return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: "approved",
		Decision: transport.DecisionApprove}, nil
}

// A protocol of one's own presents its question as an Interrupt of its own kind: a process
// stores it, and after a restart Resume waits on it through the Waiter given for the kind,
// as it does a HITL case.
func ExampleWithKindWaiter() {
	store := &hitl.MemoryStore{} // a filestore.Store outlives the process
	c, err := hitl.NewClient(hitl.WithStore(store), hitl.WithKindWaiter("acme-approval", acmeWaiter{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Before the restart: the pause is kept.
	_ = store.Put(context.Background(), &hitl.Interrupt{Kind: "acme-approval", Origin: "https://acme.example:443",
		Message: "Deploy v42?", Labels: map[string]string{"session": "s-7"},
		Custom: &hitl.CustomPause{ID: "ap_42", Data: json.RawMessage(`{"poll":"https://acme.example/approvals/ap_42"}`)}})

	// After it: every kept pause is waited on, and its Result handled once.
	err = c.Resume(context.Background(), func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
		fmt.Println(it.Kind, it.ID(), it.Labels["session"], r.Approved())
		return nil
	}, nil)
	open, _ := store.List(context.Background())
	fmt.Println(err, len(open))
	// Output:
	// acme-approval ap_42 s-7 true
	// <nil> 0
}
