package interop

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	hk "github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/transport"
)

// TestMain checks that no goroutine outlives the tests, except one of the peer's own: a2a-go
// destroys a task's in-memory event broker in the background after its execution ends, and
// that goroutine is sometimes still finishing when the last test returns. Every goroutine of
// hitlkit's is checked.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/a2aproject/a2a-go/v2/a2asrv/eventqueue.newInMemoryEventBroker.func1"))
}

var bindings = []hk.Binding{hk.JSONRPC10, hk.REST10, hk.JSONRPC03, hk.REST03}

func client(t *testing.T, p *peer) *hk.Client {
	t.Helper()
	c, err := hk.NewClient(transport.WithHTTPClient(p.hc), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestFourEndpoints: on each endpoint of the real server, hitlkit detects the pause, asks,
// resumes to completion over two questions, and gets a typed error for a resume of the
// completed task.
func TestFourEndpoints(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			p := startPeer(t, 2)
			c := client(t, p)
			ep := p.endpoint(b)
			ev, err := c.Send(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up the reports")}}, nil)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			pause := hk.NewPause(ep, ev.Task)
			if pause == nil || pause.Class != hk.ClassInputRequired || pause.ContextID == "" {
				t.Fatalf("not paused for input: %+v", ev.Task)
			}
			if !strings.Contains(pause.Prompt(), "delete_file") || len(pause.Question.Parts) != 2 || !strings.Contains(string(pause.Question.Parts[1].Data), `"options":["approve","deny"]`) {
				t.Errorf("question = %+v", pause.Question)
			}
			questions := 0
			r, err := c.Run(ctx(t), pause, func(_ context.Context, q *hk.Pause) (hk.Answer, error) {
				questions++
				if q.TaskID != pause.TaskID || q.ContextID != pause.ContextID {
					t.Errorf("question %d for task %s/%s", questions, q.TaskID, q.ContextID)
				}
				return hk.HectorDecision(true), nil
			}, nil)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if r.Status != transport.StatusCompleted || r.Action != "approve" || questions != 2 {
				t.Errorf("result %v after %d questions", r, questions)
			}
			task, err := hk.TaskOf(r)
			if err != nil || len(task.Artifacts) != 1 || !strings.Contains(string(task.Artifacts[0].Parts[0].Data), `"deleted":2`) {
				t.Errorf("task = %+v, %v", task, err)
			}
			if got := p.agent.decisionsOf(pause.TaskID); len(got) != 2 || got[0] != "approve" || got[1] != "approve" {
				t.Errorf("server read %q", got)
			}
			_, err = c.Resume(ctx(t), pause, hk.HectorDecision(true))
			var ae *hk.Error
			if !errors.Is(err, hk.ErrTaskTerminal) || !errors.As(err, &ae) {
				t.Errorf("resume of the completed task: %v", err)
			}
			if _, err := c.GetTask(ctx(t), ep, "no-such-task"); !errors.Is(err, hk.ErrTaskNotFound) {
				t.Errorf("GetTask(unknown): %v", err)
			}
		})
	}
}

// TestDeny: a deny completes the task with the agent's refusal.
func TestDeny(t *testing.T) {
	p := startPeer(t, 1)
	c := client(t, p)
	ep := p.endpoint(hk.REST03)
	ev, err := c.Send(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(ctx(t), hk.NewPause(ep, ev.Task), func(context.Context, *hk.Pause) (hk.Answer, error) { return hk.HectorDecision(false), nil }, nil)
	if err != nil || r.Status != transport.StatusCompleted || r.Action != "deny" {
		t.Fatalf("Run = %v, %v", r, err)
	}
	if got := p.agent.decisionsOf(ev.Task.ID); len(got) != 1 || got[0] != "deny" {
		t.Errorf("server read %q", got)
	}
}

// TestStreams: a streamed send pauses on every endpoint; a subscription to the paused task
// is refused by a2a-go (-32001, no active execution), and the wait polls until the task is
// answered elsewhere.
func TestStreams(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			p := startPeer(t, 1)
			c := client(t, p)
			ep := p.endpoint(b)
			ev, err := c.SendStream(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up")}}, nil)
			if err != nil {
				t.Fatalf("SendStream: %v", err)
			}
			pause := hk.NewPause(ep, ev.Task)
			if pause == nil || pause.Class != hk.ClassInputRequired || pause.Question == nil {
				t.Fatalf("stream ended in %+v", ev.Task)
			}
			answered := make(chan error, 1)
			go func() {
				other := client(t, p)
				_, err := other.Resume(ctx(t), pause, hk.HectorDecision(true))
				answered <- err
			}()
			task, err := c.Wait(ctx(t), pause, &hk.WaitOptions{Stream: true})
			if err != nil || task.State != hk.StateCompleted {
				t.Fatalf("Wait = %+v, %v", task, err)
			}
			if err := <-answered; err != nil {
				t.Fatalf("Resume: %v", err)
			}
		})
	}
}

