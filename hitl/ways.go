package hitl

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/sse"
	"github.com/hitlkit/hitlkit/transport"
)

// A way of learning a case's outcome is a [transport.Waiter] of *[Interrupt]: the client's
// own (PollWaiter, StreamWaiter, CallbackWaiter), or one of yours — a chat button, a queue
// consumer, a workflow engine's signal: any type with its Wait method. Its Wait
// blocks until it learns the outcome, or ctx ends (returning context.Cause(ctx)).
// Implementations must be safe for concurrent use.
//
// [Client.Wait] composes ways: it always polls the case's poll_url, the source of truth, and
// runs the others beside it (WithWaiter adds one for every wait, [WaitOptions].Ways sets
// them for one wait); the first outcome the source of truth confirms ends the wait and the
// other ways stop.

// WithWaiter adds w to the ways the client learns an outcome, for every wait: beside polling,
// the event stream and callbacks for a HITL case, beside the task queries (and the stream or
// push receiver of [WaitOptions].A2A) for an A2A task. When w returns a Result the wait polls
// the service at once to confirm it — the service stays the source of truth — and the first
// confirmed outcome ends the wait; every other way, w included, is stopped. An error from w
// is logged and the other ways carry on. To choose the ways of one wait, see
// [WaitOptions].Ways; to replace the whole wait, [WaitOptions].Waiter. Default: no way of
// yours. Given more than once, every w is added. A nil w is refused.
func WithWaiter(w transport.Waiter[*Interrupt]) transport.Option {
	return option("WithWaiter", func(c *Client) error {
		if w == nil {
			return errors.New("nil waiter")
		}
		c.waiters = append(c.waiters, w)
		return nil
	})
}

// WithKindWaiter makes w the wait of every interrupt of kind k, a kind of one's own (an
// [Interrupt] whose Custom holds the pause of another protocol): [Client.Wait] and
// [Client.Resume] return w's Result as it is, and keep and delete the interrupt in the
// client's [Store] as they do a HITL case. [WaitOptions].Waiter, when set, replaces it for
// one wait. Give one per kind; a later one for the same kind replaces the earlier. The
// kinds this package defines (KindHITL, the KindA2A kinds), an empty kind and a nil w are
// refused.
func WithKindWaiter(k Kind, w transport.Waiter[*Interrupt]) transport.Option {
	return option("WithKindWaiter", func(c *Client) error {
		switch {
		case w == nil:
			return errors.New("nil waiter")
		case k == "" || ownKind(k):
			return errors.New("not a kind of one's own")
		}
		if c.kinds == nil {
			c.kinds = make(map[Kind]transport.Waiter[*Interrupt])
		}
		c.kinds[k] = w
		return nil
	})
}

// ownKind reports whether k is a kind this package defines.
func ownKind(k Kind) bool {
	switch k {
	case KindHITL, KindA2AInput, KindA2AAuth, KindA2ARelay, KindA2ARelayPending:
		return true
	}
	return false
}

// PollWaiter returns the way that polls the case's poll_url, paced by the service (§8:
// Retry-After, ETag), until it reports a terminal status. Every wait polls, so in
// [WaitOptions].Ways it adds nothing; on its own, its Wait is [Client.Wait] with no other way.
func (c *Client) PollWaiter() transport.Waiter[*Interrupt] { return pollWay{c} }

// StreamWaiter returns the way that follows the case's event stream (§8.5: events_url, or
// the stream the service's discovery document advertises), reconnecting with Last-Event-ID.
// A terminal event from the poll URL's own origin that carries the complete outcome of the
// case is the outcome; any other terminal event makes the wait poll at once. Progress events
// and reminders reach [WaitOptions].OnUpdate and the forwarder. A case without a stream, or
// a stream the service refuses, leaves the wait polling. On its own, its Wait is
// [Client.Wait] with this way only beside polling.
func (c *Client) StreamWaiter() transport.Waiter[*Interrupt] { return streamWay{c} }

