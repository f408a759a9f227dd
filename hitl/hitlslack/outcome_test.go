package hitlslack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestInlineActions: the buttons are the case's inline actions, whatever its type; a click
// on any of them is that action's Result.
func TestInlineActions(t *testing.T) {
	tests := []struct {
		typ, body string
		want      []string
		click     string
	}{
		{"confirmation", `{"prompt":"Send 40 invoices?","inline":true}`, []string{"Confirm", "Cancel"}, "Cancel"},
		{"escalation", `{"prompt":"The export failed","inline":true}`, []string{"Retry", "Skip", "Abort"}, "Skip"},
		{"approval", `{"prompt":"Merge?","inline":true,"inline_actions":["approve"]}`, []string{"Approve"}, "Approve"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ctx := t.Context()
			svc := hitltest.NewServer(t)
			fake := hitlslacktest.NewServer(t)
			api := fake.API()
			a := newAgent(t, api, svc, &hitl.MemoryStore{}, "ops")
			done := a.call(ctx, svc, tt.typ, tt.body)
			posted := await(t, fake, "chat.postMessage", 1)[0]
			got := labels(posted)
			if strings.Join(got, ",") != strings.Join(append(tt.want, "Open review"), ",") {
				t.Fatalf("buttons = %v, want %v and Open review", got, tt.want)
			}
			v := buttons(t, posted)[tt.click]
			deliver(t, a.handler, clickValue("U0REVIEWER", posted.Channel, posted.TS, v))
			d := wait(t, done)
			if d.r.Action != strings.ToLower(tt.click) || d.r.Decision == "" {
				t.Fatalf("Result = %v, want %s by a human", d.r, strings.ToLower(tt.click))
			}
		})
	}
}

