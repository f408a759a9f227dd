package hitl_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// liveClient is a client of a ProfileLive fake that logs at debug into log.
func liveClient(t *testing.T, log *bytes.Buffer, opts ...hitltest.Option) (*hitltest.Server, *hitl.Client, *hitl.Callbacks) {
	cb := newCallbacks(t)
	s := hitltest.NewMemoryServer(t, append([]hitltest.Option{hitltest.WithProfile(hitltest.ProfileLive), hitltest.WithCallbackHandler(cb)}, opts...)...)
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithLogger(logger), hitl.WithCallbacks(cb))
	if err != nil {
		t.Fatal(err)
	}
	return s, c, cb
}

// TestLiveServiceEndToEnd: against the live service's profile, a 202 without prompt,
// created_at and expires_at is a case that expires after its timeout; its event stream's
// review.status catch-up is read as the case's status (a case decided before the wait began
// ends it at once, not at the 30 s poll); polls follow its pacing (30 s pending, 10 s while
// the human is at it); each departure from the spec is logged once at debug, however many
// cases meet it.
func TestLiveServiceEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		s, c, _ := liveClient(t, &log)
		for range 2 {
			it := open(t, s, c, "approval", nil)
			if it.Case.Prompt != "" || !it.Case.ExpiresAt.Equal(time.Now().Add(24*time.Hour)) || it.Case.Timeout != "24h" {
				t.Fatalf("case: prompt %q, expires %v, timeout %q", it.Case.Prompt, it.Case.ExpiresAt, it.Case.Timeout)
			}
			if err := s.Respond(it.ID(), "approve", nil, nil); err != nil {
				t.Fatal(err)
			}
			it.PollAfter = time.Now().Add(30 * time.Second) // the 202's Retry-After
			start := time.Now()
			res, err := c.Wait(t.Context(), it, nil)
			if err != nil || res.Action != "approve" {
				t.Fatalf("Wait = %v, %v", res, err)
			}
			if d := time.Since(start); d != 0 {
				t.Errorf("Wait took %v; the stream's review.status said completed at once", d)
			}
		}
		for _, msg := range []string{"prompt missing", "created_at missing", "expires_at missing", "review.status"} {
			if n := strings.Count(log.String(), msg); n != 1 {
				t.Errorf("%q logged %d times over two cases, want once:\n%s", msg, n, log.String())
			}
		}

		// Pacing: pending polls 30 s apart, then 10 s while the human is at it.
		it := open(t, s, c, "approval", nil)
		after(t, 65*time.Second, func() error { return s.Open(it.ID()) })
		after(t, 95*time.Second, func() error { return s.Respond(it.ID(), "reject", nil, nil) })
		start := time.Now()
		res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
		if err != nil || res.Action != "reject" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
		var at []time.Duration
		for _, r := range s.Requests() {
			if r.CaseID == it.ID() && strings.HasSuffix(r.Path, "/status") {
				at = append(at, r.Time.Sub(start))
			}
		}
		want := []time.Duration{30 * time.Second, 60 * time.Second, 90 * time.Second, 100 * time.Second}
		if len(at) != len(want) {
			t.Fatalf("polls at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Errorf("polls at %v, want %v", at, want)
				break
			}
		}
	})
}

// TestLiveServiceCallbacks: the live service's callbacks, signed algorithm=HS256,
// value=<base64url>, are verified and end the wait at the click, not at the next poll.
func TestLiveServiceCallbacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		s, c, _ := liveClient(t, &log, hitltest.WithoutEvents())
		it := open(t, s, c, "approval", &hitl.CallOptions{CallbackURL: agentCallbackURL})
		after(t, 10*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
		start := time.Now()
		res, err := c.Wait(t.Context(), it, nil)
		if err != nil || res.Action != "approve" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("Wait returned after %v, want 10s (the callback)", d)
		}
		synctest.Wait()
		cbs := s.Callbacks()
		if len(cbs) != 1 || cbs[0].Status != 200 {
			t.Errorf("callbacks %+v, want one answered 200", cbs)
		}
	})
}

