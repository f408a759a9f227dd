// Package pace holds the pacing every wait in hitlkit starts from, so that the protocol
// clients and the wait engine agree on it.
package pace

import "time"

const (
	// Interval is the delay between polls when the server sends no Retry-After; HITL
	// Protocol §8 recommends polling every 30 s to 5 min.
	Interval = 30 * time.Second
	// MinInterval is the shortest delay between two polls of one URL: HITL Protocol §13.5
	// allows 60 requests per minute per case.
	MinInterval = time.Second
	// MaxInterval is the longest delay, whatever the server asks for (HITL §8: 5 min).
	MaxInterval = 5 * time.Minute
	// RequestTimeout bounds one request, headers and body together.
	RequestTimeout = 30 * time.Second
)

// MaxPollsInFlight is the bound on polls of one origin in flight at once that the hitl, a2a,
// hxp and hi clients apply by default (their WithMaxPollsInFlight).
const MaxPollsInFlight = 1000
