package hi

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/transport"
)

// The kinds of resolution policy. The spec names first_response, majority and all_required
// "etc."; quorum (N of the participants) is the one this package adds.
const (
	kindFirstResponse = "first_response"
	kindMajority      = "majority"
	kindAllRequired   = "all_required"
	kindQuorum        = "quorum"
)

// Policy is how an interaction's responses resolve it. In JSON it is a string:
// "first_response", "majority", "all_required", or "quorum:N".
type Policy struct {
	// Kind is first_response, majority, all_required (the spec's, which names them "etc.")
	// or quorum (N of the participants, which this package adds).
	Kind string
	// N is the number of matching responses a quorum needs.
	N int
}

// The policies without a parameter.
var (
	// FirstResponse: the first valid response decides.
	FirstResponse = Policy{Kind: kindFirstResponse}
	// Majority: an action chosen by more than half of the participants decides.
	Majority = Policy{Kind: kindMajority}
	// AllRequired: every participant must respond, and all with the same action, which is
	// the outcome; a no from any of them (reject, deny, cancel, abort) is the outcome instead
	// once all have responded — nobody's no is outvoted — and other disagreement is a
	// conflict. The spec names the policy without defining it; this is its reading.
	// [FanOut], where nobody's vote changes, decides at the first no.
	AllRequired = Policy{Kind: kindAllRequired}
)

// Quorum: n participants choosing the same action decide.
func Quorum(n int) Policy { return Policy{Kind: kindQuorum, N: n} }

func (p Policy) String() string {
	if p.Kind == kindQuorum {
		return kindQuorum + ":" + strconv.Itoa(p.N)
	}
	return p.Kind
}

// ParsePolicy reads a policy's string form, in any case ("Majority", "quorum:3", "3_of_5" is
// refused: the participants fix M).
func ParsePolicy(s string) (Policy, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case kindFirstResponse, kindMajority, kindAllRequired:
		return Policy{Kind: s}, nil
	}
	if n, ok := strings.CutPrefix(s, kindQuorum+":"); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 1 {
			return Quorum(v), nil
		}
	}
	return Policy{}, errors.New("unknown policy; use first_response, majority, all_required or quorum:N")
}

// MarshalJSON writes the string form.
func (p Policy) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads the string form.
func (p *Policy) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := ParsePolicy(s)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Refusal is a response that did not count, and why.
type Refusal struct {
	Feedback Feedback `json:"feedback"`
	Why      string   `json:"why"`
}

// Tally is an interaction's responses evaluated by its policy.
//
// One vote per participant: while the interaction is unresolved, a later response from the
// same participant replaces the earlier one. Responses from non-participants, with an action
// not in userActions, or arriving after the interaction resolved are refused and listed.
type Tally struct {
	Policy Policy `json:"policy"`
	// Votes is each participant's counted action.
	Votes map[string]string `json:"votes"`
	// Counts is the number of votes per action.
	Counts map[string]int `json:"counts"`
	// Resolved is set once the policy decides; Outcome is then the deciding action, or ""
	// when the policy can no longer be met (Conflict says why).
	Resolved bool   `json:"resolved"`
	Outcome  string `json:"outcome,omitempty"`
	Conflict string `json:"conflict,omitempty"`
	// DecidedBy is the participant whose response resolved the interaction; for
	// all_required's rejection, the participant who said no: the one whose vote was just
	// counted when it was a no, else the first in id order of those who said no.
	DecidedBy string    `json:"decided_by,omitempty"`
	Refused   []Refusal `json:"refused,omitempty"`
	// Explanation says in one line how the policy was applied.
	Explanation string `json:"explanation"`

	reasons map[string]string // the reason each participant gave with their counted vote
}

