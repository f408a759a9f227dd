// Package transport is the one wait engine of hitlkit and the vocabulary every protocol
// shares: the [Result] every wait yields, [Credential], [Waiter], the errors and the options
// every client takes.
//
// A [Wait] polls the source of truth, paced by the server (Retry-After, ETag and 304, 429
// and 5xx backoff, a bound on polls in flight), while push sources — an event stream,
// callbacks, an A2A stream or push notification, a WebSocket, a caller's [Waiter] — run
// beside the polls. A push source can only make the wait poll at once or, when it holds the
// complete outcome from a source the caller trusts, settle it; one that drops is started
// again with backoff for as long as the wait lasts. The waits of hitl, a2a, hxp and hi are
// configurations of it, and a new protocol's wait can be written on it alone (see the
// example, and examples/acme for a complete protocol), with what theirs have: [Temporary]
// marks a decode error transient, [Slots] bound the polls in flight per origin across waits,
// a [Webhook] receives a service's signed notifications and wakes the waits they concern,
// and package transporttest serves a fake service in memory, so that a wait runs in a
// testing/synctest bubble.
//
// Every client's NewClient (hitl, a2a, hxp, hi) takes [Option] values: the With functions
// here, one name and one implementation each, mixed with the protocol package's own. A
// client of one's own takes them the same way: [NewConfig] applies them with the same rules
// and errors, and gives the HTTP client, credential (sent to one origin only), logger,
// bounds and poll slots every client of the module builds on; [Own] makes its own options.
// Every client keeps the same address rules — https only, public addresses only, unless
// [WithAllowPrivateAddresses] — and refuses a request they forbid before it is sent
// ([ErrRefusedAddress]); so does a [Wait] given no Client, and a Config's Service.
//
// Every call takes a context first. When it ends, waits return context.Cause(ctx) promptly
// and leave no goroutine behind; give the context a deadline with a cause
// (context.WithDeadlineCause) to tell a case's expiry from the caller's own cancel.
package transport
