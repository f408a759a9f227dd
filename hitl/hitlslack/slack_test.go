package hitlslack_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

// call is one Web API call the fake Slack received.
type call struct {
	Method  string
	Channel string
	TS      string
	User    string
	Text    string
	Blocks  string
	Status  int
}

func (c call) String() string {
	s := c.Method
	if c.Status != http.StatusOK {
		s += fmt.Sprintf(" → %d", c.Status)
	}
	for _, kv := range [][2]string{{"channel", c.Channel}, {"ts", c.TS}, {"user", c.User}, {"text", c.Text}} {
		if kv[1] != "" {
			s += fmt.Sprintf(" %s=%q", kv[0], kv[1])
		}
	}
	if names := buttonNames(c.Blocks); len(names) > 0 {
		s += " buttons=" + strings.Join(names, ",")
	}
	return s
}

// fakeSlack answers the Web API methods the bot calls, records each call, and answers 429
// when told to. Its handlers are mounted on slack-go's slacktest server, or served in
// memory inside a synctest bubble.
type fakeSlack struct {
	mu      sync.Mutex
	calls   []call
	seq     int
	limited map[string][]int // method → Retry-After seconds of the next answers
	failing map[string]string
	changed chan struct{}
	// stalled methods hold their answer until the request's context ends.
	stalled map[string]bool
}

func newFake() *fakeSlack {
	return &fakeSlack{limited: map[string][]int{}, failing: map[string]string{}, changed: make(chan struct{}), stalled: map[string]bool{}}
}

// newSlack starts slack-go's test server with the fake's methods and returns a client of it.
func newSlack(t *testing.T) (*fakeSlack, *slack.Client) {
	t.Helper()
	f := newFake()
	srv := slacktest.NewTestServer(f.bind)
	srv.Start()
	t.Cleanup(srv.Stop)
	return f, slack.New("xoxb-test-token", slack.OptionAPIURL(srv.GetAPIURL()))
}

// methods are the Web API methods the fake answers.
var methods = []string{"chat.postMessage", "chat.update", "chat.postEphemeral", "conversations.open", "views.open"}

// bind mounts the fake's methods on a slacktest server.
func (f *fakeSlack) bind(c slacktest.Customize) {
	for _, m := range methods {
		c.Handle("/"+m, f.serve)
	}
}

func (f *fakeSlack) mux() http.Handler {
	mux := http.NewServeMux()
	for _, m := range methods {
		mux.HandleFunc("/api/"+m, f.serve)
	}
	return mux
}

// rateLimit makes the next len(secs) calls of method answer 429 with those Retry-After.
func (f *fakeSlack) rateLimit(method string, secs ...int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.limited[method] = append(f.limited[method], secs...)
}

// stall makes every call of method wait for its request's end.
func (f *fakeSlack) stall(method string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stalled[method] = true
}

// fail makes the next call of method answer ok:false with code.
func (f *fakeSlack) fail(method, code string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failing[method] = code
}

