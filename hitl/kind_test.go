package hitl_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// countingWaiter answers every interrupt at once with a rejection carrying the reason in its
// Data, and counts its calls per id.
type countingWaiter struct {
	mu    sync.Mutex
	calls map[string]int
}

func (w *countingWaiter) Wait(_ context.Context, it *hitl.Interrupt) (*transport.Result, error) {
	w.mu.Lock()
	if w.calls == nil {
		w.calls = map[string]int{}
	}
	w.calls[it.ID()]++
	w.mu.Unlock()
	var d struct{ Poll string }
	if err := json.Unmarshal(it.Custom.Data, &d); err != nil || d.Poll == "" {
		return nil, errors.New("the waiter did not get its data back")
	}
	return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: "approve", Decision: transport.DecisionApprove}, nil
}

func custom(kind hitl.Kind, id string) *hitl.Interrupt {
	return &hitl.Interrupt{Kind: kind, Origin: "https://acme.example:443", Message: "Deploy?",
		Custom: &hitl.CustomPause{ID: id, Data: json.RawMessage(`{"poll":"https://acme.example/approvals/` + id + `"}`)},
		Labels: map[string]string{"call": id}}
}

// TestResumeCustomKind: interrupts of kinds of one's own are stored and listed as the
// module's own, and Resume waits on each through the Waiter given for its kind — or through
// WaitOptions.Waiter — exactly once, handles it and deletes it; one with no Waiter is
// reported and kept.
func TestResumeCustomKind(t *testing.T) {
	store := &hitl.MemoryStore{}
	for _, it := range []*hitl.Interrupt{custom("acme-approval", "a1"), custom("acme-approval", "a2"), custom("zeta", "z1")} {
		if err := store.Put(t.Context(), it); err != nil {
			t.Fatal(err)
		}
	}
	if open, err := store.List(t.Context()); err != nil || len(open) != 3 || open[0].ID() != "a1" || open[0].Custom == nil {
		t.Fatalf("List = %v, %v; want the three custom interrupts", open, err)
	}
	acme := &countingWaiter{}
	c, err := hitl.NewClient(hitl.WithStore(store), hitl.WithKindWaiter("acme-approval", acme))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	handled := map[string]int{}
	handle := func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
		mu.Lock()
		defer mu.Unlock()
		if !r.Approved() || r.CaseID != it.ID() || it.Labels["call"] != it.ID() {
			t.Errorf("handled %v with %v", it, r)
		}
		handled[it.ID()]++
		return nil
	}
	err = c.Resume(t.Context(), handle, nil)
	var re *hitl.RecordError
	if !errors.As(err, &re) || re.Key.ID != "z1" {
		t.Errorf("Resume = %v; want z1, which has no Waiter, reported", err)
	}
	if acme.calls["a1"] != 1 || acme.calls["a2"] != 1 || handled["a1"] != 1 || handled["a2"] != 1 || handled["z1"] != 0 {
		t.Errorf("waiter calls %v, handled %v; want a1 and a2 once each", acme.calls, handled)
	}
	if open, _ := store.List(t.Context()); len(open) != 1 || open[0].ID() != "z1" {
		t.Errorf("store after Resume: %v; want z1 only", open)
	}
	zeta := &countingWaiter{}
	if err := c.Resume(t.Context(), handle, &hitl.WaitOptions{Waiter: zeta}); err != nil || zeta.calls["z1"] != 1 || handled["z1"] != 1 {
		t.Errorf("Resume with WaitOptions.Waiter = %v, calls %v, handled %v", err, zeta.calls, handled)
	}
	if open, _ := store.List(t.Context()); len(open) != 0 {
		t.Errorf("store after the second Resume: %v", open)
	}

	// Client.Wait: kept while it waits, through the kind's Waiter, deleted once decided.
	r, err := c.Wait(t.Context(), custom("acme-approval", "a3"), nil)
	if err != nil || !r.Approved() || acme.calls["a3"] != 1 {
		t.Errorf("Wait = %v, %v", r, err)
	}
	if _, err := c.Wait(t.Context(), custom("zeta", "z2"), nil); err == nil {
		t.Error("Wait on a kind with no Waiter succeeded")
	}
}

// TestWithKindWaiterRefuses: the package's own kinds, an empty kind and a nil waiter.
func TestWithKindWaiterRefuses(t *testing.T) {
	for _, o := range []transport.Option{
		hitl.WithKindWaiter(hitl.KindHITL, &countingWaiter{}), hitl.WithKindWaiter(hitl.KindA2AInput, &countingWaiter{}),
		hitl.WithKindWaiter("", &countingWaiter{}), hitl.WithKindWaiter("acme", nil),
	} {
		if _, err := hitl.NewClient(o); !errors.Is(err, transport.ErrInvalidOption) {
			t.Errorf("NewClient = %v", err)
		}
	}
}