// TestSelectionOnTheReviewPage: a selection cannot be submitted inline (HITL §7.5), so its
// message has only the review button; the person selects on the review page and the
// message shows that, with no Slack user named.
func TestSelectionOnTheReviewPage(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "ops")
	done := a.call(ctx, svc, "selection", `{"prompt":"Which region?","inline":true,"context":{"options":["eu-west","us-east"]}}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	if got := labels(posted); len(got) != 1 || got[0] != "Open review" {
		t.Fatalf("buttons = %v, want the review button only", got)
	}
	if !strings.Contains(string(posted.Blocks), "eu-west") {
		t.Errorf("the options are not shown: %s", posted.Blocks)
	}
	id := svc.NextCase(ctx.Done())
	if err := svc.Respond(id, "select", map[string]any{"selected": []string{"eu-west"}}, &transport.Responder{Name: "Ana Lima"}); err != nil {
		t.Fatal(err)
	}
	d := wait(t, done)
	if err := a.bot.Finish(ctx, d.it, d.r); err != nil {
		t.Fatal(err)
	}
	sel, err := hitl.SelectionOf(d.r)
	if err != nil || len(sel.Selected) != 1 || sel.Selected[0] != "eu-west" {
		t.Fatalf("Selection = %v, %v", sel, err)
	}
	if d.r.RespondedBy.Platform != "" {
		t.Errorf("RespondedBy = %+v: a decision on the review page names no Slack user", d.r.RespondedBy)
	}
	last := await(t, fake, "chat.update", 1)[0]
	if !strings.Contains(last.Text, "Select* by Ana Lima (on the review page)") || len(labels(last)) != 0 {
		t.Errorf("update = %v, want the selection on the review page and no buttons", last)
	}
}

// TestExpiryAndCancelUpdateTheMessage: an expired case (its default applied) and a
// cancelled one are shown on their messages without buttons; a click after that is told
// and submits nothing.
func TestExpiryAndCancelUpdateTheMessage(t *testing.T) {
	for _, end := range []string{"expire", "cancel"} {
		t.Run(end, func(t *testing.T) {
			ctx := t.Context()
			svc := hitltest.NewServer(t)
			fake := hitlslacktest.NewServer(t)
			api := fake.API()
			a := newAgent(t, api, svc, &hitl.MemoryStore{}, "ops")
			done := a.call(ctx, svc, "approval", `{"prompt":"Pay the invoice?","inline":true,"default_action":"reject"}`)
			posted := await(t, fake, "chat.postMessage", 1)[0]
			id := svc.NextCase(ctx.Done())
			want := "Expired* — nobody answered in time; the default *reject* applied"
			if end == "expire" {
				_ = svc.Expire(id)
			} else {
				_ = svc.Cancel(id, "duplicate request")
				want = "Cancelled*: duplicate request"
			}
			d := wait(t, done)
			if err := a.bot.Finish(ctx, d.it, d.r); err != nil {
				t.Fatal(err)
			}
			upd := await(t, fake, "chat.update", 1)[0]
			if upd.TS != posted.TS || !strings.Contains(upd.Text, want) || len(labels(upd)) != 0 {
				t.Errorf("update = %v, want %q and no buttons", upd, want)
			}
			approve := value(t, posted, "Approve")
			deliver(t, a.handler, clickValue("U0REVIEWER", posted.Channel, posted.TS, approve))
			eph := await(t, fake, "chat.postEphemeral", 1)[0]
			if !strings.Contains(eph.Text, "Already decided") || !strings.Contains(eph.Text, want) {
				t.Errorf("late click told %q", eph.Text)
			}
			if n := submissions(svc); n != 0 {
				t.Errorf("%d submissions after the case ended", n)
			}
			if n := len(of(fake, "chat.update")); n != 1 {
				t.Errorf("%d updates, want 1", n)
			}
		})
	}
}

// TestToolApprovalInSlack: an A2A agent pauses for a tool approval; the question shows the
// tool and its arguments with the agent's options; the click is the Asker's answer, in the
// shape the agent reads, and the task completes with it.
func TestToolApprovalInSlack(t *testing.T) {
	for _, style := range []a2atest.Style{a2atest.StyleHectorV1, a2atest.StyleADK} {
		t.Run(map[a2atest.Style]string{a2atest.StyleHectorV1: "hector", a2atest.StyleADK: "adk"}[style], func(t *testing.T) {
			ctx := t.Context()
			agent := a2atest.NewAgent(t, a2atest.WithStyle(style))
			fake := hitlslacktest.NewServer(t)
			api := fake.API()
			bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"))
			if err != nil {
				t.Fatal(err)
			}
			defer bot.Close()
			c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses(),
				hitl.WithForwarder(bot.Forwarder(hitlslack.DM("U0REVIEWER"))))
			if err != nil {
				t.Fatal(err)
			}
			h := bot.Handler(c)
			ep := agent.Endpoint(a2a.JSONRPC10)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, strings.NewReader(
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
			for _, want := range []string{"delete_file", "/tmp/report-1.txt", "Asked by the agent at 127.0.0.1"} {
				if !strings.Contains(string(posted.Blocks), want) {
					t.Errorf("the question does not show %q: %s", want, posted.Blocks)
				}
			}
			btns := buttons(t, posted)
			if btns["Approve"] == "" || btns["Deny"] == "" {
				t.Fatalf("buttons = %v", btns)
			}
			deliver(t, h, clickValue("U0REVIEWER", posted.Channel, posted.TS, btns["Approve"]))
			d := wait(t, done)
			if d.r.Status != transport.StatusCompleted || d.r.Action != "approve" {
				t.Fatalf("Result = %v", d.r)
			}
			task, _ := agent.Task(d.it.ID())
			if len(task.Answers) != 1 || task.Answers[0] != "approve" {
				t.Errorf("the agent read %v, want approve", task.Answers)
			}
			if err := bot.Finish(ctx, d.it, d.r); err != nil {
				t.Fatal(err)
			}
			if d.r.RespondedBy == nil || d.r.RespondedBy.PlatformUserID != "U0REVIEWER" {
				t.Errorf("RespondedBy = %+v", d.r.RespondedBy)
			}
			if n := len(of(fake, "chat.postMessage")); n != 1 {
				t.Errorf("%d messages posted, want the one question", n)
			}
		})
	}
}

// TestFreeTextAnswerInAModal: an A2A question without a tool call gets a Reply button that
// opens a modal; the modal's submission is the answer.
func TestFreeTextAnswerInAModal(t *testing.T) {
	ctx := t.Context()
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"))
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	h := bot.Handler(nil)
	p := &a2a.Pause{Class: a2a.ClassInputRequired, TaskID: "task-1", Endpoint: a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10},
		Question: &a2a.Message{Parts: []a2a.Part{a2a.TextPart("Which branch should I deploy?")}}}
	answer := make(chan a2a.Answer, 1)
	go func() {
		a, err := bot.Asker(hitlslack.DM("U0REVIEWER"))(ctx, p)
		if err != nil {
			t.Error(err)
		}
		answer <- a
	}()
	posted := await(t, fake, "chat.postMessage", 1)[0]
	reply := value(t, posted, "Reply…")
	if reply == "" {
		t.Fatalf("buttons = %v, want Reply…", labels(posted))
	}
	deliver(t, h, clickValue("U0REVIEWER", posted.Channel, posted.TS, reply))
	view := await(t, fake, "views.open", 1)[0]
	var v struct {
		PrivateMetadata string `json:"private_metadata"`
	}
	if err := json.Unmarshal(view.Blocks, &v); err != nil || v.PrivateMetadata == "" {
		t.Fatalf("modal = %s: %v", view.Blocks, err)
	}
	deliver(t, h, submit(t, fake, view, "U0REVIEWER", "release/2.4"))
	select {
	case a := <-answer:
		if a.Action != "reply" || len(a.Parts) != 1 || a.Parts[0].Text != "release/2.4" {
			t.Fatalf("answer = %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	if upd := await(t, fake, "chat.update", 1)[0]; !strings.Contains(upd.Text, "💬 *Answered* by <@U0REVIEWER>") {
		t.Errorf("update = %v", upd)
	}
}

// TestClickAfterRestart: the agent posts the question and stops; a new process, with the
// same store and a new bot, takes the click: the case is submitted once, Resume brings the
// Result, which names the Slack user, and the message shows it. A second click submits
// nothing.
func TestClickAfterRestart(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	store := &hitl.MemoryStore{}

	first, stop := context.WithCancel(ctx)
	before := newAgent(t, api, svc, store, "billing")
	done := before.call(first, svc, "approval", `{"prompt":"Refund $120?","inline":true}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	awaitKept(t, store)
	stop()
	if d := <-done; d.err == nil {
		t.Fatal("the first process's Do returned without its stop")
	}
	_ = before.bot.Close()

	after := newAgent(t, api, svc, store, "billing")
	approve := value(t, posted, "Approve")
	deliver(t, after.handler, clickValue("U0REVIEWER", posted.Channel, posted.TS, approve))
	await(t, fake, "chat.update", 1)
	deliver(t, after.handler, clickValue("U0OTHER", posted.Channel, posted.TS, approve))
	await(t, fake, "chat.postEphemeral", 1)

	var got *transport.Result
	err := after.client.Resume(ctx, after.bot.Resumed(func(_ context.Context, _ *hitl.Interrupt, r *transport.Result) error {
		got = r
		return nil
	}), nil)
	if err != nil || got == nil || got.Action != "approve" {
		t.Fatalf("Resume = %v, %v", got, err)
	}
	if got.RespondedBy == nil || got.RespondedBy.Platform != "slack" || got.RespondedBy.PlatformUserID != "U0REVIEWER" {
		t.Errorf("RespondedBy = %+v", got.RespondedBy)
	}
	if n := submissions(svc); n != 1 {
		t.Errorf("%d submissions, want exactly 1", n)
	}
	updates := of(fake, "chat.update")
	if len(updates) != 1 || !strings.Contains(updates[0].Text, "✅ *Approved* by <@U0REVIEWER>") {
		t.Errorf("updates = %v", updates)
	}
}

