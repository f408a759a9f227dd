// Package hxp is a client for Human Execution Protocol v0.1 servers: an agent asks a human to
// APPROVE an item, DECIDE among options, or PROVIDE a value, and gets back a receipt, read as a
// [transport.Result] whose Approved is the only go-ahead.
//
//	client, err := hxp.NewClient("https://hxp.example", transport.WithAuthorization(transport.StaticToken(agentKey)))
//	if err != nil {
//		return err
//	}
//	created, err := client.Create(ctx, &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600,
//		Approve: &hxp.Approve{Item: "Stripe plan at $99/mo", Details: json.RawMessage(`{"plan":"pro"}`)}})
//	if err != nil {
//		return err
//	}
//	res, err := client.Wait(ctx, created, nil) // the WebSocket, with polls underneath until the end
//	if err != nil {
//		return err // the outcome is unknown
//	}
//	if !res.Approved() {
//		return nil // rejected, timed out or cancelled
//	}
//
// A yes or no is an APPROVE. A DECIDE's chosen option is an answer, not an approval, whatever
// its words: its Result has Decision answer, the option's text as Action, and Approved false
// even for an option called "Approve"; read the option from Action. Package hxptest is a fake
// server for tests.
//
// # Requests and receipts
//
// [Client.Create] validates a [Request] against the spec (2–6 options, context ≤ 500
// characters, default_option among the options, input types, well-formed validation) and
// sends nothing when it fails. [Client.Wait] polls the request for the whole wait, the
// source of truth; when the server offers a WebSocket (either URL shape in use) it
// subscribes first and polls beside it, so a completion pushed over the socket ends the wait
// at once and a socket that fails only makes the decision known later. The receipt becomes
// the shared [transport.Result]. A default option the server applied on
// timeout (completed_by "system") is an expiry with DefaultApplied, never a human decision.
// [Receipt.Check] checks a result against its request; [Receipt.VerifyEvidence] recomputes
// the evidence hash when the caller holds the server's secret, with the spec's formula or
// the one the reference server uses.
//
// The human side ([Client.Inbox], [Client.Resolve]) serves human clients and tests. Errors
// of §5.3 are [*APIError] values matched with errors.Is against ErrBadRequest,
// transport.ErrUnauthorized, transport.ErrNotFound, ErrTimedOut, ErrAlreadyResolved and ErrInvalidResolution.
//
// Where the spec and the only public server disagree (hxptest can play either), the client
// accepts both: WebSocket URLs as /hxp/ws/{id} or /hxp/ws?request_id={id}, endpoints under a
// configurable prefix, both evidence formulas, timeouts ending with or without a receipt.
//
// # Clients
//
// As every client in hitlkit: NewClient(baseURL, opts ...transport.Option) with package
// transport's common options (WithHTTPClient, WithLogger, WithAuthorization for the agent's
// key as a [transport.Credential], WithPollInterval, WithMaxBody, WithRequestTimeout,
// WithMaxPollsInFlight, WithAllowPrivateAddresses) and this package's
// own: [WithHumanAuthorization] for the human's token, [WithAPIPrefix].
//
// # Receipts and waits
//
// Create validates everything the spec bounds before sending (*hxp.RequestError names each
// field). The receipt becomes the same Result as a HITL case: the chosen option or
// approved/rejected as Action; a PROVIDE's value is Data only, never an Action, and is
// left out of a printed Result and logs; a default option applied on timeout is an expiry with
// DefaultApplied. The receipt itself travels in Result.Receipt, byte for byte:
// hxp.ReceiptOf(res) gives it back with completed_at and evidence_hash exactly as sent, so
// Receipt.VerifyEvidence (for callers holding the server secret) needs no second request;
// WaitOptions{CheckReceipt: true} runs Receipt.Check against the request before returning. A
// reason may be any JSON value (Receipt.ReasonRaw; Reason is its text when it is a string).
//
// Every wait ends. Wait subscribes to the WebSocket first and then polls, and keeps polling
// at the poll interval underneath it for the whole wait: a WebSocket that stays silent (the
// reference server replays only completed receipts, so a request cancelled or expired before the
// subscription sends nothing), a handshake that never answers, or a server restart leave the
// polls to find the outcome. A receipt on the WebSocket decides at once only when it comes from
// the server's own origin and names this request; anything else makes the polls look at once.
// Every request and the handshake are bounded by 30 s (WithRequestTimeout); a polling wait
// sends at most ⌈T/R⌉+1 polls; a failing poll is the same *hxp.APIError on the first poll and
// the tenth; an answer for another request is an error matching transport.ErrMismatch; a record that cannot
// be read is hxp.ErrMalformed, never retried. The client follows no redirect.
//
// Cancel, List, and the human side (Inbox, Resolve) are there too. hxp/hxptest is a fake
// server with two profiles, and the tests run against both: ProfileSpec (the specification)
// and ProfileReference (the reference server: ws://localhost:PORT/hxp/ws?request_id=, a
// WebSocket that asks for no key — called at another host, the client sends it none and a
// pushed receipt only makes it poll at once —, receipts-only replay, any JSON as the reason, pause and fail timeouts ending as expired without
// a receipt, a default applied on timeout reported as completed by system, evidence over
// id:JSON(result):completed_at:secret, PROVIDE answers not validated, list limits not capped).
//
// # Reliability and security: what the tests hold
//
//   - 503s, 401; WebSocket dropped mid-wait; timeouts with each fallback: outcome: the
//     decision, a typed error, or polling; test: TestPollFaults, TestWebSocketDrop,
//     TestTimeouts
//
//   - a silent WebSocket after a cancel or expiry (reference profile), a handshake that never
//     answers, a request that never answers, an unreadable record, a 404 on the first or third
//     poll: outcome: the outcome from the polls underneath; the request timeout; ErrMalformed
//     at once; the same *APIError; test: TestEveryHXPWaitEnds, TestAnyJSONReason,
//     TestNoRedundantPoll
//
//   - An agent stopped mid-wait that saved its created requests as JSON gets, after a restart
//     with a new client, every decision made while it was down (TestRestartLosesNoDecision).
//
//   - A receipt for another request is never the Result: an error matching
//     transport.ErrMismatch, naming both ids (TestReceiptForAnotherRequest).
//
//   - The agent key goes only to the server's origin and the human token only to the human
//     endpoints; no request or WebSocket handshake follows a redirect: a server redirecting to
//     another port reaches it 0 times (TestNoRedirectFollowed).
//
//   - A server echoing the agent key or the human token in an error, padded to 100 KB: redacted,
//     and the error cut under 400 bytes (TestEchoedSecretsStayOutOfErrors).
//
//   - FuzzStateAndMessage runs poll answers and WebSocket messages.
//
// # Bounded work
//
// A server's answers cost work linear in their size: a PROVIDE value is matched against the
// request's pattern within a fixed budget (a pattern is at most 1,000 compiled instructions,
// see [Validation]), an email address is read only up to 254 bytes. Measured with
//
//	go test -run '^$' -bench StateAndMessage ./hxp
//
// on poll answers and WebSocket messages holding a long value checked against a pattern,
// deep nesting, a long digit run or many members, the CPU time per byte (cpu-ns/B) at 1 KiB,
// 64 KiB and 1 MiB, over the shapes (2026-11-26, commit 104c589, one run on a 2-core machine
// at load average about 15): 59–298, 9.5–103, 0.8–105.
package hxp