// CallbackWaiter returns the way that listens for the case's signed callback (§9) on the
// client's [WithCallbacks] receiver: a callback makes the wait poll at once, or, when
// [CallbacksOptions].Decide is set and it carries the complete outcome, is the outcome. On a
// client without callbacks it adds nothing. On its own, its Wait is [Client.Wait] with this
// way only beside polling.
func (c *Client) CallbackWaiter() transport.Waiter[*Interrupt] { return callbackWay{c} }

// ways are the ways beside polling for one wait: o.Ways, or by default the event stream and
// callbacks (unless PollOnly) and every WithWaiter.
func (c *Client) ways(o *WaitOptions) []transport.Waiter[*Interrupt] {
	switch {
	case o.Ways != nil:
		return o.Ways
	case o.PollOnly:
		return c.waiters
	}
	return c.defaultWays
}

// callerWays are the ways of o that are not the client's own: those an A2A task runs.
func (c *Client) callerWays(o *WaitOptions) []transport.Waiter[*Interrupt] {
	var ws []transport.Waiter[*Interrupt]
	for _, w := range c.ways(o) {
		if _, ok := w.(builtin); !ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// builtin is a way the client runs inside its own wait: it adds its push source to w, or
// nothing when the case or the client has none.
type builtin interface {
	addTo(w *transport.Wait[*transport.Result], r *run)
}

// addWays adds every way of the wait beside the poll to w. A way of the caller's runs once,
// on its own goroutine; its Result makes the wait poll.
func (c *Client) addWays(w *transport.Wait[*transport.Result], r *run) {
	for _, way := range c.ways(r.o) {
		if b, ok := way.(builtin); ok {
			b.addTo(w, r)
			continue
		}
		w.Push = append(w.Push, c.pushOf(way, r.it))
	}
}

// pushOf is a caller's way as a push source: its Result wakes the wait to confirm it, its
// error is logged; it is not run again.
func (c *Client) pushOf(way transport.Waiter[*Interrupt], it *Interrupt) func(context.Context, func(), func(*transport.Result)) error {
	return func(ctx context.Context, wake func(), _ func(*transport.Result)) error {
		r, err := way.Wait(ctx, it)
		switch {
		case r != nil && err == nil:
			wake()
		case err != nil && ctx.Err() == nil:
			c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: a waiter failed; the others carry on",
				slog.String("id", it.ID()), slog.String("err", err.Error()))
		}
		return nil
	}
}

type pollWay struct{ c *Client }

func (w pollWay) Wait(ctx context.Context, it *Interrupt) (*transport.Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []transport.Waiter[*Interrupt]{}})
}

func (pollWay) addTo(*transport.Wait[*transport.Result], *run) {}

type streamWay struct{ c *Client }

func (w streamWay) Wait(ctx context.Context, it *Interrupt) (*transport.Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []transport.Waiter[*Interrupt]{w}})
}

func (w streamWay) addTo(tw *transport.Wait[*transport.Result], r *run) {
	c, cs := w.c, r.it.Case
	eventsURL := c.eventsURL(r.it)
	if eventsURL == "" {
		return
	}
	s := &sse.Subscriber{Client: c.service, Authorize: c.authorizer(r.it, eventsURL, r.auth), Logger: c.logger}
	if r.o.From != nil {
		s.LastEventID = r.o.From.LastEventID
	}
	// A terminal event decides only from the poll URL's own origin.
	trusted := httpx.OriginOf(eventsURL) == httpx.OriginOf(cs.PollURL)
	r.streams = true
	tw.Push = append(tw.Push, func(ctx context.Context, wake func(), settle func(*transport.Result)) error {
		return r.follow(ctx, eventsURL, s, trusted, wake, settle)
	})
}

type callbackWay struct{ c *Client }

func (w callbackWay) Wait(ctx context.Context, it *Interrupt) (*transport.Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []transport.Waiter[*Interrupt]{w}})
}

func (w callbackWay) addTo(tw *transport.Wait[*transport.Result], r *run) {
	cb, cs := w.c.callbacks, r.it.Case
	if cb == nil {
		return
	}
	tw.Watch = append(tw.Watch, func(wake func(), settle func(*transport.Result)) func() {
		return cb.watch(cs.CaseID, func() {
			if res := cb.outcome(cs); res != nil {
				r.settled(res, settle)
				return
			}
			wake()
		})
	})
}
