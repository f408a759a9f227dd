// Package hi implements HumanInteraction (the HI protocol for agents): a message an agent's
// model writes to say what it needs from which people, and decisions that need several of
// them.
//
// [Parse] reads a model's message leniently in form and strictly in meaning, returning every
// problem at once with its JSON path ([*ParseError]; ForModel renders them for the model).
// [Schema] is the message's JSON Schema for structured-output APIs. [Evaluate] applies a
// resolution policy (first_response, majority, all_required, quorum:N) to the responses and
// explains the tally. [Client] talks to an HI endpoint (the spec's illustrative routes) and
// waits for resolution by polling. [FanOut] asks each participant over HITL or HXP at once
// and resolves as soon as the policy decides, stopping the waits no longer needed.
//
// # Clients
//
// As every client in hitlkit: NewClient(baseURL, opts ...transport.Option) with package
// transport's common options (WithHTTPClient, WithLogger, WithAuthorization with a
// [transport.Credential], WithPollInterval, WithMaxBody, WithRequestTimeout,
// WithMaxPollsInFlight, WithAllowPrivateAddresses). The endpoint must be
// at an https URL on a public address unless those options say otherwise.
//
// # Bounded work
//
// [Parse] reads a message in time linear in its size. Measured with
//
//	go test -run '^$' -bench 'BenchmarkParse$' ./hi
//
// on messages of many participants, a long history, many keys that normalise alike, a long
// digit run, deep nesting and a string of escapes, the CPU time per byte (cpu-ns/B) on a
// loaded 2-core machine at 1 KiB, 64 KiB and 1 MiB, over the shapes: 35–408, 8–496,
// 0.7–411. The dearest shape, a list of participants (each id case-folded and normalised),
// takes about 0.4 s for 1 MiB.
package hi

import "errors"

// ErrUnsupportedAction: an action the interaction does not allow (HI §2.4, 400); match with
// errors.Is. An unknown interaction (404) is [transport.ErrNotFound].
var ErrUnsupportedAction = errors.New("hi: unsupported action")
