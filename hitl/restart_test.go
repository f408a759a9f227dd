package hitl_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
)

// TestRestartLosesNoDecision: an agent saves its interrupts, is stopped mid-wait (its waits
// following event streams and polling), and the humans answer while it is down. A new
// process with a new client restores the interrupts and gets every decision, each the one
// that was made.
func TestRestartLosesNoDecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Second))
		auth := hitl.WithAuthorization(func(context.Context) (string, error) { return "Bearer agent-key", nil })
		before, _ := hitl.NewClient(hitl.WithHTTPClient(s.Client()), auth)
		want := map[string]string{}
		var saved [][]byte
		for _, typ := range []string{"approval", "confirmation", "escalation"} {
			resp, err := before.Do(context.Background(), post(t, s.URL+"/actions/"+typ, "Bearer agent-key"), &hitl.CallOptions{DetectOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			b, err := json.Marshal(resp.Interrupt)
			if err != nil {
				t.Fatal(err)
			}
			saved = append(saved, b)
			want[resp.Interrupt.ID()] = map[string]string{"approval": "reject", "confirmation": "confirm", "escalation": "abort"}[typ]
		}

		// The first process waits on all three and is stopped after a minute.
		stopped := errors.New("process stopped")
		ctx, stop := context.WithCancelCause(context.Background())
		time.AfterFunc(time.Minute, func() { stop(stopped) })
		done := make(chan error, len(saved))
		for _, b := range saved {
			var it hitl.Interrupt
			_ = json.Unmarshal(b, &it)
			go func() {
				_, err := before.Wait(ctx, &it, nil)
				done <- err
			}()
		}
		for range saved {
			if err := <-done; !errors.Is(err, stopped) {
				t.Fatalf("first process's Wait = %v, want its stop cause", err)
			}
		}

		// While it is down, the humans answer.
		<-time.After(10 * time.Minute)
		for id, action := range want {
			if err := s.Respond(id, action, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		<-time.After(time.Hour)

		after, _ := hitl.NewClient(hitl.WithHTTPClient(s.Client()), auth)
		got := map[string]string{}
		for _, b := range saved {
			var it hitl.Interrupt
			if err := json.Unmarshal(b, &it); err != nil {
				t.Fatal(err)
			}
			res, err := after.Wait(context.Background(), &it, nil)
			if err != nil {
				t.Fatal(err)
			}
			got[res.CaseID] = res.Action
		}
		for id, action := range want {
			if got[id] != action {
				t.Errorf("case %s: after restart %q, want %q", id, got[id], action)
			}
		}
		for _, r := range s.Requests() {
			if r.Method == http.MethodGet && r.Header.Get("Authorization") != "Bearer agent-key" {
				t.Errorf("%s without the agent's credential", r.Path)
			}
		}
	})
}

// TestRestartDoesNotRepeatOldReminders: a wait resumed after a restart replays the case's
// event stream from the start; a reminder the service sent before the wait began does not
// make the forwarder send the link again, while one sent during the wait does.
func TestRestartDoesNotRepeatOldReminders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Second))
		first, _ := hitl.NewClient(hitl.WithHTTPClient(s.Client()))
		resp, err := first.Do(context.Background(), post(t, s.URL+"/actions/approval", ""), &hitl.CallOptions{DetectOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		id := resp.Interrupt.ID()
		if err := s.Remind(id, "before the restart"); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Hour)
		var reminders []int
		after, _ := hitl.NewClient(hitl.WithHTTPClient(s.Client()), hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error {
			reminders = append(reminders, it.Reminder)
			return nil
		}))
		go func() {
			<-time.After(10 * time.Minute)
			_ = s.Remind(id, "during the wait")
			<-time.After(10 * time.Minute)
			_ = s.Respond(id, "approve", nil, nil)
		}()
		if _, err := after.Wait(context.Background(), resp.Interrupt, nil); err != nil {
			t.Fatal(err)
		}
		if len(reminders) != 1 || reminders[0] != 1 {
			t.Errorf("reminders forwarded %v, want exactly one (the one during the wait)", reminders)
		}
	})
}
