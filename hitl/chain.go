package hitl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// defaultMaxRounds is how many rounds [Client.Chain] runs when ChainOptions does not say.
const defaultMaxRounds = 3

// Round is one round of a multi-round review (HITL Protocol §10.1): the case put to the human
// and how it ended.
type Round struct {
	Interrupt *Interrupt
	Result    *transport.Result
}

// ReviseFunc makes the next round after the human asked for edits. history holds every round
// so far; the last one's Result has action "edit" and the human's instructions in its Data.
// It revises the work, resubmits it to the service (carrying previous_case_id, as the service
// asks), and returns the new interrupt — typically from [Client.Do] with DetectOnly — or nil
// when it made no new case: the chain then follows the service's next_case_id if it gave
// one (see [Client.NextRound]), and otherwise ends.
type ReviseFunc func(ctx context.Context, history []Round) (*Interrupt, error)

// ChainOptions tunes [Client.Chain]. A nil *ChainOptions means the defaults.
type ChainOptions struct {
	// MaxRounds bounds the rounds, the first included; 0 means 3.
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
	if c == nil {
		return nil, errNilClient
	}
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
		limit = defaultMaxRounds
	}
	var history []Round
	for it := first; it != nil; {
		if n := len(history); n > 0 {
			linkWarning(history[n-1], it)
		}
		it.Round = len(history) + 1
		if err := forward(ctx, it); err != nil {
			return history, fmt.Errorf("hitl: forward case %s: %w", it.ID(), err)
		}
		res, err := c.wait(ctx, it, o.Wait, c.authorization, forward)
		if err != nil {
			return history, err
		}
		history = append(history, Round{Interrupt: it, Result: res})
		if res.Action != "edit" || res.Decision == "" || len(history) == limit {
			break
		}
		if it, err = revise(ctx, history); err != nil {
			return history, fmt.Errorf("hitl: revise after case %s: %w", res.CaseID, err)
		}
		if it == nil {
			it = c.NextRound(history[len(history)-1].Interrupt, res)
		}
	}
	return history, nil
}

// NextRound returns an interrupt for the case a result's next_case_id names (HITL §10.1),
// which a service may open itself for the next round without a new 202, or nil when the
// result names none or no poll URL can be made for it. The poll URL (and events URL) come
// from the previous case's, with its case id replaced, or else from the service's cached
// discovery document ({reviews_base}/{case_id}/status). The new case keeps the previous
// one's type, prompt and origin; it has no review URL (the service sends the link to the
// human) and no expiry; Round counts on.
func (c *Client) NextRound(prev *Interrupt, res *transport.Result) *Interrupt {
	if prev == nil || prev.Case == nil || res == nil || !validCaseID(res.NextCaseID) || res.NextCaseID == prev.Case.CaseID {
		return nil
	}
	pc, next := prev.Case, res.NextCaseID
	swap := func(u string) string {
		if u == "" || !strings.Contains(u, "/"+pc.CaseID) {
			return ""
		}
		return strings.Replace(u, "/"+pc.CaseID, "/"+next, 1)
	}
	poll, events := swap(pc.PollURL), swap(pc.EventsURL)
	if poll == "" {
		d, _ := c.discovery.get(httpx.OriginOf(pc.PollURL), time.Now())
		if d == nil || d.ReviewsBase == "" {
			return nil
		}
		poll = strings.TrimSuffix(d.ReviewsBase, "/") + "/" + next + "/status"
		events = d.EventsURL(next)
	}
	if httpx.OriginOf(poll) != httpx.OriginOf(pc.PollURL) {
		return nil
	}
	cs := &Case{SpecVersion: pc.SpecVersion, CaseID: next, Type: pc.Type, Prompt: pc.Prompt, PollURL: poll,
		EventsURL: events, PreviousCaseID: pc.CaseID, DefaultAction: pc.DefaultAction}
	return &Interrupt{Kind: KindHITL, Case: cs, Origin: prev.Origin, ReceivedAt: time.Now(), Round: prev.Round + 1,
		Warnings: []string{"opened by the service as the next round: no review URL, no expiry"}}
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
