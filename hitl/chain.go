package hitl

import (
	"context"
	"errors"
	"fmt"
)

// DefaultMaxRounds is how many rounds [Client.Chain] runs when ChainOptions does not say.
const DefaultMaxRounds = 3

// Round is one round of a multi-round review (HITL Protocol §10.1): the case put to the human
// and how it ended.
type Round struct {
	Interrupt *Interrupt
	Result    *Result
}

// ReviseFunc makes the next round after the human asked for edits. history holds every round
// so far; the last one's Result has action "edit" and the human's instructions in its Data.
// It revises the work, resubmits it to the service (carrying previous_case_id, as the service
// asks), and returns the new interrupt — typically from [Client.Do] with DetectOnly — or nil
// when the resubmission needed no further review.
type ReviseFunc func(ctx context.Context, history []Round) (*Interrupt, error)

// ChainOptions tunes [Client.Chain]. A nil *ChainOptions means the defaults.
type ChainOptions struct {
	// MaxRounds bounds the rounds, the first included; 0 means DefaultMaxRounds.
	MaxRounds int
	// Forwarder overrides the client's forwarder.
	Forwarder Forwarder
	// Wait tunes each round's wait.
	Wait *WaitOptions
}

// Chain runs the revise-and-resubmit loop of a multi-round review: it forwards first, waits,
// and while the human answers "edit" and rounds remain, calls revise and does the same with
// the interrupt it returns. It returns every round; the last one's Result is the outcome (an
// "edit" there means the round limit was reached). A new case that does not link back to the
// previous one (previous_case_id, or the previous result's next_case_id) gets a warning in
// its Interrupt.Warnings; the chain goes on.
//
// An error from a wait, a forward or revise ends the chain; the rounds so far are returned
// with it. Cancelling ctx ends it with context.Cause(ctx).
func (c *Client) Chain(ctx context.Context, first *Interrupt, revise ReviseFunc, o *ChainOptions) ([]Round, error) {
	if o == nil {
		o = &ChainOptions{}
	}
	forward := o.Forwarder
	if forward == nil {
		forward = c.forward
	}
	if forward == nil {
		return nil, ErrNoForwarder
	}
	if revise == nil {
		return nil, errors.New("hitl: Chain needs a revise function")
	}
	limit := o.MaxRounds
	if limit <= 0 {
		limit = DefaultMaxRounds
	}
	var history []Round
	for it := first; it != nil; {
		if n := len(history); n > 0 {
			linkWarning(history[n-1], it)
		}
		if err := forward(ctx, it); err != nil {
			return history, fmt.Errorf("hitl: forward case %s: %w", it.ID(), err)
		}
		res, err := c.wait(ctx, it, o.Wait, c.authorization, forward)
		if err != nil {
			return history, err
		}
		history = append(history, Round{Interrupt: it, Result: res})
		if res.Action != "edit" || !res.DecidedByHuman() || len(history) == limit {
			break
		}
		if it, err = revise(ctx, history); err != nil {
			return history, fmt.Errorf("hitl: revise after case %s: %w", res.CaseID, err)
		}
	}
	return history, nil
}

func linkWarning(prev Round, next *Interrupt) {
	if next.Case == nil {
		return
	}
	prevID := prev.Interrupt.ID()
	switch {
	case next.Case.PreviousCaseID != "" && next.Case.PreviousCaseID != prevID:
		next.Warnings = append(next.Warnings, "previous_case_id does not name the previous round's case")
	case prev.Result.NextCaseID != "" && prev.Result.NextCaseID != next.ID():
		next.Warnings = append(next.Warnings, "the previous round's next_case_id names another case")
	case next.Case.PreviousCaseID == "" && prev.Result.NextCaseID == "":
		next.Warnings = append(next.Warnings, "case does not link to the previous round")
	}
}
