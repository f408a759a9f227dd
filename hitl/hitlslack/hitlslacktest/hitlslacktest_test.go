package hitlslacktest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/slack-go/slack"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSignedAsSlackSigns: Sign's requests pass slack-go's own verifier, so a handler
// tested with them is held to Slack's scheme, not to a reading of it; a wrong secret, an
// old timestamp or an altered body do not.
func TestSignedAsSlackSigns(t *testing.T) {
	body := hitlslacktest.ClickBody("U1", "D1", "1.2", hitlslacktest.Button{Value: "v"})
	verify := func(req *http.Request, secret string) error {
		sv, err := slack.NewSecretsVerifier(req.Header, secret)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(req.Body)
		_, _ = sv.Write(b)
		return sv.Ensure()
	}
	if err := verify(hitlslacktest.Sign(body, "s3cret", time.Now()), "s3cret"); err != nil {
		t.Fatalf("slack-go refuses the signature: %v", err)
	}
	if err := verify(hitlslacktest.Sign(body, "s3cret", time.Now()), "another"); err == nil {
		t.Error("slack-go accepts the signature under another secret")
	}
	if _, err := slack.NewSecretsVerifier(hitlslacktest.Sign(body, "s3cret", time.Now().Add(-time.Hour)).Header, "s3cret"); err == nil {
		t.Error("slack-go accepts an hour-old timestamp")
	}
	altered := hitlslacktest.Sign(body, "s3cret", time.Now())
	altered.Body = io.NopCloser(strings.NewReader(strings.Replace(string(body), "U1", "U2", 1)))
	if err := verify(altered, "s3cret"); err == nil {
		t.Error("slack-go accepts an altered body")
	}
}

// TestPayloadsAsSlackSpellsThem: a click's and a submission's payloads read back through
// slack-go's InteractionCallback with the user, message, button and modal state they say.
func TestPayloadsAsSlackSpellsThem(t *testing.T) {
	read := func(body []byte) slack.InteractionCallback {
		t.Helper()
		form, err := url.ParseQuery(string(body))
		if err != nil {
			t.Fatal(err)
		}
		var cb slack.InteractionCallback
		if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil {
			t.Fatal(err)
		}
		return cb
	}
	cb := read(hitlslacktest.ClickBody("U0ANA", "C0OPS", "1700000000.000001", hitlslacktest.Button{Label: "Approve", ActionID: "hitl:approve", BlockID: "decide", Value: "hk1|x"}))
	if cb.Type != slack.InteractionTypeBlockActions || cb.User.ID != "U0ANA" || cb.Container.ChannelID != "C0OPS" ||
		cb.Container.MessageTs != "1700000000.000001" || len(cb.ActionCallback.BlockActions) != 1 ||
		cb.ActionCallback.BlockActions[0].Value != "hk1|x" || cb.ActionCallback.BlockActions[0].ActionID != "hitl:approve" || cb.TriggerID == "" {
		t.Errorf("click = %+v", cb)
	}
	view := json.RawMessage(`{"type":"modal","callback_id":"cb","private_metadata":"meta",
		"blocks":[{"type":"section","text":{"type":"mrkdwn","text":"q"}},{"type":"input","block_id":"b1","element":{"type":"plain_text_input","action_id":"a1"}}]}`)
	cb = read(hitlslacktest.SubmitBody("U0ANA", view, "ship it"))
	if cb.Type != slack.InteractionTypeViewSubmission || cb.View.CallbackID != "cb" || cb.View.PrivateMetadata != "meta" ||
		cb.View.State == nil || cb.View.State.Values["b1"]["a1"].Value != "ship it" {
		t.Errorf("submission = %+v", cb.View)
	}
	// A view that is not JSON is submitted empty, without a panic.
	if cb := read(hitlslacktest.SubmitBody("U0ANA", json.RawMessage("{{{"), "x")); cb.View.PrivateMetadata != "" {
		t.Errorf("submission of garbage = %+v", cb.View)
	}
}

