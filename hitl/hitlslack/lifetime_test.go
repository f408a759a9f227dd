package hitlslack_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestCloseEndsTheWork: the work after an acknowledged click is bounded (WithMaxConcurrent:
// past it a click is answered 503 at once) and ends with Close, even when Slack stalls; a
// click after Close is answered 503. The package's goroutine-leak check holds the rest.
func TestCloseEndsTheWork(t *testing.T) {
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"), hitlslack.WithMaxConcurrent(1))
	if err != nil {
		t.Fatal(err)
	}
	h := bot.Handler(nil)
	fake.Stall("chat.postEphemeral")
	// A click on a message the bot does not know is answered with an ephemeral, which stalls.
	click := func(user string) int {
		return deliver(t, h, clickValue(user, "D1", "1.1", "hk1|ops|hitl|hitl:AAAAAAAA:approve|approve"))
	}
	if code := click("U1"); code != http.StatusOK {
		t.Fatalf("first click answered %d", code)
	}
	await(t, fake, "chat.postEphemeral", 1) // the stalled call is logged on arrival
	if code := click("U2"); code != http.StatusServiceUnavailable {
		t.Errorf("a click past the bound answered %d, want 503", code)
	}
	closed := make(chan struct{})
	go func() { _ = bot.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the stalled work")
	}
	if code := click("U3"); code != http.StatusServiceUnavailable {
		t.Errorf("a click after Close answered %d, want 503", code)
	}
}

// TestChannelWithDeciders: a question for a channel goes there (no direct message is
// opened); with WithDeciders, a click by anyone else is refused and changes nothing.
func TestChannelWithDeciders(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"), hitlslack.WithDeciders("U0LEAD"))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithForwarder(bot.Forwarder(hitlslack.Channel("C0OPS"))))
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{bot: bot, client: c, handler: bot.Handler(c)}
	done := a.call(ctx, svc, "approval", `{"prompt":"Ship it?","inline":true}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	if posted.Channel != "C0OPS" || len(of(fake, "conversations.open")) != 0 {
		t.Fatalf("posted to %q after %d opens, want C0OPS and none", posted.Channel, len(of(fake, "conversations.open")))
	}
	btns := buttons(t, posted)
	deliver(t, a.handler, clickValue("U0INTERN", posted.Channel, posted.TS, btns["Approve"]))
	if eph := await(t, fake, "chat.postEphemeral", 1)[0]; eph.User != "U0INTERN" || !strings.Contains(eph.Text, "not among") {
		t.Errorf("told %v", eph)
	}
	if n := submissions(svc); n != 0 {
		t.Fatalf("%d submissions by a non-decider", n)
	}
	// The lead edits: the Edit button opens a modal, whose text is the approval's feedback.
	deliver(t, a.handler, clickValue("U0LEAD", posted.Channel, posted.TS, btns["Edit…"]))
	view := await(t, fake, "views.open", 1)[0]
	deliver(t, a.handler, submit(t, fake, view, "U0LEAD", "Ship after the 14:00 freeze"))
	d := wait(t, done)
	ap, err := hitl.ApprovalOf(d.r)
	if d.r.Action != "edit" || err != nil || ap.Feedback != "Ship after the 14:00 freeze" {
		t.Fatalf("Result = %v, approval %+v, %v", d.r, ap, err)
	}
}