// TestTwoAgentsInOneWorkspace: two agents share a Slack app; each receives every click.
// Neither answers the other's case: the one whose message it is decides it.
func TestTwoAgentsInOneWorkspace(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	billing := newAgent(t, api, svc, &hitl.MemoryStore{}, "billing")
	payroll := newAgent(t, api, svc, &hitl.MemoryStore{}, "payroll")
	doneB := billing.call(ctx, svc, "approval", `{"prompt":"Refund?","inline":true}`)
	first := await(t, fake, "chat.postMessage", 1)[0]
	doneP := payroll.call(ctx, svc, "approval", `{"prompt":"Raise?","inline":true}`)
	second := await(t, fake, "chat.postMessage", 2)[1]

	for _, m := range []hitlslacktest.Request{first, second} {
		for _, a := range []*agent{payroll, billing} {
			if code := deliver(t, a.handler, click(t, fake, m, "Reject", "U0REVIEWER")); code != http.StatusOK {
				t.Fatalf("answered %d", code)
			}
		}
	}
	for _, d := range []doResult{wait(t, doneB), wait(t, doneP)} {
		if d.r.Action != "reject" {
			t.Errorf("Result = %v", d.r)
		}
	}
	await(t, fake, "chat.update", 2) // both submissions answered
	if n := submissions(svc); n != 2 {
		t.Errorf("%d submissions, want one per case", n)
	}
	if eph := of(fake, "chat.postEphemeral"); len(eph) != 0 {
		t.Errorf("ephemeral messages %v: an agent acted on the other's message", eph)
	}
}

// TestPostFailureIsAnError: a question Slack refuses is the forwarder's error, and Do
// returns it rather than wait on a question nobody saw.
func TestPostFailureIsAnError(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "ops")
	fake.Fail("chat.postMessage", "channel_not_found")
	d := <-a.call(ctx, svc, "approval", `{"prompt":"Go?"}`)
	if d.err == nil || !strings.Contains(d.err.Error(), "channel_not_found") {
		t.Fatalf("Do = %v, %v; want the post's error", d.r, d.err)
	}
	if d.r != nil {
		t.Errorf("a Result %v for a question never posted", d.r)
	}
	if err := a.bot.Finish(ctx, d.it, &transport.Result{}); !errors.Is(err, hitlslack.ErrNotPosted) {
		t.Errorf("Finish of an unposted case = %v, want ErrNotPosted", err)
	}
}

