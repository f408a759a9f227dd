// Package hitl is hitlkit's front door: it recognises that a service or another agent needs a
// human ([Detect]), puts the question in front of the agent's human (a [Forwarder]), waits
// for the decision over whatever the other side offers, and returns one typed [transport.Result].
//
// It speaks the HITL Protocol (v0.5 to v0.8: a 202 with a hitl object, polling with
// Retry-After and ETag, Server-Sent Events, signed callbacks, inline submit, forms,
// reminders, multi-round reviews, discovery), and recognises A2A tasks paused for a human
// (input-required, auth-required, relay holds), which it carries to their end with package
// a2a. [Client.Do] wraps an outbound call: when no human is needed it returns the response
// untouched, with or without a forwarder.
//
// # Decisions
//
// Only [transport.Result.Approved] is a go-ahead. [Client.Do] and [Client.Transport] return
// every other decision — a rejection, an expiry (even when the service's default_action is
// "approve"), a cancellation, a failure, an answer that is not a yes — as a
// [*NotApprovedError] holding the Result and the Interrupt (errors.Is matches
// [ErrNotApproved]), so code that only checks err never goes ahead on a "no"; through
// Transport, only an approval is a 2xx. A caller that reads every decision itself sets
// [CallOptions].EveryDecisionOK. [Client.Wait] returns the Result alone, whatever it is:
// check Approved before acting.
//
// # Clients
//
// Every client in hitlkit is built the same way: NewClient(opts ...transport.Option) — or,
// where a base URL is intrinsic (hxp, hi), NewClient(baseURL, opts ...transport.Option). The
// options every client shares are package transport's ([transport.WithHTTPClient],
// [transport.WithLogger], [transport.WithAuthorization] with a [transport.Credential] such as
// transport.StaticToken("sk-…"), [transport.WithPollInterval], [transport.WithMaxBody],
// [transport.WithRequestTimeout], [transport.WithMaxPollsInFlight],
// [transport.WithAllowPrivateAddresses]); this package's With
// functions are the hitl client's own, of the same type:
//
//	hitl.NewClient(transport.WithHTTPClient(hc), hitl.WithForwarder(f))
//
// A bad option value, or an option of another client, makes NewClient fail with a
// [transport.ErrInvalidOption]. Per-call knobs are a nil-able options struct ([CallOptions],
// [WaitOptions]).
//
// # Waiting
//
// The poll URL is the source of truth, polled for the whole wait within the service's
// pacing; an event or a callback makes it poll at once, unless it carries the complete
// outcome and comes from the service's own stream (or is a verified callback the caller
// trusts, [CallbacksOptions].Decide). A human's answer, an expiry (with the
// default action applied) and a cancellation are Results; an error means the outcome is
// unknown. Every wait ends: at the decision, at the case's expiry plus a grace, or when the
// caller's context does, returning context.Cause(ctx); it leaves no goroutine behind.
//
// # Security
//
// Service URLs must be HTTPS (http://localhost with [transport.WithAllowPrivateAddresses]) and are
// dialled only at public addresses unless [transport.WithAllowPrivateAddresses], as for every
// client in hitlkit. The URL of the call [Client.Do] or [Client.Transport] is given is held
// to the same scheme and address rules before a byte is sent (transport.ErrRefusedAddress,
// naming the option); that call goes through the caller's HTTP client, so a host name is not
// resolved to be checked. The agent's credential goes only to the origin it called, never to a redirect's target; review URLs, tokens and
// credentials never appear in logs or errors. Package hitltest is a fake service for tests.
//
// # Bounded work
//
// What a service sends costs work linear in its size, within the body limit (1 MiB by
// default): a duration (timeout, default_timeout, max_timeout) over 64 bytes is refused
// unread; a form's patterns are sized before they are compiled (1,000 instructions each,
// 20,000 together) and [Form.Check] matches within a fixed budget; an email address is read
// only up to 254 bytes. Measured with
//
//	go test -run '^$' -bench 'Detect|PollBody|StatusEvent|CallbackBody|Discovery|StoreRecord|ParseForm|CheckWorst' ./hitl
//
// on worst-case shapes (long digit runs, deep nesting, many and repeated keys, escapes,
// reminder lists, long timeouts; forms of many fields, options, "in" values or large
// patterns; answers to a form of 500 fields with patterns and conditions), the CPU time per
// byte (cpu-ns/B) on a loaded 2-core machine, at 1 KiB, 64 KiB and 1 MiB, over the shapes:
// Detect 30–74, 15–43, 4–54; a poll answer 16–35, 5–11, 0.3–11; a status event 18–52,
// 4–10, 0.4–11; a callback body 10–51, 5–45, 0.3–11; a discovery document 31–80, 6–34,
// 0.3–34; a stored record 16–50, 4–10, 0.3–12; ParseForm 14–921, 4–36, 0.5–43; Form.Check
// 1,105–1,824, 4–92, 0.15–83 (the 500 fields cost the same whatever the answer's size). No
// shape costs more per byte at 1 MiB than twice what it costs at 1 KiB.
package hitl
