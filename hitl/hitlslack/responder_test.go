package hitlslack_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

// noGoAhead fails t when any line the bot wrote on Slack shows a go-ahead.
func noGoAhead(t *testing.T, fake *hitlslacktest.Server) {
	t.Helper()
	for _, r := range fake.Requests() {
		if strings.Contains(r.Text, "✅") || strings.Contains(string(r.Blocks), "✅") {
			t.Errorf("Slack shows a go-ahead: %v", r)
		}
	}
}

// TestNoIsNeverAGoAhead: what a click in Slack turns into, and what the message then says,
// is never a go-ahead for a "no": a rejection clicked in Slack, an expiry whose default
// action is approve, a cancellation, a tool call denied in Slack and an HXP APPROVE
// rejected in Slack each end in a Result that is not Approved, and no message the bot
// writes shows ✅ for them; a click on Approve after the expiry or the cancellation submits
// nothing.
func TestNoIsNeverAGoAhead(t *testing.T) {
	t.Run("rejected in Slack", func(t *testing.T) {
		ctx := t.Context()
		svc := hitltest.NewServer(t)
		fake := hitlslacktest.NewServer(t)
		a := newAgent(t, fake.API(), svc, &hitl.MemoryStore{}, "ops")
		done := a.call(ctx, svc, "approval", `{"prompt":"Drop the table?","inline":true,"default_action":"approve"}`)
		posted := await(t, fake, "chat.postMessage", 1)[0]
		deliver(t, a.handler, click(t, fake, posted, "Reject", "U0REVIEWER"))
		d := wait(t, done)
		if d.r.Approved() || d.r.Decision != transport.DecisionReject {
			t.Fatalf("Result = %v (decision %q), want a rejection", d.r, d.r.Decision)
		}
		if err := a.bot.Finish(ctx, d.it, d.r); err != nil {
			t.Fatal(err)
		}
		upd := await(t, fake, "chat.update", 1)
		if last := upd[len(upd)-1]; !strings.HasPrefix(last.Text, "❌ *Rejected* by <@U0REVIEWER>") {
			t.Errorf("message = %q, want the rejection", last.Text)
		}
		noGoAhead(t, fake)
	})
	for _, end := range []string{"expired, default approve", "cancelled"} {
		t.Run(end, func(t *testing.T) {
			ctx := t.Context()
			svc := hitltest.NewServer(t)
			fake := hitlslacktest.NewServer(t)
			a := newAgent(t, fake.API(), svc, &hitl.MemoryStore{}, "ops")
			done := a.call(ctx, svc, "approval", `{"prompt":"Drop the table?","inline":true,"default_action":"approve"}`)
			posted := await(t, fake, "chat.postMessage", 1)[0]
			id := svc.NextCase(ctx.Done())
			want := "⌛ *Expired* — nobody answered in time; the default *approve* applied"
			if end == "cancelled" {
				_ = svc.Cancel(id, "superseded")
				want = "🚫 *Cancelled*: superseded"
			} else {
				_ = svc.Expire(id)
			}
			d := wait(t, done)
			if d.r.Approved() || d.r.Decision != "" {
				t.Fatalf("Result = %v (decision %q), want no decision", d.r, d.r.Decision)
			}
			if err := a.bot.Finish(ctx, d.it, d.r); err != nil {
				t.Fatal(err)
			}
			if upd := await(t, fake, "chat.update", 1)[0]; upd.Text != want {
				t.Errorf("message = %q, want %q", upd.Text, want)
			}
			deliver(t, a.handler, click(t, fake, posted, "Approve", "U0REVIEWER"))
			if eph := await(t, fake, "chat.postEphemeral", 1)[0]; !strings.Contains(eph.Text, want) {
				t.Errorf("a late Approve was told %q", eph.Text)
			}
			if n := submissions(svc); n != 0 {
				t.Errorf("%d submissions after the case ended", n)
			}
			noGoAhead(t, fake)
		})
	}
	t.Run("tool call denied in Slack", func(t *testing.T) {
		ctx := t.Context()
		agent := a2atest.NewAgent(t, a2atest.WithStyle(a2atest.StyleADK))
		fake := hitlslacktest.NewServer(t)
		bot, err := hitlslack.New(fake.API(), secret, hitlslack.WithAgentID("ops"))
		if err != nil {
			t.Fatal(err)
		}
		defer bot.Close()
		c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses(),
			hitl.WithForwarder(bot.Forwarder(hitlslack.DM("U0REVIEWER"))))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, agent.Endpoint(a2a.JSONRPC10).URL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		done := make(chan doResult, 1)
		go func() {
			resp, err := c.Do(ctx, req, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: bot.Asker(hitlslack.DM("U0REVIEWER"))}})
			d := doResult{err: err}
			if resp != nil {
				d.it, d.r = resp.Interrupt, resp.Result
				_ = resp.Body.Close()
			}
			done <- d
		}()
		posted := await(t, fake, "chat.postMessage", 1)[0]
		deliver(t, bot.Handler(c), click(t, fake, posted, "Deny", "U0REVIEWER"))
		d := wait(t, done)
		if d.r.Approved() {
			t.Fatalf("Result = %v (decision %q): a denial approved", d.r, d.r.Decision)
		}
		if task, _ := agent.Task(d.it.ID()); len(task.Answers) != 1 || task.Answers[0] != "deny" {
			t.Errorf("the agent read %v, want deny", task.Answers)
		}
		if err := bot.Finish(ctx, d.it, d.r); err != nil {
			t.Fatal(err)
		}
		if upd := await(t, fake, "chat.update", 1)[0]; !strings.HasPrefix(upd.Text, "❌ *Rejected*") {
			t.Errorf("message = %q, want the rejection", upd.Text)
		}
		noGoAhead(t, fake)
	})
	t.Run("HXP APPROVE rejected in Slack", func(t *testing.T) {
		ctx := t.Context()
		agent, fake, bot, h := hxpSetup(t)
		cr, err := agent.Create(ctx, &hxp.Request{Role: hxp.RoleOwner, TimeoutSeconds: 3600, Fallback: hxp.FallbackPause,
			Approve: &hxp.Approve{Item: "the Q3 vendor contract", Details: json.RawMessage(`{"amount_eur":48000}`)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := bot.ForwardHXP(ctx, hitlslack.DM("U0REVIEWER"), cr); err != nil {
			t.Fatal(err)
		}
		posted := await(t, fake, "chat.postMessage", 1)[0]
		deliver(t, h, click(t, fake, posted, "Reject", "U0REVIEWER"))
		r, err := agent.Wait(ctx, cr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Approved() || r.Decision != transport.DecisionReject {
			t.Fatalf("Result = %v (decision %q), want a rejection", r, r.Decision)
		}
		if err := bot.FinishHXP(ctx, cr, r); err != nil {
			t.Fatal(err)
		}
		upd := await(t, fake, "chat.update", 1)
		if last := upd[len(upd)-1]; !strings.HasPrefix(last.Text, "❌ *Rejected*") {
			t.Errorf("message = %q, want the rejection", last.Text)
		}
		noGoAhead(t, fake)
	})
}
