package hitl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"
	"sync"

	"github.com/hitlkit/hitlkit/transport"
)

// StoreKey identifies an open interrupt: the origin of the service and the case or task id,
// so that two services using the same case id never collide.
type StoreKey struct {
	Origin string
	ID     string
}

// Key returns the interrupt's StoreKey.
func (it *Interrupt) Key() StoreKey { return StoreKey{Origin: it.Origin, ID: it.ID()} }

func (k StoreKey) bytes() []byte { return []byte(k.Origin + "\n" + k.ID) }

// Store keeps the interrupts a process is waiting on, so that a process that restarts (or
// another replica) can wait on them again: see [WithStore] and [Client.Resume]. An
// interrupt's JSON holds its review URL, which carries the review token, and A2A pauses: keep
// a store where you would keep a credential. Implementations must be safe for concurrent use.
type Store interface {
	// Put saves it, replacing what is saved under its key.
	Put(ctx context.Context, it *Interrupt) error
	// Delete removes the interrupt saved under key; a key that is not there is no error.
	Delete(ctx context.Context, key StoreKey) error
	// List returns every saved interrupt it can read. A record it cannot read does not stop
	// the others: List returns the rest with an error that holds a *RecordError for each
	// (errors.As), and leaves the record where it is.
	List(ctx context.Context) ([]*Interrupt, error)
}

// RecordError is a stored record that cannot be read as an Interrupt (written by another
// version, or damaged): its key and why. The record is left in the store.
type RecordError struct {
	Key StoreKey
	Err error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("hitl: stored interrupt %s %s: %v", e.Key.Origin, e.Key.ID, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// decodeRecord reads a stored interrupt's JSON, saved under key; an error is a *RecordError.
// JSON that decodes to an interrupt of another key (a record of a kind this version does
// not know, holding neither case nor task) is one.
func decodeRecord(key StoreKey, b []byte) (*Interrupt, error) {
	var it Interrupt
	if err := json.Unmarshal(b, &it); err != nil {
		return nil, &RecordError{Key: key, Err: err}
	}
	if it.Key() != key {
		return nil, &RecordError{Key: key, Err: errOtherKey(&it)}
	}
	return &it, nil
}

// errOtherKey says why a record that decoded is not the interrupt its key names.
func errOtherKey(it *Interrupt) error {
	return fmt.Errorf("the record (kind %q) is not an interrupt of its key: a kind this version does not know?", it.Kind)
}

// unresumable reports why Resume cannot wait on it, a record another version may have
// written, or nil: a HITL case, an A2A task, and an interrupt of a kind of one's own given a
// Waiter (o's, or the kind's) can be waited on.
func (c *Client) unresumable(it *Interrupt, o *WaitOptions) error {
	switch {
	case it.Task != nil || (it.Kind == KindHITL && it.Case != nil):
		return nil
	case it.Custom != nil && !ownKind(it.Kind) && ((o != nil && o.Waiter != nil) || c.kinds[it.Kind] != nil):
		return nil
	case it.Custom != nil && !ownKind(it.Kind):
		return fmt.Errorf("kind %q has no Waiter: give one with WithKindWaiter or WaitOptions.Waiter", it.Kind)
	}
	return fmt.Errorf("kind %q is not one this version waits on", it.Kind)
}

// MemoryStore is a Store in memory: it outlives a wait, not the process. The zero value is
// ready to use and safe for concurrent use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[StoreKey][]byte
}

// Put implements Store.
func (s *MemoryStore) Put(_ context.Context, it *Interrupt) error {
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[StoreKey][]byte)
	}
	s.m[it.Key()] = b
	return nil
}

// Delete implements Store.
func (s *MemoryStore) Delete(_ context.Context, key StoreKey) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

// List implements Store; the interrupts are in key order.
func (s *MemoryStore) List(_ context.Context) ([]*Interrupt, error) {
	s.mu.Lock()
	keys := make([]StoreKey, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return string(keys[i].bytes()) < string(keys[j].bytes()) })
	raw := make([][]byte, len(keys))
	for i, k := range keys {
		raw[i] = s.m[k]
	}
	s.mu.Unlock()
	out := make([]*Interrupt, 0, len(raw))
	var bad []error
	for i, b := range raw {
		it, err := decodeRecord(keys[i], b)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		out = append(out, it)
	}
	return out, errors.Join(bad...)
}

// WithStore makes the client keep every interrupt it waits on in s: [Client.Do] and
// [Client.Wait] put it before waiting and delete it once they return a Result (an error
// leaves it, since the outcome is still unknown). After a restart, [Client.Resume] waits on
// what is left. Default: no store. A nil s is refused.
func WithStore(s Store) transport.Option {
	return option("WithStore", func(c *Client) error {
		if s == nil {
			return errors.New("nil store")
		}
		if v := reflect.ValueOf(s); v.Kind() == reflect.Pointer && v.IsNil() {
			// A *filestore.Store from an Open whose error went unchecked.
			return errors.New("nil store: check the error of the call that made it (filestore.Open)")
		}
		c.store = s
		return nil
	})
}

// keep puts it in the client's store, when there is one.
func (c *Client) keep(ctx context.Context, it *Interrupt) error {
	if c.store == nil {
		return nil
	}
	if err := c.store.Put(ctx, it); err != nil {
		return fmt.Errorf("hitl: store case %s: %w", it.ID(), err)
	}
	return nil
}

