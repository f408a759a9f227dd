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
// each Result (or wrap Resume's handler with [Bot.Resumed]). The README's "In Slack"
// section lists the scopes and settings.
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
package hitlslack
