package hitl_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// failingStore is a Store whose Put fails, as a closed or full one does.
type failingStore struct{ hitl.MemoryStore }

func (*failingStore) Put(context.Context, *hitl.Interrupt) error {
	return errors.New("the store is closed")
}

// TestStoredBeforeAsked: with a store, Do keeps the interrupt before its forwarder shows
// anyone the question, so a decision on a question that was shown is never one the store does
// not hold; a store that fails ends Do before anyone is asked, with the Interrupt in the
// Response and an error saying nobody was; a forward that fails leaves nothing stored.
func TestStoredBeforeAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)

		var store hitl.MemoryStore
		var storedWhenAsked []int
		c := newClient(t, s.Client().Transport, hitl.WithStore(&store), hitl.WithForwarder(func(ctx context.Context, it *hitl.Interrupt) error {
			l, _ := store.List(ctx)
			storedWhenAsked = append(storedWhenAsked, len(l))
			return s.Respond(it.ID(), "approve", nil, nil)
		}))
		resp, err := c.Do(t.Context(), post(t, s.URL+"/actions/approval", ""), nil)
		if err != nil || !resp.Result.Approved() {
			t.Fatalf("Do = %+v, %v", resp, err)
		}
		_ = resp.Body.Close()
		if len(storedWhenAsked) != 1 || storedWhenAsked[0] != 1 {
			t.Errorf("interrupts stored when the forwarder asked: %v, want [1]", storedWhenAsked)
		}

		asked := 0
		c = newClient(t, s.Client().Transport, hitl.WithStore(&failingStore{}), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error {
			asked++
			return nil
		}))
		resp, err = c.Do(t.Context(), post(t, s.URL+"/actions/approval", ""), nil)
		if err == nil || !strings.Contains(err.Error(), "nobody was asked") || asked != 0 || resp == nil || resp.Interrupt == nil {
			t.Fatalf("Do with a failing store = %+v, %v after %d questions; want an error saying nobody was asked, the Interrupt, no question", resp, err, asked)
		}
		_ = resp.Body.Close()

		store = hitl.MemoryStore{}
		c = newClient(t, s.Client().Transport, hitl.WithStore(&store), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error {
			return errors.New("chat is down")
		}))
		resp, err = c.Do(t.Context(), post(t, s.URL+"/actions/approval", ""), nil)
		if err == nil || !strings.Contains(err.Error(), "chat is down") {
			t.Fatalf("Do with a failing forwarder = %v", err)
		}
		_ = resp.Body.Close()
		if l, _ := store.List(t.Context()); len(l) != 0 {
			t.Errorf("after a failed forward the store holds %d interrupts, want none", len(l))
		}
	})
}

// TestA2AQuestionWithoutAskerTellsNobody: an A2A task asking for input, called through Do or
// Transport without WaitOptions.Ask, is returned at once with ErrNoAsker in a WaitError holding
// its Interrupt; the forwarder is not told, since nobody could send the person's answer back.
func TestA2AQuestionWithoutAskerTellsNobody(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	told := 0
	c := newClient(t, agent.Client().Transport, hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error {
		told++
		return nil
	}))
	ep := agent.Endpoint(a2a.JSONRPC10)
	call := func() *http.Request {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, ep.URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		return req
	}
	var we *hitl.WaitError
	resp, err := c.Do(t.Context(), call(), nil)
	if !errors.Is(err, hitl.ErrNoAsker) || !errors.As(err, &we) || resp == nil || resp.Interrupt == nil || we.Interrupt != resp.Interrupt || told != 0 {
		t.Fatalf("Do = %+v, %v, forwarder told %d times; want ErrNoAsker with the Interrupt, nobody told", resp, err, told)
	}
	_ = resp.Body.Close()
	_, err = (&http.Client{Transport: c.Transport(agent.Client().Transport, nil)}).Do(call())
	if !errors.Is(err, hitl.ErrNoAsker) || !errors.As(err, &we) || we.Interrupt == nil || told != 0 {
		t.Fatalf("Transport: %v, forwarder told %d times; want ErrNoAsker with the Interrupt, nobody told", err, told)
	}
}

// TestWithStoreRefusesATypedNil: a nil *filestore.Store (an Open whose error went unchecked)
// is refused when the client is built, not a panic when the first question is stored.
func TestWithStoreRefusesATypedNil(t *testing.T) {
	var s *hitl.MemoryStore
	_, err := hitl.NewClient(hitl.WithStore(s))
	if !errors.Is(err, transport.ErrInvalidOption) || !strings.Contains(err.Error(), "nil store") {
		t.Fatalf("NewClient(WithStore(typed nil)) = %v, want an invalid option naming the nil store", err)
	}
}
