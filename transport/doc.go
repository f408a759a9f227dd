// Package transport is the one wait engine of hitlkit and the vocabulary every protocol
// shares: the [Result] every wait yields, [Credential], [Waiter], the errors and the options
// every client takes.
//
//	w := &transport.Wait[*transport.Result]{
//		URL:    "https://approvals.example/42", // the source of truth, polled within its Retry-After
//		Decode: decode,                          // yours: a 200's body to (result, done, error)
//		Push:   pushes,                          // optional: sources that wake the wait or settle it
//	}
//	res, err := w.Run(ctx)
//	if err != nil {
//		return err // the outcome is unknown
//	}
//	if !res.Approved() {
//		return nil // no go-ahead: a no, an expiry (whatever its default), a cancellation, a failure
//	}
//
// The example of Wait is this in full, against a service of its own.
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
// # Options and contexts
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
// Every wait of the module's clients — hitl's Client.Do, Wait and Resume and its RoundTripper,
// a2a's Client.Run and Client.Wait, hxp's and hi's Client.Wait, hi.FanOut — is one
// OpenTelemetry span, a child of the span in the caller's context, from the moment a human is
// needed (before the question is forwarded) to the Result; the requests it sends (polls, event
// streams, task queries, the HXP WebSocket handshake) carry its trace context through the
// configured propagator. Only the OpenTelemetry API is used: the providers are
// [WithTracerProvider] and [WithMeterProvider], the global ones by default; while no tracer
// provider is installed no span is started, and instruments of a provider without a reader
// record nothing. A wait of one's own on [Wait] runs inside its caller's span and adds
// nothing. a2a's Client.Wait returns a task, not a decision: its span has no hitl.status or
// hitl.decision, and it adds no decision latency and no audit record. The integration modules
// (hitladk, hitleino, hitlgenkit, hitlslack, hitlmcp, hitlmcpgo, temporal) wait through the
// hitl.Client they are given: their waits are its spans, audit records and Pending entries.
// hitlmcp's and hitlmcpgo's tools wait once per tool call, for at most their Check: a call
// that returns before the human decided is a span that ends undecided (no status, no error:
// the question is still open; TestPausedWaitIsNoError), and the call that brings the
// decision is the span with it. One audit [Record] per Result
// goes to [WithAudit]'s hook; every client's Pending method lists the questions still open.
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
//	hitl.learned_by            span                       poll (the source of truth; what A2A streams and pushes wake), stream (event stream, a Waiter), websocket (HXP) or callback (signed)
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
// With no SDK installed the instrumentation costs a wait three allocations (185 → 188 per
// Wait below: its observation and the context carrying it) and no measurable time. Measured 2026-11-26 on hitl's
// BenchmarkPollRoundTrip/Wait (one Wait that polls once, against the fake on loopback), the
// commit before the instrumentation (4627de8^) against the one that added it (4627de8), two
// runs each of
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
// Measured again 2026-11-26 on commit 1a6beaf, after the trace context moved into the
// service client's address guard (the same command, two runs): 396,029–399,137
// instructions per Wait, within 1.3 % of the commit before the instrumentation; and on
// fc2e2fc, whose wait path is the same (go test -run '^$' -bench PollRoundTrip -benchmem
// -count 3 ./hitl/), 187–188 allocations and 15,475–15,571 bytes per Wait.
//
// Nothing secret reaches telemetry: no token, credential, URL, query, prompt or answer; ids
// are the protocols' ids. examples/telemetry holds the tests that check it with the SDK's
// in-memory exporters (TestNoSecretInTelemetry sends secrets through every path and scans
// every span, event, metric and audit record), and an Example printing a wait through the
// SDK's stdout exporters.
//
// # Errors
//
// Completed (whatever the action: a
// reject is a completed case), expired (DefaultApplied set, Action empty) and cancelled
// are Results. Errors are typed: *hitl.InvalidError names each broken field
// (errors.Is(err, hitl.ErrInvalid)), *transport.StatusError matches ErrNotFound (404, 410)
// and ErrUnauthorized (401, 403); ErrPastExpiry when expires_at plus a grace passed
// without the service saying so; otherwise context.Cause(ctx).
//
// # Pacing
//
// Retry-After (seconds or HTTP-date) on 200, 304, 429 and 503, clamped to
// [1 s, 5 min] (WithPollIntervals); 30 s when the service gives none; jittered exponential
// backoff on 429, 5xx, timeouts and network errors, which never end a wait. Polls never follow
// redirects. At most 1,000 polls of one service are in flight at once per client
// (WithMaxPollsInFlight); the rest wait their turn, so a restart that resumes thousands of
// waits, or a service slower than the pace it asked for, queues polls in the agent instead of
// opening connection after connection. The A2A, HXP and HI clients bound theirs the same way
// (the same transport.WithMaxPollsInFlight); the A2A waits of a hitl.Client share its
// bound.
//
// # Event streams
//
// Reconnect with Last-Event-ID after a drop, a clean close, or 90 s
// without a byte (heartbeat comments count), after the server's retry: or Retry-After or a
// jittered backoff, all within [1 s, 1 min]; an event cut off by a drop is never delivered, and
// one the server sends again is dropped. Events may be up to 1 MiB. A notification is the
// Result by itself only when it carries the complete outcome and comes from the service's own
// stream (or is a signed callback the caller chose to trust); otherwise it makes the wait poll,
// and no poll follows another within a second. A terminal event that is unreadable or about
// another case decides nothing and ends the following of that stream; polling carries on.
//
// Bodies are bounded in size and time: Do reads a 202 or A2A body within 30 s
// (WithReadTimeout; ErrBodyTimeout) whatever the caller's context, each poll has its own
// 30 s timeout, and event streams have a 90 s idle watchdog: leave the http.Client's
// Timeout at 0, which would otherwise cut every long-lived stream.
//
// # Security
//
// Every client (hitl, a2a, hxp, hi) keeps the same address rules, in one
// implementation: service and agent URLs must be HTTPS (transport.WithAllowPrivateAddresses
// admits http://localhost and http://127.0.0.1 for development); any other URL is refused before a
// request is sent (transport.ErrRefusedAddress), and hxp and hi refuse such a base URL in
// NewClient. The agent's credential goes only to the origin the agent called — the first
// request of a redirect chain, never the host a redirect pointed at (hitl.WithTrustedOrigins
// widens that); no request a client makes itself (polls, event streams, task queries, submits,
// HXP and HI calls) follows a redirect (TestNoRedirectFollowed). Service URLs (from a 202, an
// A2A endpoint, an HXP or HI base) are dialled through a dialer that resolves the host itself
// and refuses hosts that resolve to loopback, private, link-local or unspecified addresses
// (transport.ErrRefusedAddress again; transport.WithAllowPrivateAddresses lifts it; a RoundTripper of your own that is not
// an *http.Transport is not wrapped, so check addresses in its dialer). TestAddressRules holds every client to these rules. Review tokens and credentials never appear in logs, error strings, or a
// Case's String/GoString/LogValue; what a server echoes back into an error is cut to a
// few hundred bytes and has every secret of the request replaced by [redacted]. Logging is
// off unless you pass a *slog.Logger.
//
// # Security: what the tests hold
//
//   - Every client (hitl, a2a, hxp, hi) keeps the address rules above, in one implementation
//     (TestAddressRules).
//   - A host name that resolves to loopback, private, link-local, unspecified, IPv4-mapped,
//     NAT64 or IPv4-translated addresses of those: the clients' dialer checks every resolved
//     address and dials the one it checked; the refusal ends the wait at once — the loopback
//     server is reached 0 times, and once with loopback allowed
//     (TestPublicDialerRefusesWhatNamesResolveTo, TestServiceURLsDialPublicOnly).
//   - No request a client makes itself (polls, event streams, task queries, submits, HXP and HI
//     calls) follows a redirect (TestNoRedirectFollowed).
//   - Every wait leaves no goroutine behind on any path: the time-based tests run under
//     testing/synctest, which fails on a leaked goroutine, and every package's tests end with a
//     goleak check.
//
// # Bounded work
//
// A [Webhook] reads a body up to MaxBody (64 KiB by default), computes its MAC once, and
// hands it to the Parse it was given only when the MAC verifies: linear in the body, plus
// what that Parse costs. Measured with
//
//	go test -run '^$' -bench Webhook -benchtime 3x ./transport
//
// (2026-11-26, a 2-core machine at load average 2–4; MaxBody raised to 2 MiB so that 1 MiB is
// read) on signed bodies holding a long digit run, deep nesting, many keys, one key repeated
// or a string of escapes, with a Parse that decodes the body with encoding/json, the CPU time
// per byte (cpu-ns/B) at 1 KiB, 64 KiB and 1 MiB, over the shapes: 53–124, 10–18, 4–19.
//
// # Fuzzing
//
// FuzzWebhook sends [Webhook] any body and signature: it answers without panicking and wakes
// a wait only for a body signed under the secret. The building blocks under internal/ have
// fuzz targets of their own beside the protocol packages': FuzzRead and FuzzConnect
// (internal/sse, the event-stream reader), FuzzRetryAfter (internal/httpx), FuzzParse
// (internal/duration, ISO 8601 and Go durations), FuzzOpen (internal/kv, the store file's
// page check), FuzzLooseIPv4 (internal/dial, the spellings of private hosts), FuzzCompile
// (internal/pattern, the bound on a form's or a PROVIDE's pattern) and FuzzEdit and
// FuzzUnknown (internal/toolgate, a person's edit of a tool's arguments, for hitleino and
// hitlgenkit). go test runs their seed corpora; CI runs each on 20,000 generated inputs more.
//
// # Dependencies
//
// The core module's dependencies, each pinned in go.mod and, but for the OpenTelemetry API,
// used only behind internal/ (none of their types is in a public API):
//
//   - github.com/hashicorp/go-retryablehttp v0.7.8: what for: retries of the discovery
//     document (internal/retry: its logging off, GET and HEAD only)
//   - github.com/cenkalti/backoff/v4 v4.3.0: what for: jittered exponential backoff
//     (internal/backoff)
//   - github.com/coder/websocket v1.8.15: what for: the HXP WebSocket (internal/ws)
//   - golang.org/x/text v0.41.0: what for: case folding and normalisation of HI identifiers
//   - go.etcd.io/bbolt v1.4.3: what for: the file store, hitl/filestore only: importing hitl
//     links no bbolt
//   - go.opentelemetry.io/otel, go.opentelemetry.io/otel/metric and
//     go.opentelemetry.io/otel/trace v1.46.0: what for: the telemetry ("Telemetry" above); the
//     API only, no SDK. Its provider types are the only third-party types in the public API,
//     the parameters of [WithTracerProvider] and [WithMeterProvider]
//   - github.com/google/go-cmp v0.7.0, go.uber.org/goleak v1.3.0: what for: tests only
//
// ISO 8601 durations (timeout) are read by internal/duration's own one-pass reader, without
// a dependency.
//
// Vulnerabilities. The check is govulncheck ./... in each module (go install
// golang.org/x/vuln/cmd/govulncheck@v1.9.0); it reads the Go vulnerability database online, so
// CI does not run it. hitl/hitladk pins google.golang.org/grpc v1.85.0 (GO-2026-6061 is fixed
// in v1.82.1), go.opentelemetry.io/otel v1.46.0 (GO-2026-5158), golang.org/x/net v0.62.0
// (GO-2026-5942) and golang.org/x/crypto v0.58.0, which need Go 1.26; hitl/temporal,
// hitl/temporal/servertest, examples/durable and a2a/interop pin the same grpc and
// x/net (and servertest the same otel and x/crypto). otel stays at v1.46.0:
// v1.47.0 moves otel/log to v1.47.0, whose API ADK Go v2.0.0's telemetry does not compile
// against. The root module and hitl/hitlmcp pin golang.org/x/sys v0.47.0, the newest for Go
// 1.25.
//
// Not used: r3labs/sse/v2, the event-stream client the design first named. It has been
// unmaintained since January 2023: the fixes for its context handling and for the goroutine its
// read loop leaks after an unsubscribe were never merged (r3labs/sse#178 is still open), it
// requires a golang.org/x/net from 2019, and it hands every event from its own goroutine to
// the caller's over a channel. The official Go SDKs of both protocols we stream from, a2a-go
// and the MCP Go SDK, read their own streams too. hitlkit's reader (internal/sse) reads on the
// caller's goroutine and is tested against the WHATWG event-stream grammar where servers
// differ or get it wrong: LF, CR and CRLF line ends, mixed; a leading byte order mark; NUL in
// id:; retry: values that are not a number of milliseconds; a last event cut off by the end
// of the stream (never delivered); an event over the size limit — each read whole, byte by byte
// and in halves (TestReadGrammar), as real servers send them (TestSubscribeParsing), and
// under two fuzz targets (FuzzRead: the same events however the bytes arrive; FuzzConnect).
package transport
