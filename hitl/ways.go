package hitl

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// Waiter is one way of learning a case's outcome: the client's own (PollWaiter, StreamWaiter,
// CallbackWaiter), or one of yours — a chat button, a queue consumer, a workflow engine's
// signal. Wait blocks until it learns the outcome of it, or ctx ends (returning
// context.Cause(ctx)). Implementations must be safe for concurrent use.
//
// [Client.Wait] composes ways: it always polls the case's poll_url, the source of truth, and
// runs the others beside it (WithWaiter adds one for every wait, [WaitOptions].Ways sets
// them for one wait); the first outcome the source of truth confirms ends the wait and the
// other ways stop.
type Waiter = transport.Waiter[*Interrupt]

// WaiterFunc adapts a function to a Waiter.
type WaiterFunc = transport.WaiterFunc[*Interrupt]

// WithWaiter adds w to the ways the client learns an outcome, for every wait: beside polling,
// the event stream and callbacks for a HITL case, beside the task queries (and the stream or
// push receiver of [WaitOptions].A2A) for an A2A task. When w returns a Result the wait polls
// the service at once to confirm it — the service stays the source of truth — and the first
// confirmed outcome ends the wait; every other way, w included, is stopped. An error from w
// is logged and the other ways carry on. To choose the ways of one wait, see
// [WaitOptions].Ways; to replace the whole wait, [WaitOptions].Waiter.
func WithWaiter(w Waiter) Option {
	return func(c *Client) error {
		if w == nil {
			return errors.New("WithWaiter: nil waiter")
		}
		c.waiters = append(c.waiters, w)
		return nil
	}
}

// PollWaiter returns the way that polls the case's poll_url, paced by the service (§8:
// Retry-After, ETag), until it reports a terminal status. Every wait polls, so in
// [WaitOptions].Ways it adds nothing; on its own, its Wait is [Client.Wait] with no other way.
func (c *Client) PollWaiter() Waiter { return pollWay{c} }

// StreamWaiter returns the way that follows the case's event stream (§8.5: events_url, or
// the stream the service's discovery document advertises), reconnecting with Last-Event-ID.
// A terminal event from the poll URL's own origin that carries the complete outcome of the
// case is the outcome; any other terminal event makes the wait poll at once. Progress events
// and reminders reach [WaitOptions].OnUpdate and the forwarder. A case without a stream, or
// a stream the service refuses, leaves the wait polling. On its own, its Wait is
// [Client.Wait] with this way only beside polling.
func (c *Client) StreamWaiter() Waiter { return streamWay{c} }

// CallbackWaiter returns the way that listens for the case's signed callback (§9) on the
// client's [WithCallbacks] receiver: a callback makes the wait poll at once, or, when
// [CallbacksOptions].Decide is set and it carries the complete outcome, is the outcome. On a
// client without callbacks it adds nothing. On its own, its Wait is [Client.Wait] with this
// way only beside polling.
func (c *Client) CallbackWaiter() Waiter { return callbackWay{c} }

// ways are the ways beside polling for one wait: o.Ways, or by default the event stream and
// callbacks (unless PollOnly) and every WithWaiter.
func (c *Client) ways(o *WaitOptions) []Waiter {
	switch {
	case o.Ways != nil:
		return o.Ways
	case o.PollOnly:
		return c.waiters
	}
	return c.defaultWays
}

// callerWays are the ways of o that are not the client's own: those an A2A task runs.
func (c *Client) callerWays(o *WaitOptions) []Waiter {
	var ws []Waiter
	for _, w := range c.ways(o) {
		if _, ok := w.(builtin); !ok {
			ws = append(ws, w)
		}
	}
	return ws
}

// run is one wait on a HITL case as its ways see it: what they report to and how they end it.
type run struct {
	it   *Interrupt
	o    *WaitOptions
	auth func(context.Context) (string, error)
	// report passes on a waiting state; kick makes the wait poll at once; settle ends it
	// with an outcome that needs no confirming poll; mark moves the checkpoint's event id.
	report func(Update)
	kick   func()
	settle func(*Result)
	mark   func(eventID string)
	// streams is set when a way follows the case's event stream (which sends reminders).
	streams bool
}

// builtin is a way the client runs inside its own wait, hooked into the run rather than on a
// goroutine of its own that returns a Result. start returns what stops it, or nil.
type builtin interface {
	start(ctx context.Context, r *run, wg *sync.WaitGroup) (stop func())
}

// startWays starts every way beside the poll and returns what stops them. A way of the
// caller's runs on its own goroutine (joined through wg); its Result makes the wait poll.
func (c *Client) startWays(ctx context.Context, r *run, wg *sync.WaitGroup) (stop func()) {
	var stops []func()
	for _, w := range c.ways(r.o) {
		if b, ok := w.(builtin); ok {
			if s := b.start(ctx, r, wg); s != nil {
				stops = append(stops, s)
			}
			continue
		}
		wg.Go(func() { c.runWay(ctx, w, r.it, r.kick) })
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// runWay runs a caller's way: its Result wakes the wait to confirm it, its error is logged.
func (c *Client) runWay(ctx context.Context, w Waiter, it *Interrupt, kick func()) {
	r, err := w.Wait(ctx, it)
	switch {
	case r != nil && err == nil:
		kick()
	case err != nil && ctx.Err() == nil:
		c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: a waiter failed; the others carry on",
			slog.String("id", it.ID()), slog.String("err", err.Error()))
	}
}

type pollWay struct{ c *Client }

func (w pollWay) Wait(ctx context.Context, it *Interrupt) (*Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []Waiter{}})
}

func (pollWay) start(context.Context, *run, *sync.WaitGroup) func() { return nil }

type streamWay struct{ c *Client }

func (w streamWay) Wait(ctx context.Context, it *Interrupt) (*Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []Waiter{w}})
}

func (w streamWay) start(ctx context.Context, r *run, wg *sync.WaitGroup) func() {
	c, cs := w.c, r.it.Case
	eventsURL := c.eventsURL(r.it)
	if eventsURL == "" {
		return nil
	}
	s := &transport.Subscriber{Client: c.service, Authorize: c.authorizer(r.it, eventsURL, r.auth), Logger: c.logger}
	if r.o.From != nil {
		s.LastEventID = r.o.From.LastEventID
	}
	// A terminal event decides only from the poll URL's own origin.
	trusted := httpx.OriginOf(eventsURL) == httpx.OriginOf(cs.PollURL)
	r.streams = true
	wg.Go(func() { c.follow(ctx, r, eventsURL, s, trusted) })
	return nil
}

type callbackWay struct{ c *Client }

func (w callbackWay) Wait(ctx context.Context, it *Interrupt) (*Result, error) {
	return w.c.Wait(ctx, it, &WaitOptions{Ways: []Waiter{w}})
}

func (w callbackWay) start(_ context.Context, r *run, _ *sync.WaitGroup) func() {
	cb, cs := w.c.callbacks, r.it.Case
	if cb == nil {
		return nil
	}
	return cb.watch(cs.CaseID, func() {
		if res := cb.outcome(cs); res != nil {
			r.settle(res)
			return
		}
		r.kick()
	})
}