// TestPushNotifications: the server's push notifications reach hitlkit's receiver with the
// registered token and credentials, in each version's shape, and wake a wait.
func TestPushNotifications(t *testing.T) {
	for _, b := range bindings {
		t.Run(string(b), func(t *testing.T) {
			p := startPeer(t, 1)
			rc := &hk.PushReceiver{Token: "tok-" + string(b[:4]), Authorization: "Bearer cred-1"}
			hook, answered := recordingHook(t, rc)
			c := client(t, p)
			ep := p.endpoint(b)
			cfg := &hk.PushConfig{URL: hook.URL + "/push", Token: rc.Token, Scheme: "Bearer", Credentials: "cred-1"}
			ev, err := c.Send(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up")}}, &hk.SendOptions{Push: cfg})
			if err != nil {
				t.Fatal(err)
			}
			pause := hk.NewPause(ep, ev.Task)
			if pause == nil {
				t.Fatalf("not paused: %+v", ev.Task)
			}
			forget := rc.Expect(pause.TaskID)
			defer forget()
			r, err := c.Run(ctx(t), pause, func(context.Context, *hk.Pause) (hk.Answer, error) { return hk.HectorDecision(true), nil },
				&hk.RunOptions{Wait: hk.WaitOptions{Push: rc}})
			if err != nil || r.Status != transport.StatusCompleted {
				t.Fatalf("Run = %v, %v", r, err)
			}
			// The completed state's notification arrives after the answer: wait for it.
			// At least input-required, then working and completed after the answer.
			for _, code := range answered(3) {
				if code != http.StatusOK {
					t.Errorf("receiver answered %d", code)
				}
			}
		})
	}
}

// TestPushWrongToken: notifications carrying a token other than the one the receiver
// expects are refused with 401, and the wait they would wake stays on its own schedule.
func TestPushWrongToken(t *testing.T) {
	p := startPeer(t, 1)
	rc := &hk.PushReceiver{Token: "expected", Authorization: "Bearer cred-1"}
	hook, answered := recordingHook(t, rc)
	c := client(t, p)
	ep := p.endpoint(hk.JSONRPC10)
	cfg := &hk.PushConfig{URL: hook.URL + "/push", Token: "forged", Scheme: "Bearer", Credentials: "cred-1"}
	ev, err := c.Send(ctx(t), ep, hk.Message{Parts: []hk.Part{hk.TextPart("clean up")}}, &hk.SendOptions{Push: cfg})
	if err != nil || hk.NewPause(ep, ev.Task) == nil {
		t.Fatalf("Send = %+v, %v", ev, err)
	}
	defer rc.Expect(ev.Task.ID)()
	for _, code := range answered(3) {
		if code != http.StatusUnauthorized {
			t.Errorf("receiver answered %d", code)
		}
	}
}

// recordingHook serves rc on loopback and records its answers; answered(n) waits (at most
// 10 s) until n notifications were answered and returns the status codes.
func recordingHook(t *testing.T, rc *hk.PushReceiver) (*httptest.Server, func(n int) []int) {
	t.Helper()
	var (
		mu       sync.Mutex
		statuses []int
		more     = make(chan struct{}, 64)
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		rc.ServeHTTP(rec, r)
		mu.Lock()
		statuses = append(statuses, rec.Code)
		mu.Unlock()
		more <- struct{}{}
		w.WriteHeader(rec.Code)
	}))
	t.Cleanup(hook.Close)
	return hook, func(n int) []int {
		timeout := time.After(10 * time.Second)
		for {
			mu.Lock()
			got := append([]int(nil), statuses...)
			mu.Unlock()
			if len(got) >= n {
				return got
			}
			select {
			case <-more:
			case <-timeout:
				t.Fatalf("only %d notifications answered: %v", len(got), got)
			}
		}
	}
}
