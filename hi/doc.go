// Package hi implements HumanInteraction (the HI protocol for agents): a message an agent's
// model writes to say what it needs from which people, and decisions that need several of
// them, fanned out over HXP or HITL and resolved by a policy into one [transport.Result] whose
// Approved is the only go-ahead.
//
//	interaction, err := hi.Parse(modelOutput) // every problem at once; ParseError.ForModel for the model
//	if err != nil {
//		return err
//	}
//	ask := hi.OverHXP(hxpClient, func(it *hi.Interaction, p hi.Participant) *hxp.Request {
//		return &hxp.Request{AgentID: p.ID, Approve: &hxp.Approve{Item: it.AgentOutput.Summary, Details: details}}
//	})
//	res, tally, err := hi.FanOut(ctx, interaction, ask, nil) // one request per participant
//	if err != nil {
//		return err // the outcome is unknown
//	}
//	if !res.Approved() {
//		return nil // the policy did not approve: tally says why
//	}
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
// # Policies and fan-out
//
// hi implements HumanInteraction, a message an agent's model writes to say what it needs from
// which people. hi.Parse forgives form (snake_case keys, enum and action case, numbers as
// strings, the object inside one Markdown ```json fence) and reports every problem of meaning
// at once, each at its JSON path; a reply that is not one JSON object gets the syntax error's
// line and column, or "the reply must be only the JSON object". ParseError.ForModel() is the
// text to send back to the model, and hi.Schema() the JSON Schema for structured output. An
// agent-initiated message needs its agentInstanceId. With an error, Parse returns no
// Interaction.
// Resolution policies — first_response, majority (of the participants, over any action),
// all_required, quorum:N — are evaluated by hi.Evaluate, one vote per participant (a later
// vote replaces an earlier one until the interaction resolves; votes after it, from
// non-participants or with actions not offered are refused), with the tally explained.
//
// all_required is the spec's name without a definition; here every participant must choose
// the same action, and a no from any of them is a rejection (Decision reject, by that person),
// not a conflict.
//
// FanOut asks everyone at once (over HXP, or HITL with hi.OverHITL) and returns as soon as
// the answers still to come cannot change the outcome — all_required at the first no,
// majority or quorum as soon as no action can reach it — since each participant answers
// once: the waits still open are stopped, and HXP requests no longer needed are cancelled.
// Over either protocol every decision is the participant's response: a rejection a reject
// vote, an expiry or cancellation an abstention; only an error leaves the answer unknown.
// hi.Client talks to an HI endpoint at the spec's illustrative routes.
//
// # Reliability and security: what the tests hold
//
//   - A model writing participants and __participants__, or resolution_policy and
//     resolutionPolicy: a ParseError naming both keys, the same on every parse
//     (TestKeysThatNormaliseAlike).
//   - Participant ids are compared after NFKC and case folding; invisible or look-alike ids
//     (ana + U+200B, U+202E + ana, Cyrillic а, Greek α, a soft hyphen) are a ParseError;
//     a response from P1 or Ｐ1 is p1's one vote (TestParticipantIdentity,
//     FuzzParticipantKey).
//   - A message naming 101 participants is refused before anyone is asked
//     (FanOutOptions.MaxParticipants raises the limit of 100); responses are tallied in constant
//     time each (TestFanOutParticipantLimit; BenchmarkFanOut, figures in examples/scale's
//     README).
//   - A participant's no over HITL is their reject vote, never dropped: under first_response
//     a no before a yes is the Result (TestFanOutOverHITLRejection); under all_required the
//     first no ends FanOut with that rejection, the others' waits stopped
//     (TestFanOutEndsWhenSettled, TestFanOutOverHITLAllRequiredNo).
//   - An answer about another interaction is never the Result: an error matching
//     transport.ErrMismatch (TestWaitNeverReturnsAnotherInteraction).
//   - A reply with prose around the object, invalid JSON or another kind of value is one
//     problem at "$" saying what to fix, with the line and column of a syntax error
//     (TestParseForm); FuzzParse runs the message parser, and checks that no Interaction
//     comes with an error.
//
// # Bounded work
//
// [Parse] reads a message in time linear in its size. Measured with
//
//	go test -run '^$' -bench 'BenchmarkParse$' ./hi
//
// on messages of many participants, a long history, many keys that normalise alike, a long
// digit run, deep nesting and a string of escapes, the CPU time per byte (cpu-ns/B) at 1 KiB,
// 64 KiB and 1 MiB, over the shapes (2026-11-26, commit 24e1b4e, a 2-core machine at load
// average under 1): 28–326, 10–315, 0.7–358. The dearest shape, a list of participants (each
// id case-folded and normalised), takes about 0.3 s for 1 MiB.
package hi

import "errors"

// ErrUnsupportedAction: an action the interaction does not allow (HI §2.4, 400); match with
// errors.Is. An unknown interaction (404) is [transport.ErrNotFound].
var ErrUnsupportedAction = errors.New("hi: unsupported action")
