package hitl

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"github.com/hitlkit/hitlkit/transport"
	"time"
)

// mayChange sets res.FinalAt when the service lets the human change a completed answer for
// window: window after its completion, or after now when the service gave no completion time.
func (c *Client) mayChange(ctx context.Context, res *transport.Result, window time.Duration) {
	if res.Status != transport.StatusCompleted || res.DefaultApplied || window <= 0 {
		return
	}
	res.FinalAt = cmp.Or(res.EndedAt, time.Now()).Add(window)
	if res.FinalAt.After(time.Now()) {
		c.deviation(ctx, "hitl: the service lets a submitted answer change for a while; transport.Result.FinalAt says until when")
	}
}

// Final returns the answer of it once the human can no longer change it. r is the Result a
// wait returned: when its FinalAt is zero it is returned as it is; otherwise Final waits
// until FinalAt, polls the case again, and returns what the service then holds — the answer
// the human may have changed. That Result is final (FinalAt zero) unless the answer changed
// and the service's completion time puts the end of its window later, in which case Final
// waits again. When the service gives no completion time, the window runs from when the
// answer was first seen and a later poll does not restart it, so Final returns after one
// window and one poll. o tunes those polls as it would a wait (its ChangeWindow too). Cancelling ctx
// ends the wait with context.Cause(ctx). Safe for concurrent use.
func (c *Client) Final(ctx context.Context, it *Interrupt, r *transport.Result, o *WaitOptions) (*transport.Result, error) {
	if c == nil {
		return nil, errNilClient
	}
	if r == nil {
		return nil, errors.New("hitl: Final needs a transport.Result")
	}
	opts := WaitOptions{PollOnly: true, NoReminders: true}
	if o != nil {
		opts = *o
		opts.NoReminders = true
	}
	for !r.FinalAt.IsZero() {
		if d := time.Until(r.FinalAt); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, context.Cause(ctx)
			}
		}
		next, err := c.Wait(ctx, it, &opts)
		if err != nil {
			return nil, err
		}
		same := next.Status == r.Status && next.Action == r.Action && bytes.Equal(next.Data, r.Data)
		if same || next.EndedAt.IsZero() || !next.FinalAt.After(time.Now()) {
			next.FinalAt = time.Time{}
		}
		r = next
	}
	return r, nil
}