// Evaluate applies the interaction's policy to its history, in order. A vote may still be
// replaced while the interaction is unresolved, so a policy decides only on the votes it
// needs or once every participant has voted: all_required with one no and a participant yet
// to vote is still waiting here (that no may change), where [FanOut] has decided.
func Evaluate(it *Interaction) Tally {
	t := Tally{Policy: it.ResolutionPolicy, Votes: map[string]string{}, Counts: map[string]int{}}
	if t.Policy.Kind == "" {
		t.Policy = FirstResponse
	}
	c := newCounter(it, &t)
	for _, f := range it.History {
		c.add(f)
	}
	t.explain(len(it.Participants))
	return t
}

// counter adds responses to a tally one at a time, in constant time each (the actions are
// few), so a fan-out of n participants tallies in O(n).
type counter struct {
	it      *Interaction
	t       *Tally
	members map[string]string // participant key → the id as the interaction spells it
}

func newCounter(it *Interaction, t *Tally) *counter {
	members := make(map[string]string, len(it.Participants))
	for _, p := range it.Participants {
		members[participantKey(p.ID)] = p.ID
	}
	return &counter{it: it, t: t, members: members}
}

// add counts f, or refuses it and says why, and returns it as counted (the participant's id
// as the interaction spells it, the action as actionKey writes it) and whether it counted.
// Votes are keyed by the participant's id as the interaction spells it, whatever spelling
// the response used.
func (c *counter) add(f Feedback) (Feedback, bool) {
	t := c.t
	f.Action = actionKey(f.Action)
	id, member := c.members[participantKey(f.ParticipantID)]
	switch {
	case t.Resolved:
		t.Refused = append(t.Refused, Refusal{f, "after the interaction resolved"})
		return f, false
	case !member:
		t.Refused = append(t.Refused, Refusal{f, "not a participant"})
		return f, false
	case len(c.it.UserActions) > 0 && !offers(c.it.UserActions, f.Action):
		t.Refused = append(t.Refused, Refusal{f, "action not in userActions"})
		return f, false
	}
	if prev, ok := t.Votes[id]; ok {
		t.Counts[prev]--
		if t.Counts[prev] == 0 {
			delete(t.Counts, prev)
		}
	}
	t.Votes[id] = f.Action
	t.Counts[f.Action]++
	if t.reasons == nil {
		t.reasons = map[string]string{}
	}
	t.reasons[id] = f.Reason
	f.ParticipantID = id
	t.decide(len(c.it.Participants), f)
	return f, true
}

// actionKey is an action as the tally counts it: trimmed and lower case, as [Parse] writes
// userActions, so "Approve", " approve" and "APPROVE" are one action.
func actionKey(a string) string { return strings.ToLower(strings.TrimSpace(a)) }

// offers reports whether action is one of actions, compared as actionKey writes them.
func offers(actions []string, action string) bool {
	k := actionKey(action)
	return slices.ContainsFunc(actions, func(a string) bool { return actionKey(a) == k })
}

// rejects reports whether action is a no (reject, deny, cancel, abort, in any case).
func rejects(action string) bool { return decision.Of(action) == transport.DecisionReject }

// decide checks the policy after vote f, while every vote may still change (Evaluate): a
// policy decides only on the votes it needs, or when every participant has voted. The
// policies are this one switch, and [Tally.settle] for a fan-out's single answers.
func (t *Tally) decide(n int, f Feedback) {
	all := len(t.Votes) == n
	top, topCount, tie := t.leader()
	by := f.ParticipantID
	switch t.Policy.Kind {
	case kindFirstResponse:
		t.Resolved, t.Outcome = true, f.Action
	case kindMajority:
		switch {
		case topCount*2 > n:
			t.Resolved, t.Outcome = true, top
		case all:
			t.Resolved, t.Conflict = true, "no action has a majority"
			if tie {
				t.Conflict = "tie"
			}
		}
	case kindQuorum:
		switch {
		case topCount >= t.Policy.N:
			t.Resolved, t.Outcome = true, top
		case all:
			t.Resolved, t.Conflict = true, fmt.Sprintf("no action reached the quorum of %d", t.Policy.N)
		}
	case kindAllRequired:
		if all {
			t.Resolved = true
			switch id, no := t.rejecter(f); {
			case len(t.Counts) == 1:
				t.Outcome = top
			case id != "":
				t.Outcome, by = no, id
			default:
				t.Conflict = "participants disagree: " + t.counts()
			}
		}
	}
	if t.Resolved {
		t.DecidedBy = by
	}
}

