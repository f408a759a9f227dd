package hi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/transport"
)

// Ask puts the interaction in front of one participant and waits for their response. A
// response with an empty Action and InputText is an abstention (the participant's case
// expired or was cancelled); an error means that participant's answer is unknown. The
// response is always the participant asked: [FanOut] sets its ParticipantID to p.ID,
// whatever the Ask wrote there. Its Action is compared with userActions as [Parse] writes
// them, trimmed and in lower case ("Approve" is approve). Ask must return promptly, with
// ctx's cause, when ctx ends.
type Ask func(ctx context.Context, it *Interaction, p Participant) (Feedback, error)

// ErrResolved is the cause given to the asks still waiting when the policy has decided.
var ErrResolved = errors.New("hi: interaction resolved")

// defaultMaxParticipants is how many participants FanOut asks at most, unless
// [FanOutOptions].MaxParticipants raises it: a message written by a model must not make the agent
// ask a thousand people.
const defaultMaxParticipants = 100

// ErrTooManyParticipants: an interaction has more participants than FanOut may ask.
var ErrTooManyParticipants = errors.New("hi: too many participants")

// FanOutOptions tunes one [FanOut]; nil means every default.
type FanOutOptions struct {
	// MaxParticipants is how many participants FanOut may ask; 0 means 100.
	MaxParticipants int
}

// FanOut asks every participant at once and records each response as it arrives. Each
// participant answers once, so FanOut decides as soon as the answers still to come can no
// longer change the outcome — earlier than [Evaluate], which keeps waiting while a vote may
// still be replaced: the policy's outcome (first_response at the first response, majority
// and quorum at the votes they need), all_required's rejection at the first participant who
// says no (a no cannot be outvoted: the Result is that person's rejection, Decision reject,
// with their reason), and a failed Result as soon as no action can reach majority or the
// quorum any more. It then stops the asks still waiting (their context ends with cause
// ErrResolved) and returns the Result with the tally. Responses that arrive meanwhile are
// recorded as late and refused.
//
// When every ask has returned and the policy has not decided — too many abstentions — the
// tally is unresolvable ("too few valid responses") and the Result failed with its
// explanation; when an ask failed and its answer could still have changed the outcome, the
// error is returned instead, since that participant's answer is unknown. FanOut returns only after every ask has returned. it is updated
// (History, Status) and must not be used concurrently.
//
// An interaction with more than 100 participants (see [FanOutOptions]) is refused with ErrTooManyParticipants before anyone is asked. The
// responses are tallied as they arrive, in constant time each.
//
// FanOut is one span (hitl.wait, protocol hi, kind hi/fanout) of the global tracer
// provider, the participants' waits its children; having no client, it makes no audit record
// and is in no client's Pending list (the waits of the clients its Ask uses are).
func FanOut(ctx context.Context, it *Interaction, ask Ask, o *FanOutOptions) (*transport.Result, Tally, error) {
	if it == nil || len(it.Participants) == 0 || ask == nil {
		return nil, Tally{}, errors.New("hi: FanOut needs an interaction with participants, and an Ask")
	}
	var tally Tally
	res, err := fanOutConfig().Observe(ctx, transport.Question{Protocol: "hi", Kind: "hi/fanout", ID: it.InteractionID},
		func(ctx context.Context) (*transport.Result, error) {
			var (
				res *transport.Result
				err error
			)
			res, tally, err = fanOut(ctx, it, ask, o)
			return res, err
		})
	return res, tally, err
}

// fanOutConfig observes FanOut with the global providers.
var fanOutConfig = sync.OnceValue(func() *transport.Config {
	c, _ := transport.NewConfig("hi", nil) // no option: it cannot fail
	return c
})

func fanOut(ctx context.Context, it *Interaction, ask Ask, o *FanOutOptions) (*transport.Result, Tally, error) {
	limit := defaultMaxParticipants
	if o != nil && o.MaxParticipants > 0 {
		limit = o.MaxParticipants
	}
	if n := len(it.Participants); n > limit {
		return nil, Tally{}, fmt.Errorf("%w: %d, at most %d", ErrTooManyParticipants, n, limit)
	}
	if err := it.Validate(); err != nil {
		return nil, Tally{}, err
	}
	type answer struct {
		p   Participant
		f   Feedback
		err error
	}
	asking, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	answers := make(chan answer, len(it.Participants))
	var wg sync.WaitGroup
	for _, p := range it.Participants {
		wg.Go(func() {
			f, err := ask(asking, it, p)
			answers <- answer{p, f, err}
		})
	}
	tally := Evaluate(it)
	count := newCounter(it, &tally)
	var errs []error
	unknown := len(it.Participants) // participants whose vote may still come: not yet answered, or failed
	for range it.Participants {
		a := <-answers
		var counted Feedback
		switch {
		case a.err != nil && context.Cause(asking) == ErrResolved:
		case a.err != nil:
			errs = append(errs, fmt.Errorf("participant %s: %w", a.p.ID, a.err))
		case a.f.Action == "" && a.f.InputText == "":
			unknown--
		default:
			unknown--
			a.f.ParticipantID = a.p.ID
			if a.f.Timestamp.IsZero() {
				a.f.Timestamp = time.Now().UTC()
			}
			it.History = append(it.History, a.f)
			if f, ok := count.add(a.f); ok {
				counted = f
			}
		}
		if !tally.Resolved && context.Cause(asking) != ErrResolved {
			tally.settle(len(it.Participants), unknown, counted)
		}
		if tally.Resolved && context.Cause(asking) != ErrResolved {
			it.Status = StatusResolved
			stop(ErrResolved)
		}
	}
	wg.Wait()
	tally.explain(len(it.Participants))
	switch {
	case tally.Resolved:
		return tally.Result(it.InteractionID), tally, nil
	case ctx.Err() != nil:
		return nil, tally, context.Cause(ctx)
	case len(errs) > 0:
		return nil, tally, errors.Join(errs...)
	}
	return &transport.Result{CaseID: it.InteractionID, Status: transport.StatusFailed,
		Reason: tally.Explanation, EndedAt: time.Now()}, tally, nil
}

