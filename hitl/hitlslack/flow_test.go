package hitlslack_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// agent is one agent process: its Slack bot, its hitl client and the handler Slack calls.
type agent struct {
	bot     *hitlslack.Bot
	client  *hitl.Client
	handler http.Handler
}

func newAgent(t *testing.T, api *slack.Client, svc *hitltest.Server, store hitl.Store, id string) *agent {
	t.Helper()
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID(id), hitlslack.WithStore(store))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bot.Close() })
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithStore(store),
		hitl.WithForwarder(bot.Forwarder(hitlslack.DM("U0REVIEWER"))))
	if err != nil {
		t.Fatal(err)
	}
	return &agent{bot: bot, client: c, handler: bot.Handler(c)}
}

// call opens a case on svc (POST /actions/{typ} with body) through the agent's client in
// the background; the returned channel yields Do's answer.
func (a *agent) call(ctx context.Context, svc *hitltest.Server, typ, body string) <-chan doResult {
	out := make(chan doResult, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/"+typ, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := a.client.Do(ctx, req, &hitl.CallOptions{EveryDecisionOK: true}) // every decision is a Result here
		var r doResult
		r.err = err
		if resp != nil {
			r.it, r.r = resp.Interrupt, resp.Result
			_ = resp.Body.Close()
		}
		out <- r
	}()
	return out
}

type doResult struct {
	it  *hitl.Interrupt
	r   *transport.Result
	err error
}

func wait(t *testing.T, ch <-chan doResult) doResult {
	t.Helper()
	select {
	case d := <-ch:
		// A decision that is not an approval may come with an error saying so (Do's rule: only
		// Approved is a success); the Result is what these tests read.
		if d.err != nil && d.r == nil {
			t.Fatalf("Do: %v", d.err)
		}
		return d
	case <-time.After(20 * time.Second):
		t.Fatal("Do did not return in 20 s")
	}
	return doResult{}
}

func submissions(svc *hitltest.Server) int {
	n := 0
	for _, r := range svc.Requests() {
		if strings.HasSuffix(r.Path, "/submit") {
			n++
		}
	}
	return n
}

// TestApprovalInSlack: a HITL approval goes from question to click to Result. The question
// is a direct message with a button per inline action and one to the review page; no button
// value holds a token; the click submits inline as the Slack user; the message shows who
// decided, without buttons; the Result names the Slack user; a second click is told who
// decided and changes nothing.
func TestApprovalInSlack(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "billing")

	done := a.call(ctx, svc, "approval", `{"prompt":"Refund $120 to ACME Corp?","inline":true,"inline_actions":["approve","reject"],"default_action":"reject","context":{"invoice":"INV-7","amount":120}}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	if opened := of(fake, "conversations.open"); len(opened) != 1 || opened[0].User != "U0REVIEWER" {
		t.Fatalf("conversations.open = %v, want one for the reviewer", opened)
	}
	if posted.Channel != "DU0REVIEWER" {
		t.Errorf("posted to %q, want the reviewer's direct message", posted.Channel)
	}
	for _, want := range []string{"Refund $120 to ACME Corp?", "INV-7", "Approval review", "Expires", "then *reject* applies"} {
		if !strings.Contains(string(posted.Blocks), want) {
			t.Errorf("the question does not show %q: %s", want, posted.Blocks)
		}
	}
	btns := buttons(t, posted)
	if len(btns) != 3 || btns["Approve"] == "" || btns["Reject"] == "" || !strings.Contains(btns["Open review"], "/review/") {
		t.Fatalf("buttons = %v, want Approve, Reject and Open review", btns)
	}

	if code := deliver(t, a.handler, clickValue("U0REVIEWER", posted.Channel, posted.TS, btns["Approve"])); code != http.StatusOK {
		t.Fatalf("click answered %d", code)
	}
	d := wait(t, done)
	if d.r.Status != transport.StatusCompleted || d.r.Action != "approve" {
		t.Fatalf("Result = %v, want completed: approve", d.r)
	}
	// No token of the case in any value Slack holds.
	u, _ := url.Parse(d.it.Case.ReviewURL)
	for label, v := range btns {
		if label == "Open review" {
			continue
		}
		for _, secretValue := range append([]string{d.it.Case.SubmitToken}, u.Query()["token"]...) {
			if secretValue != "" && strings.Contains(v, secretValue) {
				t.Errorf("button %s carries a token: %q", label, v)
			}
		}
	}
	if got := d.it.Labels; got[hitlslack.LabelChannel] != posted.Channel || got[hitlslack.LabelTS] != posted.TS || got[hitlslack.LabelAgent] != "billing" {
		t.Errorf("labels = %v, want the message", got)
	}
	await(t, fake, "chat.update", 1)
	if err := a.bot.Finish(ctx, d.it, d.r); err != nil {
		t.Fatal(err)
	}
	if d.r.RespondedBy == nil || d.r.RespondedBy.Platform != "slack" || d.r.RespondedBy.PlatformUserID != "U0REVIEWER" {
		t.Errorf("RespondedBy = %+v, want the Slack user", d.r.RespondedBy)
	}
	updates := await(t, fake, "chat.update", 1)
	last := updates[len(updates)-1]
	if last.TS != posted.TS || len(labels(last)) != 0 || !strings.Contains(string(last.Blocks), `✅ *Approved* by \u003c@U0REVIEWER\u003e`) {
		t.Errorf("final update = %v %s, want the decision by the Slack user and no buttons", last, last.Blocks)
	}

	// A second click: told who decided, nothing submitted, the message unchanged.
	if code := deliver(t, a.handler, clickValue("U0OTHER", posted.Channel, posted.TS, btns["Reject"])); code != http.StatusOK {
		t.Fatalf("second click answered %d", code)
	}
	eph := await(t, fake, "chat.postEphemeral", 1)[0]
	if eph.User != "U0OTHER" || !strings.Contains(eph.Text, "Already decided") || !strings.Contains(eph.Text, "U0REVIEWER") {
		t.Errorf("ephemeral = %v, want already decided by the reviewer", eph)
	}
	if n := submissions(svc); n != 1 {
		t.Errorf("%d inline submissions, want 1", n)
	}
	if n := len(of(fake, "chat.update")); n != 1 {
		t.Errorf("%d chat.update calls, want 1: Finish leaves the message the click updated", n)
	}
	for i, c := range fake.Requests() {
		t.Logf("slack call %d: %v", i+1, c)
	}
}