// TestReminderInTheThread: a reminder of the case is posted as a reply in the question's
// thread, not as a second question.
func TestReminderInTheThread(t *testing.T) {
	ctx := t.Context()
	svc := hitltest.NewServer(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	a := newAgent(t, api, svc, &hitl.MemoryStore{}, "ops")
	done := a.call(ctx, svc, "approval", `{"prompt":"Renew the certificate?","inline":true}`)
	posted := await(t, fake, "chat.postMessage", 1)[0]
	id := svc.NextCase(ctx.Done())
	// Remind once the wait follows the case's event stream: a reminder from before the wait
	// began is one the person already had.
	for deadline := time.Now().Add(10 * time.Second); ; <-time.After(5 * time.Millisecond) {
		streaming := false
		for _, r := range svc.Requests() {
			streaming = streaming || strings.HasSuffix(r.Path, "/events")
		}
		if streaming {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the wait did not follow the event stream")
		}
	}
	if err := svc.Remind(id, "Still waiting"); err != nil {
		t.Fatal(err)
	}
	reminder := await(t, fake, "chat.postMessage", 2)[1]
	if reminder.ThreadTS != posted.TS || reminder.Channel != posted.Channel || len(labels(reminder)) != 0 {
		t.Errorf("reminder = %v, want a reply in the question's thread", reminder)
	}
	_ = svc.Respond(id, "approve", nil, nil)
	wait(t, done)
}

// TestToolApprovalAfterRestart: the agent posts an A2A tool approval and stops; the click
// reaches a new process before it resumes, and the resumed run takes that answer: the agent
// reads one approval, and the message shows who gave it.
func TestToolApprovalAfterRestart(t *testing.T) {
	ctx := t.Context()
	agent := a2atest.NewAgent(t)
	fake := hitlslacktest.NewServer(t)
	api := fake.API()
	store := &hitl.MemoryStore{}
	process := func() (*hitlslack.Bot, *hitl.Client) {
		bot, err := hitlslack.New(api, secret, hitlslack.WithAgentID("ops"), hitlslack.WithStore(store))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bot.Close() })
		c, err := hitl.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses(), hitl.WithStore(store),
			hitl.WithForwarder(bot.Forwarder(hitlslack.DM("U0REVIEWER"))))
		if err != nil {
			t.Fatal(err)
		}
		return bot, c
	}
	bot, c := process()
	first, stop := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() {
		ep := agent.Endpoint(a2a.JSONRPC10)
		req, _ := http.NewRequestWithContext(first, http.MethodPost, ep.URL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		resp, err := c.Do(first, req, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: bot.Asker(hitlslack.DM("U0REVIEWER"))}})
		if resp != nil {
			_ = resp.Body.Close()
		}
		stopped <- err
	}()
	posted := await(t, fake, "chat.postMessage", 1)[0]
	awaitKept(t, store)
	stop()
	if err := <-stopped; err == nil {
		t.Fatal("Do returned without its stop")
	}
	_ = bot.Close()

	bot, c = process()
	h := bot.Handler(c)
	deliver(t, h, click(t, fake, posted, "Approve", "U0REVIEWER"))
	await(t, fake, "chat.update", 1)
	var got *transport.Result
	err := c.Resume(ctx, bot.Resumed(func(_ context.Context, _ *hitl.Interrupt, r *transport.Result) error {
		got = r
		return nil
	}), &hitl.WaitOptions{Ask: bot.Asker(hitlslack.DM("U0REVIEWER"))})
	if err != nil || got == nil || got.Action != "approve" {
		t.Fatalf("Resume = %v, %v", got, err)
	}
	if got.RespondedBy == nil || got.RespondedBy.PlatformUserID != "U0REVIEWER" {
		t.Errorf("RespondedBy = %+v", got.RespondedBy)
	}
	if st, _ := agent.Task(got.CaseID); len(st.Answers) != 1 || st.Answers[0] != "approve" {
		t.Errorf("the agent read %v, want one approval", st.Answers)
	}
	if n := len(of(fake, "chat.postMessage")); n != 1 {
		t.Errorf("%d questions posted, want 1", n)
	}
}

// awaitKept waits until the store holds one interrupt with the Slack message's labels, as
// the client keeps it again after the forwarder posted.
func awaitKept(t *testing.T, store hitl.Store) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; <-time.After(5 * time.Millisecond) {
		// Kept with the message's labels: the client keeps an interrupt before the forwarder
		// posts, and again with the labels the forwarder added.
		if kept, _ := store.List(t.Context()); len(kept) == 1 && kept[0].Labels[hitlslack.LabelTS] != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the interrupt was not kept")
		}
	}
}
