package transport

import "context"

// Waiter is one way of learning the outcome of a paused exchange of kind T — a HITL case, an
// HXP request, an A2A task — or of a way of one's own: a chat button, a queue consumer, a
// workflow engine's signal. Wait blocks until it learns the outcome, or until ctx ends
// (returning context.Cause(ctx)). Implementations must be safe for concurrent use and leave
// no goroutine behind when Wait returns.
//
// Each protocol's client offers its own wait as a Waiter (hitl.Client's ways,
// hxp.Client.Waiter, a2a.Client.Runner), so a framework can hold any of them the same way.
type Waiter[T any] interface {
	Wait(ctx context.Context, pending T) (*Result, error)
}
