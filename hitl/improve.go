package hitl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// defaultImproveRounds is how many improvement rounds [Improve] runs at most by default, as the
// HITL Protocol's guidance recommends.
const defaultImproveRounds = 2

// Suggestion is one entry of improvement_suggestions, which a service may add to a 200 or 201
// to say what more the human could provide.
type Suggestion struct {
	Field string `json:"field"`
	Issue string `json:"issue"`
	// AgentAction is what the agent should ask the human.
	AgentAction string `json:"agent_action"`
	Impact      string `json:"impact,omitempty"`
	// Priority is high, medium or low.
	Priority string `json:"priority,omitempty"`
}

// suggestionsOf reads improvement_suggestions from a success body. A body without them, or
// with an empty list, gives none and no error.
func suggestionsOf(body []byte) ([]Suggestion, error) {
	var b struct {
		S []Suggestion `json:"improvement_suggestions"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, &InvalidError{Object: "response", Problems: []FieldError{fieldErrorFromJSON(err)}}
	}
	return b.S, nil
}

// Improvement is the caller's side of the improvement loop.
type Improvement struct {
	// Share shows the human a result body. It is called first with the initial body and
	// again after every resubmission, before anything is asked.
	Share func(ctx context.Context, body []byte) error
	// Ask puts the suggestions to the human and returns the answers by field; proceed false
	// means the human declined and the loop stops.
	Ask func(ctx context.Context, s []Suggestion) (answers map[string]string, proceed bool, err error)
	// Resubmit sends the enriched request and returns the new success body.
	Resubmit func(ctx context.Context, answers map[string]string) ([]byte, error)
	// MaxRounds bounds the rounds; 0 means 2.
	MaxRounds int
}

// Improve runs the improvement loop on a success body: share the result first, then, while
// suggestions remain, the human agrees and rounds are left, ask, resubmit and share the new
// result. It returns the last body and how many rounds ran. An error from a callback ends the
// loop and is returned with the last body shared.
func Improve(ctx context.Context, body []byte, im Improvement) ([]byte, int, error) {
	if im.Share == nil || im.Ask == nil || im.Resubmit == nil {
		return body, 0, errors.New("hitl: Improve needs Share, Ask and Resubmit")
	}
	limit := im.MaxRounds
	if limit <= 0 {
		limit = defaultImproveRounds
	}
	if err := im.Share(ctx, body); err != nil {
		return body, 0, fmt.Errorf("hitl: improve: share: %w", err)
	}
	for round := 1; round <= limit; round++ {
		s, err := suggestionsOf(body)
		if err != nil || len(s) == 0 {
			return body, round - 1, err
		}
		answers, proceed, err := im.Ask(ctx, s)
		if err != nil {
			return body, round - 1, fmt.Errorf("hitl: improve: ask: %w", err)
		}
		if !proceed {
			return body, round - 1, nil
		}
		next, err := im.Resubmit(ctx, answers)
		if err != nil {
			return body, round - 1, fmt.Errorf("hitl: improve: resubmit: %w", err)
		}
		body = next
		if err := im.Share(ctx, body); err != nil {
			return body, round, fmt.Errorf("hitl: improve: share: %w", err)
		}
	}
	return body, limit, nil
}
