// Package transport is the one wait engine of hitlkit and the vocabulary every protocol
// shares: the [Result] every wait yields, [Credential], [Waiter] and the errors.
//
// A [Wait] polls the source of truth — paced by the server: Retry-After, ETag and 304, 429
// and 5xx backoff, a bound on polls in flight ([Slots]) — while any number of push sources
// ([Push]: an event stream, callbacks, an A2A stream or push notification, a WebSocket, a
// caller's [Waiter]) run beside the polls. A push source can only make the wait poll at
// once, or, when it holds the complete outcome from a source the caller trusts, settle it.
// A source that drops is started again with backoff for as long as the wait lasts. The waits
// of hitl, a2a, hxp and hi are configurations of it; a new protocol's wait can be written on
// it alone (see the example). It knows nothing of what a response means: Decode does.
//
// # Cancellation
//
// Every call takes a context first. When it ends, waits return context.Cause(ctx) promptly and
// leave no goroutine behind. Give the context a deadline with a cause
// (context.WithDeadlineCause) to tell a case's expiry from the caller's own cancel.
package transport
