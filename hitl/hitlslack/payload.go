package hitlslack

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// The interaction types this package acts on (api.slack.com/reference/interaction-payloads).
const (
	typeBlockActions   = "block_actions"
	typeViewSubmission = "view_submission"
)

// errBadPayload: an interactivity request whose payload is not one this package reads; the
// handler answers it 400.
var errBadPayload = errors.New("hitlslack: malformed interaction payload")

// payload is the part of an interaction payload this package reads.
type payload struct {
	Type string `json:"type"`
	User struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Name     string `json:"name"`
	} `json:"user"`
	TriggerID string `json:"trigger_id"`
	Channel   struct {
		ID string `json:"id"`
	} `json:"channel"`
	Container struct {
		ChannelID string `json:"channel_id"`
		MessageTS string `json:"message_ts"`
	} `json:"container"`
	Message struct {
		TS string `json:"ts"`
	} `json:"message"`
	Actions []struct {
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
	} `json:"actions"`
	View struct {
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
		State           struct {
			Values map[string]map[string]struct {
				Value string `json:"value"`
			} `json:"values"`
		} `json:"state"`
	} `json:"view"`
}

// interaction is a payload reduced to what acts: who, on which message, with which value,
// and for a modal's submission the text entered.
type interaction struct {
	kind    string // typeBlockActions or typeViewSubmission
	user    string
	name    string
	key     msgKey
	value   value
	trigger string
	text    string
}

// Bounds on the fields read: Slack's ids are short; a value is at most 2000 characters.
const (
	maxID   = 64
	maxText = 3000
)

// parseInteraction reads a form-encoded interactivity body (payload=<JSON>). It returns
// errBadPayload (wrapped, naming what is wrong) for anything it cannot act on; a payload of
// another type or with a value this package did not make is (nil, nil): acknowledged and
// ignored.
func parseInteraction(body []byte) (*interaction, error) {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("%w: not a form", errBadPayload)
	}
	raw := form.Get("payload")
	if raw == "" {
		return nil, fmt.Errorf("%w: no payload", errBadPayload)
	}
	var p payload
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return nil, fmt.Errorf("%w: not JSON of the expected shape", errBadPayload)
	}
	if p.User.ID == "" || len(p.User.ID) > maxID {
		return nil, fmt.Errorf("%w: user.id", errBadPayload)
	}
	in := &interaction{kind: p.Type, user: p.User.ID, name: clip(p.User.Name, maxID), trigger: p.TriggerID}
	if in.name == "" {
		in.name = clip(p.User.Username, maxID)
	}
	if len(in.trigger) > 256 {
		return nil, fmt.Errorf("%w: trigger_id", errBadPayload)
	}
	switch p.Type {
	case typeBlockActions:
		if len(p.Actions) == 0 {
			return nil, fmt.Errorf("%w: no action", errBadPayload)
		}
		v, ok := parseValue(p.Actions[0].Value)
		if !ok {
			return nil, nil // a URL button, or a message of another app
		}
		in.value = v
		in.key = msgKey{p.Container.ChannelID, p.Container.MessageTS}
		if in.key.channel == "" {
			in.key.channel = p.Channel.ID
		}
		if in.key.ts == "" {
			in.key.ts = p.Message.TS
		}
	case typeViewSubmission:
		var meta privateMetadata
		if json.Unmarshal([]byte(p.View.PrivateMetadata), &meta) != nil {
			return nil, nil // a view of another app
		}
		v, ok := parseValue(meta.Value)
		if !ok {
			return nil, nil
		}
		in.value, in.key = v, msgKey{meta.Channel, meta.TS}
		in.text = p.View.State.Values[inputBlock][inputAction].Value
		if len(in.text) > maxText {
			return nil, fmt.Errorf("%w: answer over %d bytes", errBadPayload, maxText)
		}
	default:
		return nil, nil
	}
	if in.key.channel == "" || in.key.ts == "" || len(in.key.channel) > maxID || len(in.key.ts) > maxID {
		return nil, fmt.Errorf("%w: no message", errBadPayload)
	}
	return in, nil
}

// privateMetadata is what a modal carries back: the message it was opened from and the
// value of the button that opened it.
type privateMetadata struct {
	Channel string `json:"c"`
	TS      string `json:"t"`
	Value   string `json:"v"`
}

// The ids of a modal's one input.
const (
	inputBlock  = "answer"
	inputAction = "text"
)
