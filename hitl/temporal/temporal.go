// Package temporal runs hitlkit's waits as Temporal workflows, for decisions that take days and
// waits that must outlive any one worker: the workflow owns the clock (the case's expiry and
// its reminders are durable timers), an activity runs hitl's own wait, heartbeating its
// checkpoint, and is retried on another worker when its worker dies, carrying on from the last
// checkpoint; and a notification any replica receives (a
// signed callback, an A2A push, a chat button) becomes a validated Update that makes the wait
// look again at once.
//
// Register [Workflow] and the methods of [Activities] on a worker; start the workflow with an
// [Input] (the [hitl.Interrupt], as [hitl.Client.Do] with DetectOnly returns it); deliver
// notifications with [Notify]. The outcome is a [transport.Result]: an expiry is a Result with
// DefaultApplied set and no Action, never an approval.
package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// Names under which the workflow, its activities and its Update are registered.
const (
	WorkflowName   = "hitlkit.WaitForDecision"
	ActivityWatch  = "hitlkit.Watch"
	ActivityRemind = "hitlkit.Remind"
	UpdateNotify   = "hitlkit.notify"
)

// Heartbeat is how often the watcher activity reports that it is alive; a worker that stops
// reporting for three times as long is taken as dead and the wait moves to another worker.
const Heartbeat = 10 * time.Second

// Input is what [Workflow] waits on.
type Input struct {
	// Interrupt is the case (HITL, or an A2A task: then Activities.Ask answers it).
	Interrupt hitl.Interrupt
	// Grace is how long past the case's expiry the workflow still waits for the service to
	// report it; 0 means hitl.DefaultGrace.
	Grace time.Duration
}

// Notification is the argument of the Update: news about a case that some replica received.
// DeliveryID identifies the delivery (a callback's signature, a push's id): the same
// delivery counts once, whichever replica passed it on.
type Notification struct {
	CaseID     string
	DeliveryID string
}

// ErrWrongCase: an Update about another case; it is rejected before it reaches the history.
var ErrWrongCase = errors.New("hitlkit/temporal: notification for another case")

// Workflow waits for the decision on in.Interrupt and returns it. It runs the watcher
// activity (hitl's own wait: polls, event stream) until it returns, restarting it at once
// when a notification arrives (so the service is asked at once, as hitl does for a
// callback); sets a durable timer at each of the case's reminder times, calling the Remind
// activity; and when the case's expiry plus the grace passes with no outcome, returns the
// expiry with the case's default action applied.
func Workflow(ctx workflow.Context, in Input) (*transport.Result, error) {
	it := in.Interrupt
	id := it.ID()
	if id == "" {
		return nil, temporal.NewNonRetryableApplicationError("interrupt without an id", "BadInput", nil)
	}
	seen := map[string]bool{}
	notified := workflow.NewChannel(ctx)
	err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateNotify,
		func(ctx workflow.Context, n Notification) error {
			if !seen[n.DeliveryID] {
				seen[n.DeliveryID] = true
				notified.SendAsync(n)
			}
			return nil
		},
		workflow.UpdateHandlerOptions{Validator: func(n Notification) error {
			if n.CaseID != id {
				return fmt.Errorf("%w: %q, not %q", ErrWrongCase, n.CaseID, id)
			}
			return nil
		}})
	if err != nil {
		return nil, err
	}

	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 365 * 24 * time.Hour,
		HeartbeatTimeout:    3 * Heartbeat,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
	})
	sel := workflow.NewSelector(ctx)
	var (
		result  *transport.Result
		failure error
		done    bool
	)
	var watch func()
	var cancelWatch workflow.CancelFunc
	watch = func() {
		wctx, cancel := workflow.WithCancel(ctx)
		cancelWatch = cancel
		f := workflow.ExecuteActivity(wctx, ActivityWatch, it)
		sel.AddFuture(f, func(f workflow.Future) {
			var r transport.Result
			err := f.Get(ctx, &r)
			switch {
			case err == nil:
				result, done = &r, true
			case temporal.IsCanceledError(err):
				// restarted after a notification: a new watcher is running
			default:
				failure, done = err, true
			}
		})
	}
	watch()
	sel.AddReceive(notified, func(c workflow.ReceiveChannel, _ bool) {
		var n Notification
		c.Receive(ctx, &n)
		cancelWatch()
		watch()
	})
	if it.Case != nil && !it.Case.ExpiresAt.IsZero() {
		grace := in.Grace
		if grace <= 0 {
			grace = hitl.DefaultGrace
		}
		sel.AddFuture(workflow.NewTimer(ctx, it.Case.ExpiresAt.Add(grace).Sub(workflow.Now(ctx))), func(workflow.Future) {
			result, done = expired(&it), true
		})
	}
	if it.Case != nil {
		for n, at := range it.Case.ReminderAt {
			if d := at.Sub(workflow.Now(ctx)); d > 0 && (it.Case.ExpiresAt.IsZero() || at.Before(it.Case.ExpiresAt)) {
				sel.AddFuture(workflow.NewTimer(ctx, d), func(workflow.Future) {
					// A reminder that fails is retried by its policy; the wait does not wait for it.
					workflow.ExecuteActivity(ctx, ActivityRemind, it, n+1)
				})
			}
		}
	}
	for !done {
		sel.Select(ctx)
	}
	cancelWatch()
	return result, failure
}

