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
//
// # Telemetry
//
// Every wait of the module's clients — hitl's Client.Do, Wait and Resume and its
// RoundTripper, a2a's Client.Run, hxp's and hi's Client.Wait, hi.FanOut — is one
// OpenTelemetry span, a child of the span in the caller's context, from the moment a human is
// needed (before the question is forwarded) to the Result; the requests it sends (polls,
// event streams, task queries, the HXP WebSocket handshake) carry its trace context through
// the configured propagator. Only the OpenTelemetry API is used: the providers are
// [WithTracerProvider] and [WithMeterProvider], the global ones by default; while no tracer
// provider is installed no span is started, and instruments of a provider without a reader
// record nothing. A wait of one's own on [Wait] runs inside its caller's span and adds
// nothing. One audit [Record] per Result goes to [WithAudit]'s hook; every client's Pending
// method lists the questions still open.
//
// The span is named hitl.wait (kind client). Its names, where OpenTelemetry's semantic
// conventions have none, are in the hitl.* namespace:
//
//	name                       where                      value
//	hitl.protocol              span, every metric         hitl, a2a, hxp, hi
//	hitl.kind                  span                       the interrupt's kind (hitl, a2a/input-required, hxp/approve, hi/fanout, …)
//	hitl.id                    span                       the protocol's id: case, task, request, interaction
//	hitl.review_type           span                       the HITL review type (approval, input, …)
//	hitl.status                span, decision.duration    completed, expired, cancelled, rejected, failed
//	hitl.decision              span, decision.duration    approve, reject, answer, or "" when no person decided
//	hitl.default_applied       span                       true when an expiry applied the default action
//	hitl.learned_by            span                       poll, stream (event stream, A2A stream, WebSocket, a Waiter) or callback (signed callback, A2A push)
//	hitl.polls                 span                       polls answered
//	hitl.push.wakes            span                       wake-ups from push sources
//	error.type                 span, event                the error's Go type (*transport.StatusError), canceled or deadline_exceeded
//	http.response.status_code  hitl.poll event            the poll's HTTP status (0: none came)
//	hitl.poll.outcome          hitl.poll event            waiting, decided, not_modified, transient, failed
//
// Events: hitl.forwarded (the question was put to a human), hitl.forward_failed,
// hitl.poll (each poll answered), hitl.push.wake, hitl.push.settle (a push source brought the
// outcome), hitl.push.reconnect (a stream or socket started again). A wait that ends in an
// error has status Error with the error.type as its description: an error's text is never
// recorded, since it may name what a caller or a service wrote.
//
// Metrics (instrumentation scope github.com/hitlkit/hitlkit):
//
//	hitl.wait.open          up-down counter  {wait}     waits not yet ended, by protocol
//	hitl.decision.duration  histogram        s          question to Result, by protocol, status and decision
//	hitl.wait.requests      counter          {request}  requests sent by waits (polls, streams, task queries), by protocol
//	hitl.push.reconnects    counter          {reconnect} push sources started again, by protocol
//	hitl.forward.failures   counter          {failure}  forwarders and askers that failed, by protocol
//
// With no SDK installed the instrumentation costs a wait two allocations (its observation
// and the context carrying it) and no measurable time. Measured 2026-11-26 on hitl's
// BenchmarkPollRoundTrip/Wait (one Wait that polls once, against the fake on loopback), the
// commit before the instrumentation against the one that added it, two runs each of
// instructions per Wait counted by callgrind (differencing 300 and 1,500 iterations:
// GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind ./hitl.test -test.run '^$'
// -test.bench 'PollRoundTrip/Wait' -test.benchtime 1500x -test.cpu 1) on a machine at load
// average about 20, where wall-clock figures are not comparable:
//
//	                      before            after
//	instructions per Wait 394,309–395,755   390,126–390,335   (−1.2 %)
//	allocations per Wait  185               188               (+1.6 %)
//	bytes per Wait        15,063–15,130     15,415–15,436     (+2.3 %)
//
// Nothing secret reaches telemetry: no token, credential, URL, query, prompt or answer; ids
// are the protocols' ids. examples/telemetry holds the tests that check it with the SDK's
// in-memory exporters (TestNoSecretInTelemetry sends secrets through every path and scans
// every span, event, metric and audit record), and an Example printing a wait through the
// SDK's stdout exporters.
package transport
