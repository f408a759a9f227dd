// Package a2atest provides fake A2A peers for tests and demos: an [Agent] that pauses its
// tasks for tool approval the way Hector does, on all four bindings (JSON-RPC and REST, A2A
// 0.3 and 1.0), and a [Relay] that holds every task until a scripted administrator approves
// or rejects it, the way the Swarmd relay does.
//
//	agent := a2atest.NewAgent(t) // loopback, JSON-RPC and REST at 0.3 and 1.0; closed when the test ends
//	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
//
// The agent pauses each task for a tool approval; a2a.Client.Run answers it through an Asker,
// and the task completes or is refused as the answer says.
//
// The fakes of hitlkit (hitltest, a2atest, hxptest) share one shape, net/http/httptest's
// with a testing.TB: [NewAgent] and [NewRelay] bind loopback only and close when the test
// ends; [NewMemoryAgent] and [NewMemoryRelay] serve over an in-memory transport, for
// testing/synctest bubbles; [NewUnstartedAgent] and [NewUnstartedRelay] with Start (or
// [Agent.StartTLS]) are for programs, which call Close themselves. [WithProfile] and
// [Profiles] choose which real agents it behaves as; [Agent.FailNext] injects faults (id ""
// means any task); Requests is the log of what each fake received. Called inside a
// testing/synctest bubble, where a loopback connection would hang the test, NewAgent and
// NewRelay fail the test at once.
//
// Leak checks (go.uber.org/goleak): goleak.VerifyTestMain in TestMain needs nothing more. A
// per-test goleak.VerifyNone must run after the fake is closed: register it with t.Cleanup
// before calling NewAgent or NewRelay (cleanups run last-in, first-out), not with defer, which runs before
// the fake's own cleanup and reports its goroutines.
//
// # Profiles: real agents, modelled
//
// a2atest.WithProfile makes the fake behave as a family of real
// agents, and the table-driven tests run against each: ProfileSpec (the specifications, as
// a2a-go v2 implements them), ProfileA2AGoV03 (an a2a-go v0.3 agent: text/plain JSON-RPC
// answers, -32602 with the reason in data.error for an ended task, streams that begin with a
// status update, completion without a status message), and ProfileLegacyHector (data parts in
// their {"data":{"data":…}} wrapper, tool_input as a string, the decision read only from a
// wrapped data part, a new task for an unknown or ended id, replies that are stale snapshots
// without part metadata where task queries send "metadata": null, tasks/get and
// tasks/cancel by {"name":"tasks/<id>"} with an id refused as Hector v1.9.9 does, -32603
// "… task name is required", a REST 404 of {"error":"Task not found"}). The client handles
// each: wrapped parts are unwrapped, HectorDecision and HectorToolApproval also put the
// decision where the older generation reads it, a task query or cancel refused as invalid params
// or for want of a task name is asked once more by name, a question streamed as an agent's message after the task ends the turn with the
// task waiting for input, and a refusal of an ended task matches ErrTaskTerminal whether the
// phrase is in the message, the data or data.error.
//
// Hector and ADK are not run: their shapes are modelled in these profiles and styles. go run ./examples/toolapproval shows the agent and the relay.
package a2atest
