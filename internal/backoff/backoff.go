// Package backoff wraps github.com/cenkalti/backoff/v4 so that no type of it reaches a public API.
package backoff

import (
	"context"
	"time"

	cb "github.com/cenkalti/backoff/v4"
)

// Exponential yields jittered, growing delays between first and ceiling, and never gives up:
// the wait it serves is bounded by its context, not by elapsed time. It is not safe for
// concurrent use; each wait owns one.
type Exponential struct {
	b *cb.ExponentialBackOff
}

// NewExponential returns delays starting near first, multiplied by 2 each time, randomised
// by ±50 %, and capped at ceiling.
func NewExponential(first, ceiling time.Duration) *Exponential {
	return &Exponential{b: cb.NewExponentialBackOff(
		cb.WithInitialInterval(first),
		cb.WithMaxInterval(ceiling),
		cb.WithMultiplier(2),
		cb.WithRandomizationFactor(0.5),
		cb.WithMaxElapsedTime(0),
	)}
}

// Next returns the next delay.
func (e *Exponential) Next() time.Duration { return e.b.NextBackOff() }

// Reset starts the sequence again from the first delay, after a success.
func (e *Exponential) Reset() { e.b.Reset() }

// Pause waits for d, or until wake receives (a nil wake never does), and reports false when
// ctx ended first. It starts no goroutine.
func Pause(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	if ctx.Err() != nil {
		return false
	}
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-wake:
	}
	return true
}
