package hitl

import "github.com/hitlkit/hitlkit/transport"

// Result is the outcome of a wait; it is the same type for every protocol. See
// [transport.Result].
type Result = transport.Result

// Status is a Result's terminal status.
type Status = transport.Status

// Responder is who answered.
type Responder = transport.Responder

// The terminal statuses a HITL Protocol case can reach (§8). A human's "no" (reject, cancel)
// arrives as StatusCompleted with that action; StatusCancelled means the case itself was
// cancelled.
const (
	StatusCompleted = transport.StatusCompleted
	StatusExpired   = transport.StatusExpired
	StatusCancelled = transport.StatusCancelled
)