// TestWebAPI: the calls a bot makes are answered as Slack answers them and logged, without
// the token; a message's buttons are read back; Click and Submit sign what the person does.
func TestWebAPI(t *testing.T) {
	ctx := t.Context()
	s := hitlslacktest.NewServer(t, hitlslacktest.WithSigningSecret("shh"), hitlslacktest.WithBotToken("xoxb-1"))
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/api/") {
		t.Fatalf("URL = %q, want loopback", s.URL)
	}
	api := s.API()
	ch, _, _, err := api.OpenConversationContext(ctx, &slack.OpenConversationParameters{Users: []string{"U0ANA"}})
	if err != nil || ch.ID != "DU0ANA" {
		t.Fatalf("conversations.open = %+v, %v", ch, err)
	}
	approve := slack.NewButtonBlockElement("approve", "v-approve", slack.NewTextBlockObject(slack.PlainTextType, "Approve", false, false))
	link := slack.NewButtonBlockElement("review", "", slack.NewTextBlockObject(slack.PlainTextType, "Open review", false, false)).WithURL("https://review.example/r/1")
	_, ts, err := api.PostMessageContext(ctx, ch.ID, slack.MsgOptionText("Deploy?", false), slack.MsgOptionBlocks(slack.NewActionBlock("decide", approve, link)))
	if err != nil || ts != "1700000000.000001" {
		t.Fatalf("chat.postMessage = %q, %v", ts, err)
	}
	if _, _, err := api.PostMessageContext(ctx, ch.ID, slack.MsgOptionText("reply", false), slack.MsgOptionTS(ts)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, ch.ID, ts, slack.MsgOptionText("done", false)); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := api.UpdateMessageContext(ctx, ch.ID, "1.1", slack.MsgOptionText("x", false)); err == nil || !strings.Contains(err.Error(), "message_not_found") {
		t.Errorf("update of a message never posted = %v, want message_not_found", err)
	}
	if _, err := api.PostEphemeralContext(ctx, ch.ID, "U0BOB", slack.MsgOptionText("not yours", false)); err != nil {
		t.Fatal(err)
	}
	posts, err := s.Await(ctx, "chat.postMessage", 2)
	if err != nil {
		t.Fatal(err)
	}
	if posts[1].ThreadTS != ts || posts[1].TS == ts {
		t.Errorf("reply = %v, want a new message in the thread of %s", posts[1], ts)
	}
	if b := posts[0].Buttons(); len(b) != 2 || b[0] != (hitlslacktest.Button{Label: "Approve", ActionID: "approve", BlockID: "decide", Value: "v-approve"}) ||
		b[1].URL != "https://review.example/r/1" {
		t.Errorf("buttons = %+v", b)
	}
	if _, err := s.Click(posts[0], "Open review", "U0ANA"); !errors.Is(err, hitlslacktest.ErrNoButton) {
		t.Errorf("a click on a link button = %v, want ErrNoButton", err)
	}
	if _, err := s.Click(posts[0], "Reject", "U0ANA"); !errors.Is(err, hitlslacktest.ErrNoButton) {
		t.Errorf("a click on no button = %v, want ErrNoButton", err)
	}
	req, err := s.Click(posts[0], "Approve", "U0ANA")
	if err != nil {
		t.Fatal(err)
	}
	sv, err := slack.NewSecretsVerifier(req.Header, "shh")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(req.Body)
	_, _ = sv.Write(body)
	if err := sv.Ensure(); err != nil {
		t.Errorf("the click is not signed with WithSigningSecret's secret: %v", err)
	}
	if !strings.Contains(string(body), "v-approve") {
		t.Errorf("the click does not carry the button's value: %s", body)
	}
	modal := slack.ModalViewRequest{Type: slack.VTModal, Title: slack.NewTextBlockObject(slack.PlainTextType, "Why?", false, false),
		PrivateMetadata: "m1", CallbackID: "cb", Blocks: slack.Blocks{BlockSet: []slack.Block{
			slack.NewInputBlock("answer", slack.NewTextBlockObject(slack.PlainTextType, "Reason", false, false), nil, slack.NewPlainTextInputBlockElement(nil, "text"))}}}
	if _, err := api.OpenViewContext(ctx, "trigger.1", modal); err != nil {
		t.Fatal(err)
	}
	views, _ := s.Await(ctx, "views.open", 1)
	if views[0].TriggerID != "trigger.1" {
		t.Errorf("views.open = %+v", views[0])
	}
	if _, err := s.Submit(posts[0], "U0ANA", "x"); err == nil {
		t.Error("Submit of a message, not a view, gave a request")
	}
	sub, err := s.Submit(views[0], "U0ANA", "over budget")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(sub.Body)
	form, _ := url.ParseQuery(string(body))
	var cb slack.InteractionCallback
	if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil || cb.View.PrivateMetadata != "m1" || cb.View.State.Values["answer"]["text"].Value != "over budget" {
		t.Errorf("submission = %s, %v", form.Get("payload"), err)
	}

	var methods []string
	for _, r := range s.Requests() {
		methods = append(methods, r.Method+":"+r.Error)
	}
	want := "conversations.open: chat.postMessage: chat.postMessage: chat.update: chat.update:message_not_found chat.postEphemeral: views.open:"
	if strings.Join(methods, " ") != want {
		t.Errorf("log = %v, want %s", methods, want)
	}
	for _, r := range s.Requests() {
		if strings.Contains(r.String()+string(r.Blocks)+r.Text, "xoxb-1") {
			t.Errorf("the token is in the log: %v", r)
		}
	}
}

