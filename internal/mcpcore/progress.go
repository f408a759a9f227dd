package mcpcore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
)

// ProgressEvery is how often a waiting tool call tells a client that gave a progress token
// that it still waits, between the changes the service reports.
const ProgressEvery = time.Second

// progress sends notifications/progress for a tool call while it waits for a person.
type progress struct {
	ctx    context.Context
	notify func(ctx context.Context, progress float64, message string)
	since  time.Time // when the case opened

	mu   sync.Mutex
	n    float64
	done chan struct{}
	quit chan struct{}
}

// startProgress starts the notifications when the client gave a progress token (notify
// set): one now, one per change the service reports (update), and one every
// ProgressEvery; stop ends them. They carry no review link, only that the call waits and
// the case's state. Their progress is the seconds since the case opened (since), so that it
// rises across the retries of a 2026-07-28 call, which may carry the same token.
func startProgress(ctx context.Context, notify func(context.Context, float64, string), since time.Time) *progress {
	p := &progress{ctx: ctx, notify: notify, since: since}
	if notify == nil {
		return p
	}
	p.done, p.quit = make(chan struct{}), make(chan struct{})
	p.send("waiting for a person's decision")
	go func() {
		defer close(p.done)
		tick := time.NewTicker(ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				p.send("waiting for a person's decision")
			case <-p.quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return p
}

// update is hitl.WaitOptions.OnUpdate: the case's new state, as progress.
func (p *progress) update(u hitl.Update) {
	if p.notify == nil {
		return
	}
	msg := "waiting for a person's decision: the review is " + u.State
	if pr := u.Progress; pr != nil && pr.TotalSteps > 0 {
		msg += fmt.Sprintf(" (step %d of %d)", pr.CurrentStep, pr.TotalSteps)
	}
	p.send(msg)
}

// send is one notification, its progress the seconds since the case opened (and more than
// the last).
func (p *progress) send(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = max(p.n+0.001, float64(time.Since(p.since).Milliseconds())/1000)
	p.notify(p.ctx, p.n, msg)
}

// stop ends the notifications and waits for the sender to return.
func (p *progress) stop() {
	if p.quit == nil {
		return
	}
	close(p.quit)
	<-p.done
}
