// Package interop runs hitlkit's A2A client against a real A2A server: the official
// github.com/a2aproject/a2a-go/v2 (v2.4.0) on loopback, serving one executor that pauses for
// tool approval on all four endpoints (JSON-RPC and REST, protocol 1.0 and 0.3). It is a
// module of its own so that the core module does not depend on a2a-go.
package interop
