// Package transport is the one wait engine of hitlkit and the vocabulary every protocol
// shares: the [Result] every wait yields, [Credential], [Waiter] and the errors.
//
// A [Wait] polls the source of truth — paced by the server: Retry-After, ETag and 304, 429
// and 5xx backoff, a bound on polls in flight — while any number of push sources
// ([Push]: an event stream, callbacks, an A2A stream or push notification, a WebSocket, a
// caller's [Waiter]) run beside the polls. A push source can only make the wait poll at
// once, or, when it holds the complete outcome from a source the caller trusts, settle it.
// A source that drops is started again with backoff for as long as the wait lasts. The waits
// of hitl, a2a, hxp and hi are configurations of it; a new protocol's wait can be written on
// it alone (see the example). It knows nothing of what a response means: Decode does.
//
// # Clients
//
// [Option] is the one option type every client's NewClient takes (hitl, a2a, hxp, hi). The
// options all clients share are here, one name and one implementation each: [WithHTTPClient],
// [WithLogger], [WithAuthorization] (a [Credential]: [StaticToken] or a function of one's own),
// [WithMaxBody], [WithMaxPollsInFlight], [WithPollInterval], [WithRequestTimeout],
// [WithAllowLocalHTTP] and [WithAllowPrivateAddresses]; each protocol package adds its own.
// Every client keeps the same address rules: https only (http on localhost with
// WithAllowLocalHTTP, else [ErrInsecureURL]) and public addresses only (else
// [ErrPrivateAddress]).
//
// # Cancellation
//
// Every call takes a context first. When it ends, waits return context.Cause(ctx) promptly and
// leave no goroutine behind. Give the context a deadline with a cause
// (context.WithDeadlineCause) to tell a case's expiry from the caller's own cancel.
package transport
