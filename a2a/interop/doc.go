// Package interop connects hitlkit's A2A package with the official Go SDK,
// github.com/a2aproject/a2a-go/v2 (v2.4.0): [PauseOf] and [PauseOfJSON] turn an a2a-go task
// (or its JSON) into an [github.com/hitlkit/hitlkit/a2a.Pause] — its question, tool call and prompt — and [Message]
// turns the human's [github.com/hitlkit/hitlkit/a2a.Answer] into the a2a-go message that resumes it, so that a program
// on a2a-go's client keeps its client and uses hitlkit to ask the human. Its tests run
// hitlkit's A2A client against a real a2a-go server on loopback, serving one executor that
// pauses for tool approval on all four endpoints (JSON-RPC and REST, protocol 1.0 and 0.3).
// It is a module of its own so that the core module does not depend on a2a-go.
package interop