// TestCredentialsAndUnknownMethods: a call without the bot token is not_authed, with
// another invalid_auth, and a method the fake does not know unknown_method; each is logged
// and changes nothing.
func TestCredentialsAndUnknownMethods(t *testing.T) {
	ctx := t.Context()
	s := hitlslacktest.NewServer(t)
	for token, want := range map[string]string{"": "not_authed", "xoxb-someone-else": "invalid_auth"} {
		api := slack.New(token, slack.OptionAPIURL(s.URL), slack.OptionHTTPClient(s.Client()))
		if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("token %q: %v, want %s", token, err, want)
		}
	}
	if _, err := s.API().GetUserInfoContext(ctx, "U1"); err == nil || !strings.Contains(err.Error(), "unknown_method") {
		t.Errorf("users.info = %v, want unknown_method", err)
	}
	for _, r := range s.Requests() {
		if r.OK() {
			t.Errorf("%v succeeded", r)
		}
	}
}

// TestBadDays: RateLimit answers 429 with Retry-After, which slack-go reads; Fail answers
// the error given, once per call; a stalled call ends with its caller's context.
func TestBadDays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := hitlslacktest.NewMemoryServer(t)
		api := s.API()
		s.RateLimit("chat.postMessage", 30*time.Second, 0)
		for _, want := range []time.Duration{30 * time.Second, time.Second} {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
			var rl *slack.RateLimitedError
			if !errors.As(err, &rl) || rl.RetryAfter != want {
				t.Errorf("rate limited: %v, want Retry-After %v", err, want)
			}
		}
		s.Fail("chat.postMessage", "channel_not_found")
		s.Fail("chat.postMessage", "is_archived")
		for _, want := range []string{"channel_not_found", "is_archived", ""} {
			_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("hi", false))
			if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
				t.Errorf("Fail: %v, want %q", err, want)
			}
		}
		s.Stall("chat.update")
		short, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		_, _, _, err := api.UpdateMessageContext(short, "C1", "1700000000.000001", slack.MsgOptionText("x", false))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stalled update = %v, want the deadline", err)
		}
		if got, _ := s.Await(ctx, "chat.update", 1); got[0].Status != 0 {
			t.Errorf("stalled call logged as %v, want Status 0", got[0])
		}
	})
}

// TestCloseEndsStalledCalls: Close returns while a call is stalled, the call ends, and an
// Await still waiting is told; the package's leak check holds the goroutines.
func TestCloseEndsStalledCalls(t *testing.T) {
	s := hitlslacktest.NewUnstartedServer()
	s.Start()
	s.Stall("chat.postMessage")
	done := make(chan error, 1)
	go func() {
		_, _, err := s.API().PostMessageContext(context.Background(), "C1", slack.MsgOptionText("hi", false))
		done <- err
	}()
	if _, err := s.Await(t.Context(), "chat.postMessage", 1); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := s.Await(context.Background(), "views.open", 1)
		waiting <- err
	}()
	s.Close()
	s.Close()
	if err := <-done; err == nil {
		t.Error("a stalled call succeeded after Close")
	}
	if err := <-waiting; err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Await after Close = %v", err)
	}
}

// TestHostileCalls: bodies that are not a form, not JSON, oversized, or blocks that are not
// Block Kit are answered as Slack would (an error, 413) and logged, without a panic;
// Buttons of garbage are none.
func TestHostileCalls(t *testing.T) {
	s := hitlslacktest.NewServer(t)
	post := func(method, contentType, body string) int {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+method, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Authorization", "Bearer "+hitlslacktest.DefaultBotToken)
		resp, err := s.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct{ method, ct, body string }{
		{"chat.postMessage", "application/x-www-form-urlencoded", "%%%"},
		{"chat.postMessage", "application/json", "{"},
		{"chat.postMessage", "application/json", `{"channel":7}`},
		{"chat.postMessage", "application/x-www-form-urlencoded", "channel=C1&blocks=" + url.QueryEscape(`[{"type":"actions","elements":"x"}]`)},
		{"chat.postMessage", "application/x-www-form-urlencoded", "channel=C1&blocks=not-json"},
		{"views.open", "application/json", `{"trigger_id":"t","view":[1,2]}`},
		{"users.info", "text/plain", "x"},
		{"conversations.open", "application/x-www-form-urlencoded", "users=U1,U2"},
	} {
		if code := post(c.method, c.ct, c.body); code != http.StatusOK {
			t.Errorf("%s %q answered %d", c.method, c.body, code)
		}
	}
	if code := post("chat.postMessage", "text/plain", strings.Repeat("x", 2<<20)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 MiB call answered %d, want 413", code)
	}
	for _, r := range s.Requests() {
		_ = r.String()
		if len(r.Buttons()) != 0 {
			t.Errorf("buttons read from garbage: %v", r)
		}
	}
	for _, raw := range []string{"", "null", "[", `{"blocks":7}`, `[{"type":"actions","elements":[{"type":"button"}]}]`} {
		_ = hitlslacktest.Request{Blocks: json.RawMessage(raw)}.Buttons()
	}
}