func (f *fakeSlack) serve(w http.ResponseWriter, r *http.Request) {
	method := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	body, _ := io.ReadAll(r.Body)
	c := call{Method: method, Status: http.StatusOK}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		var v struct {
			View json.RawMessage `json:"view"`
		}
		_ = json.Unmarshal(body, &v)
		c.Blocks = string(v.View)
	} else {
		form, _ := url.ParseQuery(string(body))
		c.Channel, c.TS, c.User, c.Text, c.Blocks = form.Get("channel"), form.Get("ts"), form.Get("user")+form.Get("users"), form.Get("text"), form.Get("blocks")
		if th := form.Get("thread_ts"); th != "" {
			c.TS = th
		}
	}
	f.mu.Lock()
	if f.stalled[method] {
		c.Status = http.StatusGatewayTimeout
		f.calls = append(f.calls, c)
		close(f.changed)
		f.changed = make(chan struct{})
		f.mu.Unlock()
		<-r.Context().Done()
		return
	}
	var answer any
	switch {
	case len(f.limited[method]) > 0:
		secs := f.limited[method][0]
		f.limited[method] = f.limited[method][1:]
		c.Status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	case f.failing[method] != "":
		answer = map[string]any{"ok": false, "error": f.failing[method]}
		delete(f.failing, method)
	default:
		f.seq++
		ts := fmt.Sprintf("1700000000.%06d", f.seq)
		switch method {
		case "conversations.open":
			answer = map[string]any{"ok": true, "channel": map[string]any{"id": "D" + c.User}}
		case "chat.postMessage":
			answer = map[string]any{"ok": true, "channel": c.Channel, "ts": ts}
			if c.TS == "" {
				c.TS = ts
			}
		case "chat.update":
			answer = map[string]any{"ok": true, "channel": c.Channel, "ts": c.TS, "text": c.Text}
		case "chat.postEphemeral":
			answer = map[string]any{"ok": true, "message_ts": ts}
		case "views.open":
			answer = map[string]any{"ok": true, "view": map[string]any{"id": "V" + ts}}
		}
	}
	f.calls = append(f.calls, c)
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
	if c.Status != http.StatusOK {
		w.WriteHeader(c.Status)
		_, _ = io.WriteString(w, `{"ok":false,"error":"ratelimited"}`)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// all returns the calls so far.
func (f *fakeSlack) all() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// of returns the successful calls of method.
func (f *fakeSlack) of(method string) []call {
	var out []call
	for _, c := range f.all() {
		if c.Method == method && c.Status == http.StatusOK {
			out = append(out, c)
		}
	}
	return out
}

// await waits until n successful calls of method were made, and returns them.
func (f *fakeSlack) await(t *testing.T, method string, n int) []call {
	t.Helper()
	got, ok := f.awaitFor(method, n, 10*time.Second)
	if !ok {
		t.Fatalf("%d successful %s calls after 10 s, want %d; calls: %v", len(got), method, n, f.all())
	}
	return got
}

// awaitFor waits up to d for n successful calls of method.
func (f *fakeSlack) awaitFor(method string, n int, d time.Duration) ([]call, bool) {
	deadline := time.After(d)
	for {
		f.mu.Lock()
		ch := f.changed
		f.mu.Unlock()
		if got := f.of(method); len(got) >= n {
			return got, true
		}
		select {
		case <-ch:
		case <-deadline:
			return f.of(method), false
		}
	}
}

// buttons returns the buttons of a message's blocks: label → value (a URL button's value
// is its URL).
func buttons(t *testing.T, blocks string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var bs slack.Blocks
	if err := json.Unmarshal([]byte(blocks), &bs); err != nil {
		t.Fatalf("blocks: %v", err)
	}
	for _, b := range bs.BlockSet {
		a, ok := b.(*slack.ActionBlock)
		if !ok {
			continue
		}
		for _, e := range a.Elements.ElementSet {
			if btn, ok := e.(*slack.ButtonBlockElement); ok {
				if btn.URL != "" {
					out[btn.Text.Text] = btn.URL
				} else {
					out[btn.Text.Text] = btn.Value
				}
			}
		}
	}
	return out
}

func buttonNames(blocks string) []string {
	var bs slack.Blocks
	if json.Unmarshal([]byte(blocks), &bs) != nil {
		return nil
	}
	var names []string
	for _, b := range bs.BlockSet {
		if a, ok := b.(*slack.ActionBlock); ok {
			for _, e := range a.Elements.ElementSet {
				if btn, ok := e.(*slack.ButtonBlockElement); ok {
					names = append(names, btn.Text.Text)
				}
			}
		}
	}
	return names
}

// clickPayload is a block_actions payload for a click by user on the button with value v of
// the message at channel and ts, spelled by slack-go's own InteractionCallback.
func clickPayload(user, channel, ts, v string) []byte {
	cb := slack.InteractionCallback{
		Type:      slack.InteractionTypeBlockActions,
		User:      slack.User{ID: user, Name: strings.ToLower(user), TeamID: "T1"},
		Team:      slack.Team{ID: "T1"},
		APIAppID:  "A1",
		TriggerID: "trigger-" + ts,
		Container: slack.Container{Type: "message", ChannelID: channel, MessageTs: ts},
		Message:   slack.Message{Msg: slack.Msg{Timestamp: ts}},
		ActionCallback: slack.ActionCallbacks{BlockActions: []*slack.BlockAction{
			{ActionID: "a", BlockID: "decide", Type: "button", Value: v, ActionTs: ts},
		}},
	}
	cb.Channel.ID = channel
	js, err := json.Marshal(&cb)
	if err != nil {
		panic(err)
	}
	return []byte("payload=" + url.QueryEscape(string(js)))
}

// submitPayload is a view_submission payload for a modal opened with private metadata meta,
// with text entered.
func submitPayload(user, meta, text string) []byte {
	cb := slack.InteractionCallback{
		Type: slack.InteractionTypeViewSubmission,
		User: slack.User{ID: user, Name: strings.ToLower(user)},
		View: slack.View{ID: "V1", CallbackID: "hitlslack", PrivateMetadata: meta,
			State: &slack.ViewState{Values: map[string]map[string]slack.BlockAction{"answer": {"text": {Type: "plain_text_input", Value: text}}}}},
	}
	js, err := json.Marshal(&cb)
	if err != nil {
		panic(err)
	}
	return []byte("payload=" + url.QueryEscape(string(js)))
}

// signed is an interactivity request carrying body, signed as Slack signs at time at.
func signed(body []byte, key string, at time.Time) *http.Request {
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(m, "v0:%s:%s", ts, body)
	req := httptest.NewRequest(http.MethodPost, "/slack/interactivity", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(m.Sum(nil)))
	return req
}

// deliver sends a signed request to h as Slack would and returns the status, checking it
// was answered within Slack's 3 seconds.
func deliver(t *testing.T, h http.Handler, req *http.Request) int {
	t.Helper()
	w := httptest.NewRecorder()
	began := time.Now()
	h.ServeHTTP(w, req)
	if d := time.Since(began); d > 3*time.Second {
		t.Errorf("answered after %v, past Slack's 3 s", d)
	}
	return w.Code
}