// rejecter returns a participant who voted no, and their action: f's, when f is one, else
// the first by id; "" when nobody did.
func (t *Tally) rejecter(f Feedback) (string, string) {
	if rejects(f.Action) && t.Votes[f.ParticipantID] == f.Action {
		return f.ParticipantID, f.Action
	}
	ids := make([]string, 0, len(t.Votes))
	for id, a := range t.Votes {
		if rejects(a) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "", ""
	}
	id := slices.Min(ids)
	return id, t.Votes[id]
}

// settle decides what a fan-out's answers already fix, where each participant answers once
// and no vote changes: f is the vote just counted (zero after an abstention or a refused
// vote), unknown how many participants may still vote. all_required is a rejection as soon
// as one participant rejects; majority and quorum are unresolvable as soon as no action can
// reach them with the votes still possible; any policy is unresolvable when nobody may still
// vote and it has not decided (abstentions, refused votes).
func (t *Tally) settle(n, unknown int, f Feedback) {
	if t.Resolved {
		return
	}
	_, top, _ := t.leader()
	switch t.Policy.Kind {
	case kindAllRequired:
		if f.Action != "" && rejects(f.Action) {
			t.Resolved, t.Outcome, t.DecidedBy = true, f.Action, f.ParticipantID
		}
	case kindMajority:
		if (top+unknown)*2 <= n {
			t.Resolved, t.Conflict = true, "no action can have a majority"
		}
	case kindQuorum:
		if top+unknown < t.Policy.N {
			t.Resolved, t.Conflict = true, fmt.Sprintf("no action can reach the quorum of %d", t.Policy.N)
		}
	}
	if !t.Resolved && unknown == 0 {
		t.Resolved, t.Conflict = true, "too few valid responses"
	}
}

// leader returns the most chosen action (alphabetically first among equals), its count, and
// whether another action has as many.
func (t *Tally) leader() (string, int, bool) {
	actions := make([]string, 0, len(t.Counts))
	for a := range t.Counts {
		actions = append(actions, a)
	}
	slices.Sort(actions)
	top, best, tie := "", 0, false
	for _, a := range actions {
		switch c := t.Counts[a]; {
		case c > best:
			top, best, tie = a, c, false
		case c == best:
			tie = true
		}
	}
	return top, best, tie
}

func (t *Tally) counts() string {
	actions := make([]string, 0, len(t.Counts))
	for a := range t.Counts {
		actions = append(actions, a)
	}
	slices.Sort(actions)
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = fmt.Sprintf("%s %d", a, t.Counts[a])
	}
	return strings.Join(parts, ", ")
}

func (t *Tally) explain(n int) {
	votes := fmt.Sprintf("%d of %d participants responded (%s)", len(t.Votes), n, t.counts())
	if len(t.Votes) == 0 {
		votes = fmt.Sprintf("0 of %d participants responded", n)
	}
	switch {
	case t.Resolved && t.Outcome != "":
		t.Explanation = fmt.Sprintf("%s: %s resolved by %s; %s", t.Policy, t.Outcome, t.DecidedBy, votes)
	case t.Resolved:
		t.Explanation = fmt.Sprintf("%s: unresolvable, %s; %s", t.Policy, t.Conflict, votes)
	default:
		t.Explanation = fmt.Sprintf("%s: waiting; %s", t.Policy, votes)
	}
	if len(t.Refused) > 0 {
		t.Explanation += fmt.Sprintf("; %d response(s) refused", len(t.Refused))
	}
}

