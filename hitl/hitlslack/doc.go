// Package hitlslack makes Slack the place where an agent's human decides: a forwarder posts
// each question as a Block Kit message (the prompt, what is at stake, who asked, when it
// expires, a button per answer and one to the review page), and an interactivity handler
// turns a click into the decision — an inline submission for a HITL Protocol case, the
// answer of an A2A question, the resolution of an HXP request — and shows the outcome on the
// message.
//
// # Setup
//
// Create the [Bot] with a slack-go client holding the app's bot token and the app's signing
// secret; mount [Bot.Handler] at the app's interactivity request URL; give
// [Bot.Forwarder] to the hitl.Client and [Bot.Asker] to its waits; call [Bot.Finish] with
// each Result (or wrap Resume's handler with [Bot.Resumed]). The module's README.md lists
// the Slack app's scopes and settings and has a first program.
//
// # The verdict
//
// A message shows how its question ended from the Result's Status and Decision — never
// from Action, the protocol's own word — each outcome with its own mark: ✅ approved (only
// what [transport.Result.Approved] calls a go-ahead), ❌ rejected, 💬 answered with neither
// a yes nor a no (an edit, a selection, an option, a value), ⌛ expired (naming the default
// the service applied, which no person chose), 🚫 cancelled, ⚠️ failed, ❔ completed without
// a decision.
//
// # Durability
//
// The forwarder records the message on the interrupt's Labels before the client keeps the
// interrupt in its store. With [WithStore] given the same store, a click after a restart
// finds its case there; the service accepts one submission per case, so it is decided once.
// Button values name the agent ([WithAgentID]): two agents sharing one Slack app ignore
// each other's buttons. No button value holds a token or a URL.
//
// # Slack's limits
//
// A 429 from Slack is waited out (Retry-After) and the call made again, within the caller's
// context; a message that could not be posted is the forwarder's error.
//
// # Bounded work
//
// An interactivity request is read up to 64 KiB ([WithMaxBody]), its signature checked before
// its body is parsed, and the parse is linear in the body. Measured with
//
//	cd hitl/hitlslack && go test -run '^$' -bench ParseInteraction -benchtime 3x .
//
// (2026-11-26, a 2-core machine at load average 9–11) on payloads holding a long digit run,
// deep nesting, many keys, one key repeated or a string of escapes, and forms of many
// fields, the CPU time per byte (cpu-ns/B) at 1 KiB, 64 KiB and 1 MiB, over the shapes:
// 63–242, 9–47, 0.5–17.
//
// # Testing
//
// Package hitlslacktest is a fake Slack: the Web API calls the bot makes, logged, and the
// reviewer's clicks and modal submissions as signed interactivity requests. The package
// Example is a Slack approval tested end to end with it.
package hitlslack
