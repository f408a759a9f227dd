// Package tsinterop runs hitlmcp against the official MCP TypeScript SDKs — the v1 line
// @modelcontextprotocol/sdk and the v2 packages @modelcontextprotocol/client and
// @modelcontextprotocol/server, pinned in package-lock.json — over stdio and Streamable HTTP,
// in both directions. It has tests only; run `npm ci` here first (CI does). Without Node.js
// or the installed packages the tests skip, unless HITLKIT_CI is set.
package tsinterop
