package hitlslack_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// hxpSetup starts a fake HXP server and returns an agent's client, and a bot that resolves
// as the human.
func hxpSetup(t *testing.T) (*hxp.Client, *hitlslacktest.Server, *hitlslack.Bot, http.Handler) {
	t.Helper()
	s := hxptest.NewServer(t)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second)}
	agent, err := hxp.NewClient(s.URL, append(common, transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	human, err := hxp.NewClient(s.URL, append(common, hxp.WithHumanAuthorization(transport.StaticToken(hxptest.DefaultHumanToken)))...)
	if err != nil {
		t.Fatal(err)
	}
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"), hitlslack.WithHXP(human))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bot.Close() })
	return agent, fake, bot, bot.Handler(nil)
}

// TestHXPDecideInSlack: an HXP DECIDE is posted with its options as buttons; a click
// resolves the request with that option, the agent's wait gets the receipt, and the message
// shows the choice; a second click is told who decided.
func TestHXPDecideInSlack(t *testing.T) {
	ctx := t.Context()
	agent, fake, bot, h := hxpSetup(t)
	cr, err := agent.Create(ctx, &hxp.Request{Role: hxp.RoleOwner, TimeoutSeconds: 3600, Fallback: hxp.FallbackPause, AgentID: "planner",
		Decide: &hxp.Decide{Question: "Which region for the new cluster?", Options: []string{"eu-west-1", "us-east-1", "ap-south-1"}, Context: "Latency matters most in Europe."}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.ForwardHXP(ctx, hitlslack.DM("U0REVIEWER"), cr); err != nil {
		t.Fatal(err)
	}
	posted := await(t, fake, "chat.postMessage", 1)[0]
	for _, want := range []string{"Which region", "Latency matters", "Asked by planner", "HXP DECIDE"} {
		if !strings.Contains(string(posted.Blocks), want) {
			t.Errorf("the question does not show %q: %s", want, posted.Blocks)
		}
	}
	btns := buttons(t, posted)
	if len(btns) != 3 || btns["us-east-1"] == "" {
		t.Fatalf("buttons = %v, want one per option", btns)
	}
	deliver(t, h, clickValue("U0REVIEWER", posted.Channel, posted.TS, btns["us-east-1"]))
	r, err := agent.Wait(ctx, cr, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := json.Unmarshal(r.Data, &got); err != nil || got != "us-east-1" || r.Decision == "" {
		t.Fatalf("Result = %v (%s), want us-east-1 by a human", r, r.Data)
	}
	await(t, fake, "chat.update", 1)
	if err := bot.FinishHXP(ctx, cr, r); err != nil {
		t.Fatal(err)
	}
	last := await(t, fake, "chat.update", 1)[0]
	if !strings.Contains(last.Text, "us-east-1") || !strings.Contains(last.Text, "U0REVIEWER") || len(labels(last)) != 0 {
		t.Errorf("update = %v", last)
	}
	deliver(t, h, clickValue("U0OTHER", posted.Channel, posted.TS, btns["eu-west-1"]))
	if eph := await(t, fake, "chat.postEphemeral", 1)[0]; !strings.Contains(eph.Text, "Already decided") {
		t.Errorf("second click told %q", eph.Text)
	}
}

// TestHXPProvideInAModal: a PROVIDE opens a modal; its number answer resolves the request.
func TestHXPProvideInAModal(t *testing.T) {
	ctx := t.Context()
	agent, fake, bot, h := hxpSetup(t)
	cr, err := agent.Create(ctx, &hxp.Request{Role: hxp.RoleOwner, TimeoutSeconds: 3600, Fallback: hxp.FallbackPause,
		Provide: &hxp.Provide{Prompt: "Monthly budget cap in EUR?", InputType: hxp.InputNumber}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.ForwardHXP(ctx, hitlslack.DM("U0REVIEWER"), cr); err != nil {
		t.Fatal(err)
	}
	posted := await(t, fake, "chat.postMessage", 1)[0]
	deliver(t, h, click(t, fake, posted, "Answer…", "U0REVIEWER"))
	view := await(t, fake, "views.open", 1)[0]
	deliver(t, h, submit(t, fake, view, "U0REVIEWER", "not a number"))
	if eph := await(t, fake, "chat.postEphemeral", 1)[0]; !strings.Contains(eph.Text, "not a number") {
		t.Errorf("told %q", eph.Text)
	}
	deliver(t, h, submit(t, fake, view, "U0REVIEWER", " 2500 "))
	r, err := agent.Wait(ctx, cr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := hxp.Value(r, hxp.InputNumber); err != nil || got != 2500.0 {
		t.Fatalf("value = %v, %v; want 2500", got, err)
	}
}

// TestHXPRejectWithAReason: an APPROVE whose rejection needs a reason shows its item and
// details; Reject… opens a modal, and its text is the reason the request is resolved with.
func TestHXPRejectWithAReason(t *testing.T) {
	ctx := t.Context()
	agent, fake, bot, h := hxpSetup(t)
	cr, err := agent.Create(ctx, &hxp.Request{Role: hxp.RoleOwner, TimeoutSeconds: 3600, Fallback: hxp.FallbackPause,
		Approve: &hxp.Approve{Item: "the Q3 vendor contract", Details: json.RawMessage(`{"vendor":"Acme","amount_eur":48000}`), RejectRequiresReason: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.ForwardHXP(ctx, hitlslack.DM("U0REVIEWER"), cr); err != nil {
		t.Fatal(err)
	}
	posted := await(t, fake, "chat.postMessage", 1)[0]
	if !strings.Contains(string(posted.Blocks), "Q3 vendor contract") || !strings.Contains(string(posted.Blocks), "48000") {
		t.Errorf("the item and its details are not shown: %s", posted.Blocks)
	}
	btns := buttons(t, posted)
	if btns["Approve"] == "" || btns["Reject…"] == "" {
		t.Fatalf("buttons = %v", labels(posted))
	}
	deliver(t, h, clickValue("U0REVIEWER", posted.Channel, posted.TS, btns["Reject…"]))
	view := await(t, fake, "views.open", 1)[0]
	deliver(t, h, submit(t, fake, view, "U0REVIEWER", "Over budget by 8k"))
	r, err := agent.Wait(ctx, cr, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := hxp.ReceiptOf(r)
	if err != nil || string(r.Data) != `"rejected"` || !strings.Contains(rc.Reason, "Over budget by 8k") {
		t.Fatalf("Result %v (%s), receipt %+v, %v; want rejected with the reason", r, r.Data, rc, err)
	}
}
