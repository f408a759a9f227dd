package hitlslack_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestHostilePayloads: correctly signed bodies that are malformed, oversized in a field, or
// aimed at another agent are answered without a panic, decide nothing, and leave the case
// to the real click.
func TestHostilePayloads(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "billing")
	done := a.call(ctx, svc, "approval", `{"prompt":"Rotate the keys?","inline":true}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	approve := value(t, posted, "Approve")
	form := func(json string) []byte { return []byte("payload=" + url.QueryEscape(json)) }
	long := strings.Repeat("9", 5000)
	cases := []struct {
		name string
		body []byte
		want int
	}{
		{"not a form", []byte("%%%"), http.StatusBadRequest},
		{"no payload", []byte("a=b"), http.StatusBadRequest},
		{"payload not JSON", form("{"), http.StatusBadRequest},
		{"payload an array", form("[1,2]"), http.StatusBadRequest},
		{"wrong field types", form(`{"type":"block_actions","user":{"id":7},"actions":"x"}`), http.StatusBadRequest},
		{"no user", form(`{"type":"block_actions","actions":[{"value":"` + approve + `"}]}`), http.StatusBadRequest},
		{"a user id of 5000 bytes", form(`{"type":"block_actions","user":{"id":"` + long + `"},"actions":[{"value":"x"}]}`), http.StatusBadRequest},
		{"no message", form(`{"type":"block_actions","user":{"id":"U1"},"actions":[{"value":"` + approve + `"}]}`), http.StatusBadRequest},
		{"a channel of 5000 bytes", hitlslacktest.ClickBody("U1", long, posted.TS, hitlslacktest.Button{Value: approve}), http.StatusBadRequest},
		{"no action", form(`{"type":"block_actions","user":{"id":"U1"},"actions":[]}`), http.StatusBadRequest},
		{"another agent's button", hitlslacktest.ClickBody("U1", posted.Channel, posted.TS, hitlslacktest.Button{Value: strings.Replace(approve, "|billing|", "|payroll|", 1)}), http.StatusOK},
		{"a value of another app", hitlslacktest.ClickBody("U1", posted.Channel, posted.TS, hitlslacktest.Button{Value: "approve"}), http.StatusOK},
		{"a value too long", hitlslacktest.ClickBody("U1", posted.Channel, posted.TS, hitlslacktest.Button{Value: approve + long}), http.StatusOK},
		{"a modal answer of 5000 bytes", hitlslacktest.SubmitBody("U1", modal(`{\"c\":\"D1\",\"t\":\"1.2\",\"v\":\"hk1|billing|a2a|h|m:\"}`), long), http.StatusBadRequest},
		{"a modal of another app", hitlslacktest.SubmitBody("U1", modal(`not json`), "x"), http.StatusOK},
		{"another interaction type", form(`{"type":"shortcut","user":{"id":"U1"}}`), http.StatusOK},
	}
	for _, c := range cases {
		if code := deliver(t, a.handler, hitlslacktest.Sign(c.body, secret, time.Now())); code != c.want {
			t.Errorf("%s: answered %d, want %d", c.name, code, c.want)
		}
	}
	// A forged handle of this agent on the real message: refused, nothing submitted.
	forged := strings.Replace(approve, "|hitl:", "|hitl:AAAAAAAA", 1)
	if code := deliver(t, a.handler, clickValue("U1", posted.Channel, posted.TS, forged)); code != http.StatusOK {
		t.Fatalf("forged handle answered %d", code)
	}
	eph := await(t, fake, "chat.postEphemeral", 1)[0]
	if !strings.Contains(eph.Text, "does not belong") {
		t.Errorf("forged handle told %q", eph.Text)
	}
	if n := submissions(svc); n != 0 {
		t.Fatalf("%d submissions from hostile payloads", n)
	}
	if code := deliver(t, a.handler, clickValue("U0REVIEWER", posted.Channel, posted.TS, approve)); code != http.StatusOK {
		t.Fatalf("the real click answered %d", code)
	}
	if d := wait(t, done); d.r.Action != "approve" {
		t.Fatalf("Result = %v", d.r)
	}
	await(t, fake, "chat.update", 1) // the submission answered
	if n := submissions(svc); n != 1 {
		t.Errorf("%d submissions, want 1", n)
	}
}

// modal is a view with private metadata meta (JSON-escaped) and the one text input of
// hitlslack's modals.
func modal(meta string) json.RawMessage {
	return json.RawMessage(`{"type":"modal","callback_id":"hitlslack","private_metadata":"` + meta +
		`","blocks":[{"type":"input","block_id":"answer","element":{"type":"plain_text_input","action_id":"text"}}]}`)
}

// TestForgedInteractions: signed requests that move a real button where it does not belong
// decide nothing: one message's Approve clicked on another message, and a modal submission
// forged to carry an Approve button's value (a decision without the modal it needs); each is
// told "does not belong", nothing is submitted, and the real clicks then decide.
func TestForgedInteractions(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	a := newAgent(t, fake.API(), svc, &hitl.MemoryStore{}, "billing")
	doneA := a.call(ctx, svc, "approval", `{"prompt":"Refund A?","inline":true}`)
	first := await(t, fake, "chat.postMessage", 1)[0]
	doneB := a.call(ctx, svc, "approval", `{"prompt":"Refund B?","inline":true}`)
	second := await(t, fake, "chat.postMessage", 2)[1]

	approveA, _ := first.Button("Approve")
	moved := hitlslacktest.Sign(hitlslacktest.ClickBody("U0REVIEWER", second.Channel, second.TS, approveA), secret, time.Now())
	meta, _ := json.Marshal(map[string]string{"c": second.Channel, "t": second.TS, "v": value(t, second, "Approve")})
	asModal := hitlslacktest.Sign(hitlslacktest.SubmitBody("U0REVIEWER", modal(strings.ReplaceAll(string(meta), `"`, `\"`)), "yes"), secret, time.Now())
	for name, req := range map[string]*http.Request{"a button moved to another message": moved, "a click forged as a modal": asModal} {
		if code := deliver(t, a.handler, req); code != http.StatusOK {
			t.Fatalf("%s: answered %d", name, code)
		}
	}
	for _, eph := range await(t, fake, "chat.postEphemeral", 2) {
		if !strings.Contains(eph.Text, "does not belong") {
			t.Errorf("told %q", eph.Text)
		}
	}
	if n := submissions(svc); n != 0 {
		t.Fatalf("%d submissions from forged interactions", n)
	}
	deliver(t, a.handler, click(t, fake, first, "Reject", "U0REVIEWER"))
	deliver(t, a.handler, click(t, fake, second, "Approve", "U0REVIEWER"))
	if d := wait(t, doneA); d.r.Decision != transport.DecisionReject {
		t.Errorf("A = %v", d.r)
	}
	if d := wait(t, doneB); !d.r.Approved() {
		t.Errorf("B = %v", d.r)
	}
}