// Result turns a resolved tally into the shared Result: completed with the outcome as
// Action (a reject with the reason given with it as Reason), or failed with the conflict as
// Reason. The Decision is the shared word for
// the outcome (approve is DecisionApprove, reject DecisionReject, another of the
// interaction's userActions DecisionAnswer); the tally itself, as JSON, is the Data. It
// returns nil while the interaction is unresolved.
func (t Tally) Result(interactionID string) *transport.Result {
	if !t.Resolved {
		return nil
	}
	data, _ := json.Marshal(t)
	r := &transport.Result{CaseID: interactionID, Data: data, EndedAt: time.Now()}
	if t.Outcome != "" {
		r.Status, r.Action, r.Decision = transport.StatusCompleted, t.Outcome, decision.Of(t.Outcome)
		r.RespondedBy = &transport.Responder{Name: t.DecidedBy}
		if r.Decision == transport.DecisionReject {
			r.Reason = t.reasonFor(t.Outcome)
		}
	} else {
		r.Status, r.Reason = transport.StatusFailed, t.Explanation
	}
	return r
}

// reasonFor is the reason given with a vote for action, as every protocol reports a
// person's no in Result.Reason: the deciding participant's, else the first in participant
// order; "" when none was given.
func (t Tally) reasonFor(action string) string {
	if r := t.reasons[t.DecidedBy]; r != "" && t.Votes[t.DecidedBy] == action {
		return r
	}
	ids := make([]string, 0, len(t.reasons))
	for id := range t.reasons {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if t.reasons[id] != "" && t.Votes[id] == action {
			return t.reasons[id]
		}
	}
	return ""
}

// Record validates one response and appends it to the history: a participant's response to
// an agent-initiated interaction (the action must be one of userActions), or anyone's
// unsolicited response to a feedback interaction. It updates Status and returns the new
// tally. A response to a resolved interaction is kept in the history and refused by the
// tally.
func (it *Interaction) Record(f Feedback) (Tally, error) {
	if f.ParticipantID == "" {
		return Tally{}, errors.New("hi: Record: response without a participant")
	}
	if f.Timestamp.IsZero() {
		f.Timestamp = time.Now().UTC()
	}
	if it.Type == TypeFeedback {
		if f.Action == "" && f.InputText == "" {
			return Tally{}, errors.New("hi: Record: empty feedback")
		}
		it.History = append(it.History, f)
		it.Status = StatusReceived
		return Evaluate(it), nil
	}
	if !slices.ContainsFunc(it.Participants, func(p Participant) bool { return sameParticipant(p.ID, f.ParticipantID) }) {
		return Tally{}, fmt.Errorf("hi: Record: %q is not a participant", f.ParticipantID)
	}
	if len(it.UserActions) > 0 && !offers(it.UserActions, f.Action) {
		return Tally{}, fmt.Errorf("hi: Record: %w: %q", ErrUnsupportedAction, f.Action)
	}
	it.History = append(it.History, f)
	t := Evaluate(it)
	if t.Resolved {
		it.Status = StatusResolved
	}
	return t, nil
}

// NewFeedback returns a human-initiated interaction (§3, scenario 3): type feedback, no
// agent output, status received, a synthetic id, and the person's response as its history.
func NewFeedback(participantID, action, text string) *Interaction {
	now := time.Now().UTC()
	return &Interaction{InteractionID: syntheticID(), CoordinationMode: ModeCentralized, ResolutionPolicy: FirstResponse,
		Timestamp: now, Participants: []Participant{{ID: participantID, Role: RoleObserver}}, Type: TypeFeedback,
		Urgency: UrgencyOptional, Status: StatusReceived,
		History: []Feedback{{ParticipantID: participantID, Action: action, InputText: text, Timestamp: now}}}
}
