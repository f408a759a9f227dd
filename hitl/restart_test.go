package hitl_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRestartLosesNoDecision: an agent saves its interrupts, is stopped mid-wait (its waits
// following event streams and polling), and the humans answer while it is down. A new
// process with a new client restores the interrupts and gets every decision, each the one
// that was made.
func TestRestartLosesNoDecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Second))
		auth := transport.WithAuthorization(func(context.Context) (string, error) { return "Bearer agent-key", nil })
		before, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), auth)
		want := map[string]string{}
		var saved [][]byte
		for _, typ := range []string{"approval", "confirmation", "escalation"} {
			it := detect(t, before, post(t, s.URL+"/actions/"+typ, "Bearer agent-key"))
			b, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			saved = append(saved, b)
			want[it.ID()] = map[string]string{"approval": "reject", "confirmation": "confirm", "escalation": "abort"}[typ]
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

		after, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), auth)
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
		first, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := detect(t, first, post(t, s.URL+"/actions/approval", ""))
		id := it.ID()
		if err := s.Remind(id, "before the restart"); err != nil {
			t.Fatal(err)
		}
		<-time.After(time.Hour)
		var reminders []int
		after, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error {
			reminders = append(reminders, it.Reminder)
			return nil
		}))
		go func() {
			<-time.After(10 * time.Minute)
			_ = s.Remind(id, "during the wait")
			<-time.After(10 * time.Minute)
			_ = s.Respond(id, "approve", nil, nil)
		}()
		if _, err := after.Wait(context.Background(), it, nil); err != nil {
			t.Fatal(err)
		}
		if len(reminders) != 1 || reminders[0] != 1 {
			t.Errorf("reminders forwarded %v, want exactly one (the one during the wait)", reminders)
		}
	})
}

// TestCarryOnFromCheckpoint: a wait reports how far it has come (the poll's entity tag, the
// stream's last event id); a wait begun elsewhere from that Checkpoint sends them with its
// first poll and its first stream connection, so the service answers 304 and replays no
// event, and it gets the decision.
func TestCarryOnFromCheckpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Second))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := detect(t, c, post(t, s.URL+"/actions/approval", ""))
		if err := s.Open(it.ID()); err != nil {
			t.Fatal(err)
		}

		// The first wait runs for a minute and keeps its last checkpoint.
		var last hitl.Checkpoint
		ctx, stop := context.WithTimeout(context.Background(), time.Minute)
		_, err := c.Wait(ctx, it, &hitl.WaitOptions{OnCheckpoint: func(cp hitl.Checkpoint) { last = cp }})
		stop()
		if !errors.Is(err, context.DeadlineExceeded) || last.ETag == "" || last.LastEventID == "" {
			t.Fatalf("first wait: %v, checkpoint %+v", err, last)
		}

		// The second carries on from it; the human answers meanwhile.
		seen := len(s.Requests())
		time.AfterFunc(time.Minute, func() { _ = s.Respond(it.ID(), "approve", nil, nil) })
		var updates []hitl.Update
		r, err := c.Wait(context.Background(), it, &hitl.WaitOptions{From: &last, OnUpdate: func(u hitl.Update) { updates = append(updates, u) }})
		if err != nil || r.Action != "approve" {
			t.Fatalf("second wait = %+v, %v", r, err)
		}
		firstPoll, firstStream := true, true
		for _, q := range s.Requests()[seen:] {
			switch {
			case firstPoll && strings.HasSuffix(q.Path, "/status"):
				firstPoll = false
				if got := q.Header.Get("If-None-Match"); got != last.ETag || q.Status != http.StatusNotModified {
					t.Errorf("first poll: If-None-Match %q (want %q), answered %d (want 304)", got, last.ETag, q.Status)
				}
			case firstStream && strings.HasSuffix(q.Path, "/events"):
				firstStream = false
				if got := q.Header.Get("Last-Event-ID"); got != last.LastEventID {
					t.Errorf("first stream: Last-Event-ID %q, want %q", got, last.LastEventID)
				}
			}
		}
		if firstPoll || firstStream {
			t.Errorf("second wait: polled %v, opened a stream %v", !firstPoll, !firstStream)
		}
		for _, u := range updates {
			if u.State == "opened" {
				t.Errorf("the opening was replayed to the second wait: %+v", updates)
			}
		}
	})
}