// OverHITL asks each participant through a HITL Protocol service: call builds the request
// whose 202 opens that participant's case (for example a POST naming them), the client's
// forwarder puts the review link in front of them, and the case's Result is their response
// (see responseOf; an approval's feedback is the reason when the Result has none). Every
// decision is a response: the call is made with [hitl.CallOptions].EveryDecisionOK, so a
// rejection is the participant's reject vote, and an expired or cancelled case an
// abstention. An error from [hitl.Client.Do] stays an error: that participant's answer is
// unknown. When the interaction resolves first, the wait stops but the case stays open on
// the service until it ends there (package hitl has no call that withdraws a case).
func OverHITL(c *hitl.Client, call func(ctx context.Context, it *Interaction, p Participant) (*http.Request, error)) Ask {
	return func(ctx context.Context, it *Interaction, p Participant) (Feedback, error) {
		req, err := call(ctx, it, p)
		if err != nil {
			return Feedback{}, err
		}
		resp, err := c.Do(ctx, req, &hitl.CallOptions{EveryDecisionOK: true})
		if resp != nil && resp.Body != nil {
			_ = resp.Body.Close()
		}
		if err != nil {
			return Feedback{}, err
		}
		if resp.Interrupt == nil || resp.Result == nil {
			return Feedback{}, fmt.Errorf("hi: the service answered %d without asking a human", resp.StatusCode)
		}
		f := responseOf(it, resp.Result)
		if a, err := hitl.ApprovalOf(resp.Result); err == nil && f.Reason == "" && f.Action != "" {
			f.Reason = a.Feedback
		}
		return f, nil
	}
}

// responseOf is the participant's response that a Result of any protocol holds, as [OverHITL]
// and [OverHXP] read it:
//
//   - A case that completed with a person's decision is their vote: its Action, in the
//     protocol's own word when the interaction offers that word as a userAction, else the
//     shared word of its Decision — "approve" for a yes (HITL approve or confirm, HXP
//     "approved"), "reject" for a no (HITL reject, cancel or abort, HXP "rejected") — or
//     the Action itself for any other answer (an HXP DECIDE's option, a HITL edit). The
//     Result's Reason is the response's reason, its EndedAt the timestamp.
//   - A Result in which no person decided — an expiry (a default applied included), a
//     cancellation, a failure — is an abstention: an empty Feedback.
//   - An answer whose word names a decision it is not — an HXP DECIDE's option "approve",
//     "confirm" or "reject", which is a choice, not a yes or a no — is an abstention too:
//     the tally reads such a word as that decision, and a choice must never pass for a yes.
//     Ask a yes or a no with an HXP APPROVE, or a HITL approval or confirmation.
//
// The ParticipantID is left empty: [FanOut] sets it to the participant asked.
func responseOf(it *Interaction, res *transport.Result) Feedback {
	if res == nil || res.Status != transport.StatusCompleted || res.Decision == "" || res.DefaultApplied {
		return Feedback{}
	}
	action := res.Action
	if it == nil || !offers(it.UserActions, action) {
		switch res.Decision {
		case transport.DecisionApprove:
			action = "approve"
		case transport.DecisionReject:
			action = "reject"
		}
	}
	if d := decision.Of(action); d != transport.DecisionAnswer && d != res.Decision {
		return Feedback{}
	}
	return Feedback{Action: action, Reason: res.Reason, Timestamp: res.EndedAt}
}

// OverHXP asks each participant with the HXP request newRequest makes for them (an APPROVE
// or DECIDE routed to them, typically with the participant as agent_id or in metadata). An
// APPROVE's "approved" and "rejected" count as the actions "approve" and "reject"; a DECIDE's
// option counts as itself, but for an option that names a decision ("approve", "confirm",
// "reject", …), which is an abstention: a choice is not a yes (see responseOf); an expired or
// cancelled request is an abstention. When the interaction resolves before the participant answers,
// their request is cancelled on the server.
func OverHXP(c *hxp.Client, newRequest func(it *Interaction, p Participant) *hxp.Request) Ask {
	return func(ctx context.Context, it *Interaction, p Participant) (Feedback, error) {
		created, err := c.Create(ctx, newRequest(it, p))
		if err != nil {
			return Feedback{}, err
		}
		res, err := c.Wait(ctx, created, nil)
		if err != nil {
			if ctx.Err() != nil {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
				_ = c.Cancel(cctx, created.RequestID)
				cancel()
			}
			return Feedback{}, err
		}
		return responseOf(it, res), nil
	}
}