// expired is the outcome of a case whose expiry passed without the service reporting one:
// the default action applied, never a human's decision.
func expired(it *hitl.Interrupt) *transport.Result {
	r := &transport.Result{Status: transport.StatusExpired, CaseID: it.ID(), DefaultAction: hitl.DefaultSkip, DefaultApplied: true}
	if cs := it.Case; cs != nil {
		if cs.DefaultAction != "" {
			r.DefaultAction = cs.DefaultAction
		}
		r.CreatedAt, r.EndedAt = cs.CreatedAt, cs.ExpiresAt
	}
	return r
}

// Activities are the workflow's activities. Register them on a worker with
// worker.RegisterActivityWithOptions for each method, under ActivityWatch and ActivityRemind,
// or with [Register].
type Activities struct {
	// Client waits (required); give it the credentials and HTTP client of the service.
	Client *hitl.Client
	// Forward reminds the human at the case's reminder times; nil: no reminders.
	Forward hitl.Forwarder
	// Ask answers an A2A task's questions (WaitOptions.Ask); nil for HITL cases.
	Ask func(ctx context.Context, it *hitl.Interrupt) hitl.WaitOptions
}

// Watch runs hitl's wait on it, heartbeating every Heartbeat with the wait's
// [hitl.Checkpoint] (the poll's entity tag, the stream's last event id). A worker that dies
// mid-wait stops heartbeating; the attempt retried on another worker carries on from the last
// checkpoint heartbeated (WaitOptions.From): its first poll is answered 304 while the case
// is unchanged, and the stream replays no event already handled. ErrPastExpiry is the expiry
// with its default applied. It returns only after the heartbeat goroutine has ended.
func (a *Activities) Watch(ctx context.Context, it hitl.Interrupt) (*transport.Result, error) {
	if a.Client == nil {
		return nil, temporal.NewNonRetryableApplicationError("Activities.Client is nil", "BadConfig", nil)
	}
	o := &hitl.WaitOptions{NoReminders: true}
	if a.Ask != nil {
		opts := a.Ask(ctx, &it)
		o = &opts
	}
	var (
		mu sync.Mutex
		cp hitl.Checkpoint
	)
	if activity.HasHeartbeatDetails(ctx) && activity.GetHeartbeatDetails(ctx, &cp) == nil {
		from := cp
		o.From = &from
	}
	hctx, stop := context.WithCancel(ctx)
	o.OnCheckpoint = func(now hitl.Checkpoint) {
		mu.Lock()
		cp = now
		mu.Unlock()
		activity.RecordHeartbeat(hctx, now) // the SDK batches heartbeats; this does not block
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	wg.Go(func() {
		t := time.NewTicker(Heartbeat)
		defer t.Stop()
		for {
			mu.Lock()
			now := cp
			mu.Unlock()
			activity.RecordHeartbeat(hctx, now)
			select {
			case <-hctx.Done():
				return
			case <-t.C:
			}
		}
	})
	r, err := a.Client.Wait(ctx, &it, o)
	if errors.Is(err, hitl.ErrPastExpiry) {
		return expired(&it), nil
	}
	return r, err
}

// Remind forwards the case again as its n-th reminder.
func (a *Activities) Remind(ctx context.Context, it hitl.Interrupt, n int) error {
	if a.Forward == nil {
		return nil
	}
	it.Reminder = n
	return a.Forward(ctx, &it)
}

// Registrar is what a worker offers to register workflows and activities (worker.Worker
// satisfies it).
type Registrar interface {
	RegisterWorkflowWithOptions(w interface{}, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a interface{}, options activity.RegisterOptions)
}

// Register registers Workflow and a's activities under their names on w.
func Register(w Registrar, a *Activities) {
	w.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	w.RegisterActivityWithOptions(a.Watch, activity.RegisterOptions{Name: ActivityWatch})
	w.RegisterActivityWithOptions(a.Remind, activity.RegisterOptions{Name: ActivityRemind})
}

// Notify passes news about a case that a replica received (a verified callback, an A2A
// push) to the workflow waiting on it, as an Update the workflow validates: a notification
// for another case is rejected (ErrWrongCase) before it reaches the workflow's history, and
// the same deliveryID counts once, whichever replica sends it.
func Notify(ctx context.Context, c client.Client, workflowID, caseID, deliveryID string) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   workflowID,
		UpdateID:     deliveryID,
		UpdateName:   UpdateNotify,
		Args:         []interface{}{Notification{CaseID: caseID, DeliveryID: deliveryID}},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, nil)
}
