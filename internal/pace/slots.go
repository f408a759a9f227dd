package pace

import (
	"sync"

	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Slots bound the polls in flight per origin: every wait given the same Slots takes one for
// its URL's origin before each poll and frees it after, so at most n polls of one origin are
// in flight at once, however many waits and clients share them. Safe for concurrent use.
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

// Of returns the slots of rawURL's origin; nil (no bound) on nil Slots.
func (s *Slots) Of(rawURL string) chan struct{} {
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
