package hitlslacktest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/slack-go/slack"
)

// ClickBody is the body Slack posts when user clicks button b on the message at channel
// and ts: the form field payload holding a block_actions interaction, spelled by slack-go's
// own InteractionCallback. Sign it with [Sign]; alter it first to test a handler against a
// forged or malformed click.
func ClickBody(user, channel, ts string, b Button) []byte {
	cb := slack.InteractionCallback{
		Type:      slack.InteractionTypeBlockActions,
		User:      slack.User{ID: user, Name: strings.ToLower(user), TeamID: "T0TEAM"},
		Team:      slack.Team{ID: "T0TEAM"},
		APIAppID:  "A0APP",
		TriggerID: "trigger." + ts,
		Container: slack.Container{Type: "message", ChannelID: channel, MessageTs: ts},
		Message:   slack.Message{Msg: slack.Msg{Timestamp: ts}},
		ActionCallback: slack.ActionCallbacks{BlockActions: []*slack.BlockAction{
			{ActionID: b.ActionID, BlockID: b.BlockID, Type: "button", Value: b.Value, ActionTs: ts,
				Text: slack.TextBlockObject{Type: slack.PlainTextType, Text: b.Label}},
		}},
	}
	cb.Channel.ID = channel
	return form(&cb)
}

// SubmitBody is the body Slack posts when user submits a modal: view is the view as the
// app opened it (views.open's view, raw JSON), and each of its plain-text inputs holds
// text. The payload carries the view's callback_id and private_metadata back, as Slack
// does. A view that is not JSON is sent as an empty view.
func SubmitBody(user string, view json.RawMessage, text string) []byte {
	var v struct {
		CallbackID      string `json:"callback_id"`
		PrivateMetadata string `json:"private_metadata"`
		Blocks          []struct {
			Type    string `json:"type"`
			BlockID string `json:"block_id"`
			Element struct {
				Type     string `json:"type"`
				ActionID string `json:"action_id"`
			} `json:"element"`
		} `json:"blocks"`
	}
	_ = json.Unmarshal(view, &v)
	values := map[string]map[string]slack.BlockAction{}
	for _, b := range v.Blocks {
		if b.Type == "input" && b.Element.Type == "plain_text_input" {
			values[b.BlockID] = map[string]slack.BlockAction{b.Element.ActionID: {Type: "plain_text_input", Value: text}}
		}
	}
	cb := slack.InteractionCallback{
		Type:     slack.InteractionTypeViewSubmission,
		User:     slack.User{ID: user, Name: strings.ToLower(user), TeamID: "T0TEAM"},
		Team:     slack.Team{ID: "T0TEAM"},
		APIAppID: "A0APP",
		View: slack.View{ID: "V0VIEW", Type: slack.VTModal, CallbackID: v.CallbackID, PrivateMetadata: v.PrivateMetadata,
			State: &slack.ViewState{Values: values}},
	}
	return form(&cb)
}

func form(cb *slack.InteractionCallback) []byte {
	js, err := json.Marshal(cb)
	if err != nil {
		return nil // slack-go's types always marshal
	}
	return []byte("payload=" + url.QueryEscape(string(js)))
}

// Sign returns the interactivity request carrying body as Slack sends it at time at:
// POST, form-encoded, X-Slack-Request-Timestamp at's Unix seconds and X-Slack-Signature
// "v0=" and the hex HMAC-SHA256, keyed by secret, of "v0:" + timestamp + ":" + body
// (api.slack.com/authentication/verifying-requests-from-slack). Hand it to the handler
// (handler.ServeHTTP); a wrong secret, an old time or an altered body make a request the
// handler must refuse.
func Sign(body []byte, secret string, at time.Time) *http.Request {
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + ts + ":"))
	m.Write(body)
	req := httptest.NewRequest(http.MethodPost, "/slack/interactivity", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(m.Sum(nil)))
	return req
}
