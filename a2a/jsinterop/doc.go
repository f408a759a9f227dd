// Package jsinterop holds hitlkit's tests against A2A peers built on the official JavaScript
// SDK, @a2a-js/sdk: a tool-approval agent (agent/agent.mjs) served on JSON-RPC and HTTP+JSON
// at A2A 1.0 and, through the SDK's compatibility layer, 0.3, which hitlkit's a2a client and
// hitl detection drive; and the SDK's own client (agent/client.mjs) completing an approval
// against hitlkit's fake agent, a2atest. The SDK version is pinned by agent/package-lock.json
// (npm ci in agent/). The tests need node on PATH and agent/node_modules; without them they
// skip, unless CI or HITLKIT_CI is set, when they fail.
package jsinterop