// relabel keeps it again after its forwarder added Labels (where the question was put): a
// failure is logged and the wait goes on, since the interrupt itself is kept already.
func (c *Client) relabel(ctx context.Context, it *Interrupt) {
	if c.store == nil {
		return
	}
	if err := c.store.Put(ctx, it); err != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "hitl: store of the forwarder's labels failed", slog.String("case_id", it.ID()), slog.String("err", err.Error()))
	}
}

// forget deletes it from the client's store; a failure is logged: the Result is the caller's
// either way, and a later Resume would find the case ended.
func (c *Client) forget(ctx context.Context, it *Interrupt) {
	if c.store == nil {
		return
	}
	if err := c.store.Delete(context.WithoutCancel(ctx), it.Key()); err != nil {
		c.logger.LogAttrs(ctx, slog.LevelWarn, "hitl: store delete failed", slog.String("case_id", it.ID()), slog.String("err", err.Error()))
	}
}

// ResumeHandler receives the Result of one resumed interrupt. Returning nil lets the client
// delete the interrupt from its store; an error keeps it there for the next Resume.
type ResumeHandler func(ctx context.Context, it *Interrupt, r *transport.Result) error

// Resume waits, at once and concurrently, on every interrupt left in the client's store — the
// waits a previous process did not finish — and calls handle with each Result, from the
// goroutine of that wait, so calls may overlap. An interrupt is deleted only after handle
// returned nil for it: a crash between the two delivers that Result again on the next
// Resume (at least once, never lost). o tunes every wait (WaitOptions.Ask answers A2A
// questions). An interrupt of a kind of one's own is waited on through the Waiter given for
// its kind ([WithKindWaiter]), or o.Waiter, as [Client.Wait] does.
//
// Resume does not forward a question again: Do stores an interrupt before it forwards it, and
// deletes it again when the forward fails (a store that fails stops Do before anyone is
// asked). A process that dies between the two leaves an interrupt nobody was shown: Resume
// waits on it until the case ends, as its expiry says. Reminders the service sends while the
// wait runs are forwarded.
//
// Resume returns when every wait has ended: nil when each Result was handled, otherwise the
// waits' errors, each naming its case, and the handler's joined (their interrupts stay in
// the store). A record the store cannot read, or one this version cannot wait on (a kind
// another version wrote, a kind of one's own with no Waiter), stops no other: Resume waits on every interrupt it can and its
// error holds a *RecordError for each other record (errors.As: its key and why), left in
// the store. It returns ErrNoStore without a store. Cancelling ctx ends the waits; their
// interrupts stay.
func (c *Client) Resume(ctx context.Context, handle ResumeHandler, o *WaitOptions) error {
	if c == nil {
		return errNilClient
	}
	if c.store == nil {
		return ErrNoStore
	}
	if handle == nil {
		return errors.New("hitl: Resume needs a handler")
	}
	open, err := c.store.List(ctx)
	if err != nil && len(open) == 0 {
		return fmt.Errorf("hitl: resume: %w", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	if err != nil {
		errs = append(errs, fmt.Errorf("hitl: resume: %w", err)) // records it could not read, reported with the waits' outcome
	}
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for _, it := range open {
		if err := c.unresumable(it, o); err != nil {
			fail(&RecordError{Key: it.Key(), Err: err}) // left in the store
			continue
		}
		wg.Go(func() {
			r, err := c.wait(ctx, it, o, c.authorization, c.forward)
			if err != nil {
				fail(fmt.Errorf("hitl: resume: case %s: %w", it.ID(), err))
				return
			}
			if err := handle(ctx, it, r); err != nil {
				fail(fmt.Errorf("hitl: resume: handler for case %s: %w", it.ID(), err))
				return
			}
			c.forget(ctx, it)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ErrNoStore: Resume was called on a client without WithStore.
var ErrNoStore = errors.New("hitl: the client has no store")

// Pending lists the questions the client is waiting on, oldest first: every wait running now
// in this process ([Client.Do], [Client.Wait], [Client.Resume], the RoundTripper), with
// whether the question was forwarded during it, and, when the client has a store, every
// interrupt stored and not being waited on here (Waiting false: a previous process's, for
// [Client.Resume]). A wait that ends leaves the list. Safe for concurrent use; ctx bounds the
// store's List. An error is the store's; the waits running are listed with it.
func (c *Client) Pending(ctx context.Context) ([]transport.Pending, error) {
	if c == nil {
		return nil, errNilClient
	}
	out := c.cfg.Pending()
	if c.store == nil {
		return out, nil
	}
	stored, err := c.store.List(ctx)
	running := make(map[string]bool, len(out))
	for _, p := range out {
		running[p.ID] = true
	}
	for _, it := range stored {
		if it == nil || running[it.ID()] {
			continue
		}
		q := questionOf(it)
		out = append(out, transport.Pending{Protocol: q.Protocol, Kind: q.Kind, ID: q.ID, Prompt: q.Prompt, Since: it.ReceivedAt})
	}
	slices.SortStableFunc(out, func(a, b transport.Pending) int { return a.Since.Compare(b.Since) })
	if err != nil {
		return out, fmt.Errorf("hitl: pending: %w", err)
	}
	return out, nil
}