// TestLiveServiceAnswerMayChange: the live service lets a submitted answer change for five
// minutes. With that window, the Result says until when (FinalAt); Final waits until then
// and returns the answer the human changed it to, final; after the window the service
// refuses a change.
func TestLiveServiceAnswerMayChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		s, c, _ := liveClient(t, &log)
		it := open(t, s, c, "approval", nil)
		after(t, 10*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
		after(t, 2*time.Minute, func() error { return s.Respond(it.ID(), "reject", nil, nil) })
		o := &hitl.WaitOptions{ChangeWindow: hitltest.LiveChangeWindow}
		res, err := c.Wait(t.Context(), it, o)
		if err != nil || res.Action != "approve" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
		if want := res.EndedAt.Add(hitltest.LiveChangeWindow); !res.FinalAt.Equal(want) {
			t.Fatalf("FinalAt = %v, want %v (completed + 5 min)", res.FinalAt, want)
		}
		final, err := c.Final(t.Context(), it, res, o)
		if err != nil || final.Action != "reject" || !final.FinalAt.IsZero() {
			t.Fatalf("Final = %+v, %v; want the changed answer, final", final, err)
		}
		if got := time.Since(res.EndedAt); got != hitltest.LiveChangeWindow {
			t.Errorf("Final returned %v after the answer, want at the end of the window", got)
		}
		if err := s.Respond(it.ID(), "approve", nil, nil); !errors.Is(err, hitltest.ErrEnded) {
			t.Errorf("a change after the window = %v, want ErrEnded", err)
		}
		// Without the window the Result is final as returned, and Final returns it as is.
		if r, err := c.Wait(t.Context(), it, nil); err != nil || !r.FinalAt.IsZero() {
			t.Errorf("Wait without a window = %+v, %v", r, err)
		} else if same, _ := c.Final(t.Context(), it, r, nil); same != r {
			t.Error("Final of a final Result is not that Result")
		}
	})
}

// TestLiveServiceInlineChange: the live service takes a second inline submission within
// five minutes of the first, replacing the answer, and refuses one after them with 409
// (ErrCaseClosed).
func TestLiveServiceInlineChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		s, c, _ := liveClient(t, &log)
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/confirmation", strings.NewReader(`{"inline":true}`))
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
		if err != nil || resp.Interrupt == nil {
			t.Fatalf("Do = %v, %v", resp, err)
		}
		_ = resp.Body.Close()
		it := resp.Interrupt
		answer := func(action string) error {
			_, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: action, Via: hitl.ViaTelegram,
				By: hitl.Submitter{Platform: "telegram", PlatformUserID: "42"}})
			return err
		}
		if err := answer("confirm"); err != nil {
			t.Fatal(err)
		}
		<-time.After(2 * time.Minute)
		if err := answer("cancel"); err != nil {
			t.Fatalf("a change within the window = %v", err)
		}
		if r, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true}); err != nil || r.Action != "cancel" {
			t.Fatalf("Wait = %+v, %v; want the changed answer", r, err)
		}
		<-time.After(hitltest.LiveChangeWindow)
		if err := answer("confirm"); !errors.Is(err, hitl.ErrCaseClosed) {
			t.Errorf("a change after the window = %v, want ErrCaseClosed (409)", err)
		}
	})
}

// TestFinalWithoutCompletedAt: a completed poll without completed_at starts the change
// window when the answer is first seen; later polls of the same answer do not restart it,
// so Final ends at the end of that window with one more poll, the answer final.
func TestFinalWithoutCompletedAt(t *testing.T) {
	for _, tc := range []struct{ name, later, want string }{
		{"same answer", `{"status":"completed","result":{"action":"approve"}}`, "approve"},
		{"changed answer", `{"status":"completed","result":{"action":"reject"}}`, "reject"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := &script{replies: []reply{{status: 200, body: `{"status":"completed","result":{"action":"approve"}}`},
					{status: 200, body: tc.later}}}
				c := newClient(t, rt)
				it := interrupt("review_nostamp", 24*time.Hour)
				o := &hitl.WaitOptions{PollOnly: true, ChangeWindow: 5 * time.Minute}
				start := time.Now()
				res, err := c.Wait(t.Context(), it, o)
				if err != nil || !res.FinalAt.Equal(start.Add(5*time.Minute)) {
					t.Fatalf("Wait = %+v, %v; want FinalAt 5 min after the answer was seen", res, err)
				}
				ctx, cancel := context.WithTimeout(t.Context(), 2*time.Hour)
				defer cancel()
				final, err := c.Final(ctx, it, res, o)
				if err != nil || final.Action != tc.want || !final.FinalAt.IsZero() {
					t.Fatalf("Final = %+v, %v; want %s, final", final, err, tc.want)
				}
				if got := time.Since(start); got != 5*time.Minute {
					t.Errorf("Final returned %v after the answer was seen, want 5m0s", got)
				}
				if reqs, _ := rt.requests(); len(reqs) != 2 {
					t.Errorf("%d polls, want 2 (the wait's and one at the end of the window)", len(reqs))
				}
			})
		})
	}
}
