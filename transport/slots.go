package transport

import (
	"sync"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// DefaultMaxPollsInFlight is the bound on polls of one origin in flight at once that the
// hitl, a2a, hxp and hi clients apply by default (their WithMaxPollsInFlight).
const DefaultMaxPollsInFlight = 1000

// Slots bound the polls in flight per origin: every poll loop whose [Poller.Slots] came from
// the same Slots for the same origin takes one before each request and frees it after, so at
// most n are in flight at once, however many clients share them. Safe for concurrent use.
type Slots struct {
	n int
	m sync.Map // origin → chan struct{} of cap n
}

// NewSlots returns Slots of n per origin, or nil (no bound) when n < 1.
func NewSlots(n int) *Slots {
	if n < 1 {
		return nil
	}
	return &Slots{n: n}
}

// For returns the slots of rawURL's origin, for [Poller.Slots]; nil (no bound) on nil Slots.
func (s *Slots) For(rawURL string) chan struct{} {
	if s == nil {
		return nil
	}
	origin := httpx.OriginOf(rawURL)
	if c, ok := s.m.Load(origin); ok {
		return c.(chan struct{})
	}
	c, _ := s.m.LoadOrStore(origin, make(chan struct{}, s.n))
	return c.(chan struct{})
}
