package hitl_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

func pending(retryAfter string) reply {
	h := map[string]string{"Content-Type": "application/json"}
	if retryAfter != "" {
		h["Retry-After"] = retryAfter
	}
	return reply{200, h, `{"status":"pending","case_id":"review_c1"}`}
}

func ok(body string) reply { return reply{200, nil, body} }

const completedApprove = `{"status":"completed","case_id":"review_c1","completed_at":"2026-02-22T10:05:18Z",
	"result":{"action":"approve","data":{"feedback":"ship it"}},"responded_by":{"name":"Alex","email":"alex@example.com","platform":"slack"},"x_future":1}`

// summary is the part of a Result the poll cases compare.
type summary struct {
	Status         transport.Status
	Action         string
	DefaultAction  string
	DefaultApplied bool
	Human          bool
	Reason         string
}

func summarize(r *transport.Result) *summary {
	if r == nil {
		return nil
	}
	return &summary{r.Status, r.Action, r.DefaultAction, r.DefaultApplied, r.Decision != "", r.Reason}
}

// TestWaitCases is notes/hitl-protocol.md §10, cases 14–23: polling and results. Each row
// runs in a synctest bubble, so the gaps between polls are exact virtual time.
func TestWaitCases(t *testing.T) {
	completed := &summary{Status: transport.StatusCompleted, Action: "approve", Human: true}
	tests := []struct {
		name    string
		replies []reply
		opts    []transport.Option
		ttl     time.Duration
		want    *summary
		wantErr error
		// wantStatus: the wait ends with the *transport.StatusError of this status.
		wantStatus int
		// gaps are the expected delays between consecutive polls; nil skips the check.
		gaps []time.Duration
		// check inspects the requests sent.
		check func(t *testing.T, reqs []*http.Request)
	}{
		{name: "case14 Retry-After 30 is honoured", replies: []reply{pending("30"), pending("30"), ok(completedApprove)},
			want: completed, gaps: []time.Duration{30 * time.Second, 30 * time.Second}},
		{name: "case14 Retry-After above the maximum is clamped", replies: []reply{pending("3600"), ok(completedApprove)},
			opts: []transport.Option{hitl.WithPollIntervals(time.Second, 2*time.Minute)}, want: completed, gaps: []time.Duration{2 * time.Minute}},
		{name: "case14 Retry-After 0 is clamped to the 1 s floor", replies: []reply{pending("0"), ok(completedApprove)},
			want: completed, gaps: []time.Duration{time.Second}},
		{name: "case14 no Retry-After waits the 30 s default", replies: []reply{pending(""), ok(completedApprove)},
			want: completed, gaps: []time.Duration{30 * time.Second}},
		{name: "case15 ETag is sent back and 304 is not parsed",
			replies: []reply{{200, map[string]string{"ETag": `"v1-pending"`, "Retry-After": "5"}, `{"status":"pending","case_id":"review_c1"}`},
				{304, map[string]string{"Retry-After": "5"}, ""}, ok(completedApprove)},
			want: completed, gaps: []time.Duration{5 * time.Second, 5 * time.Second},
			check: func(t *testing.T, reqs []*http.Request) {
				got := []string{reqs[0].Header.Get("If-None-Match"), reqs[1].Header.Get("If-None-Match"), reqs[2].Header.Get("If-None-Match")}
				if diff := cmp.Diff([]string{"", `"v1-pending"`, `"v1-pending"`}, got); diff != "" {
					t.Errorf("If-None-Match (-want +got):\n%s", diff)
				}
			}},
		{name: "case16 304 without a validator sent, ETag * and ETags on 429 ignored",
			replies: []reply{{304, map[string]string{"Retry-After": "2"}, ""},
				{200, map[string]string{"ETag": "*", "Retry-After": "2"}, `{"status":"pending","case_id":"review_c1"}`},
				{429, map[string]string{"ETag": `"x"`, "Retry-After": "2"}, ""}, ok(completedApprove)},
			want: completed,
			check: func(t *testing.T, reqs []*http.Request) {
				for i, r := range reqs {
					if v := r.Header.Get("If-None-Match"); v != "" {
						t.Errorf("poll %d sent If-None-Match %q", i, v)
					}
				}
			}},
		{name: "case17 429 with Retry-After seconds", replies: []reply{{429, map[string]string{"Retry-After": "30"}, ""}, ok(completedApprove)},
			want: completed, gaps: []time.Duration{30 * time.Second}},
		{name: "case17 429 with an HTTP-date", replies: []reply{{429, map[string]string{"Retry-After": "Sat, 01 Jan 2000 00:00:45 GMT"}, ""}, ok(completedApprove)},
			want: completed, gaps: []time.Duration{45 * time.Second}},
		{name: "case18 edit with next_case_id", replies: []reply{ok(`{"status":"completed","case_id":"review_c1","completed_at":"2026-02-22T09:22:08Z",
			"result":{"action":"edit","data":{"edits":{"tone":"warmer"}}},"next_case_id":"review_c2","responded_by":{"name":"Alex"}}`)},
			want: &summary{Status: transport.StatusCompleted, Action: "edit", Human: true}},
		{name: "case19 completed without result", replies: []reply{ok(`{"status":"completed","case_id":"review_c1","completed_at":"2026-02-22T09:22:08Z"}`)},
			wantErr: hitl.ErrInvalid},
		{name: "case19 mismatched case_id", replies: []reply{ok(`{"status":"completed","case_id":"review_other","result":{"action":"approve","data":{}}}`)},
			wantErr: hitl.ErrInvalid},
		{name: "case20 expired with default approve is not a human approval",
			replies: []reply{ok(`{"status":"expired","case_id":"review_c1","expired_at":"2026-02-23T10:00:00Z","default_action":"approve"}`)},
			want:    &summary{Status: transport.StatusExpired, DefaultAction: "approve", DefaultApplied: true}},
		{name: "case20 expired without default_action uses the case's",
			replies: []reply{ok(`{"status":"expired","case_id":"review_c1","expired_at":"2026-02-23T10:00:00Z"}`)},
			want:    &summary{Status: transport.StatusExpired, DefaultAction: "skip", DefaultApplied: true}},
		{name: "case21 cancelled with reason",
			replies: []reply{ok(`{"status":"cancelled","case_id":"review_c1","cancelled_at":"2026-02-23T10:00:00Z","reason":"superseded"}`)},
			want:    &summary{Status: transport.StatusCancelled, Reason: "superseded"}},
		{name: "case21 completed with action cancel is completed",
			replies: []reply{ok(`{"status":"completed","case_id":"review_c1","result":{"action":"cancel","data":{}}}`)},
			want:    &summary{Status: transport.StatusCompleted, Action: "cancel", Human: true}},
		{name: "case22 in_progress with and without progress, unknown state",
			replies: []reply{ok(`{"status":"in_progress","case_id":"review_c1","progress":{"current_step":2,"total_steps":3}}`),
				ok(`{"status":"in_progress","case_id":"review_c1"}`), ok(`{"status":"paused","case_id":"review_c1"}`), ok(completedApprove)},
			want: completed},
		{name: "case23 404", replies: []reply{{404, nil, `{"error":"not_found"}`}}, wantErr: transport.ErrNotFound},
		{name: "case23 410", replies: []reply{{410, nil, ""}}, wantErr: transport.ErrNotFound},
		{name: "case23 401", replies: []reply{{401, nil, ""}}, wantErr: transport.ErrUnauthorized},
		{name: "case23 403", replies: []reply{{403, nil, ""}}, wantErr: transport.ErrUnauthorized},
		{name: "case23 5xx until expiry ends with ErrPastExpiry", replies: []reply{{503, nil, ""}}, ttl: 10 * time.Minute,
			wantErr: hitl.ErrPastExpiry},
		{name: "5xx burst then decision", replies: []reply{{500, nil, ""}, {502, nil, ""}, {503, nil, ""}, {504, nil, ""}, ok(completedApprove)},
			want: completed},
		{name: "truncated JSON is retried", replies: []reply{ok(`{"status":"completed","case_id":"review_c1","result":{"act`), ok(completedApprove)},
			want: completed},
		{name: "missing status is retried", replies: []reply{ok(`{"case_id":"review_c1"}`), ok(completedApprove)}, want: completed},
		{name: "status of the wrong type ends the wait", replies: []reply{ok(`{"status":7,"case_id":"review_c1"}`)}, wantErr: hitl.ErrInvalid},
		{name: "unexpected 3xx ends the wait", replies: []reply{{302, map[string]string{"Location": "https://elsewhere.example/"}, ""}}, wantStatus: 302},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &script{replies: tt.replies}
				ttl := tt.ttl
				if ttl == 0 {
					ttl = 24 * time.Hour
				}
				var updates []hitl.Update
				res, err := newClient(t, s, tt.opts...).Wait(t.Context(), interrupt("review_c1", ttl),
					&hitl.WaitOptions{OnUpdate: func(u hitl.Update) { updates = append(updates, u) }})
				var se *transport.StatusError
				if tt.wantErr != nil || tt.wantStatus != 0 {
					if tt.wantErr != nil && !errors.Is(err, tt.wantErr) || tt.wantStatus != 0 && (!errors.As(err, &se) || se.StatusCode != tt.wantStatus) || res != nil {
						t.Fatalf("Wait = %v, %v; want error %v or status %d", res, err, tt.wantErr, tt.wantStatus)
					}
				} else if err != nil {
					t.Fatalf("Wait: %v", err)
				}
				if diff := cmp.Diff(tt.want, summarize(res)); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
				reqs, times := s.requests()
				if tt.gaps != nil {
					var gaps []time.Duration
					for i := 1; i < len(times); i++ {
						gaps = append(gaps, times[i].Sub(times[i-1]))
					}
					if diff := cmp.Diff(tt.gaps, gaps); diff != "" {
						t.Errorf("gaps between polls (-want +got):\n%s", diff)
					}
				}
				if tt.check != nil {
					tt.check(t, reqs)
				}
				// Never more than 60 polls in any minute (§13.5).
				for i := 60; i < len(times); i++ {
					if times[i].Sub(times[i-60]) < time.Minute {
						t.Fatalf("61 polls within %v", times[i].Sub(times[i-60]))
					}
				}
			})
		})
	}
}

// TestWaitReportsUpdates: waiting states reach OnUpdate once per change (cases 22, §8).
func TestWaitReportsUpdates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{replies: []reply{pending("1"), pending("1"),
			ok(`{"status":"opened","case_id":"review_c1","opened_at":"2026-02-22T10:03:42Z"}`),
			ok(`{"status":"in_progress","case_id":"review_c1","progress":{"current_step":2,"total_steps":3,"completed_fields":4,"total_fields":9}}`),
			ok(`{"status":"paused","case_id":"review_c1"}`), ok(completedApprove)}}
		var got []string
		var progress *hitl.Progress
		_, err := newClient(t, s).Wait(t.Context(), interrupt("review_c1", time.Hour), &hitl.WaitOptions{OnUpdate: func(u hitl.Update) {
			got = append(got, u.State)
			if u.Progress != nil {
				progress = u.Progress
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"pending", "opened", "in_progress", "paused"}, got); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(&hitl.Progress{CurrentStep: 2, TotalSteps: 3, CompletedFields: 4, TotalFields: 9}, progress); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
	})
}

// TestWaitPastExpiry: with the service down, the wait ends at expires_at plus the grace, not
// before and not after, and says what the last poll saw.
func TestWaitPastExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{replies: []reply{{503, nil, ""}}}
		start := time.Now()
		_, err := newClient(t, s).Wait(t.Context(), interrupt("review_c1", 10*time.Minute), &hitl.WaitOptions{Grace: 30 * time.Second})
		var se *transport.StatusError
		if !errors.Is(err, hitl.ErrPastExpiry) || !errors.As(err, &se) || se.StatusCode != 503 {
			t.Fatalf("Wait = %v; want ErrPastExpiry joined with the last 503", err)
		}
		if d := time.Since(start); d != 10*time.Minute+30*time.Second {
			t.Errorf("gave up after %v, want 10m30s", d)
		}
		if errors.Is(err, context.Canceled) {
			t.Error("expiry looks like a caller cancel")
		}
	})
}

// TestWaitCancel: the caller's cancel ends the wait at once with the caller's cause.
func TestWaitCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{replies: []reply{pending("300")}}
		ctx, cancel := context.WithCancelCause(t.Context())
		errStop := errors.New("agent shutting down")
		time.AfterFunc(90*time.Second, func() { cancel(errStop) })
		start := time.Now()
		_, err := newClient(t, s).Wait(ctx, interrupt("review_c1", time.Hour), nil)
		if !errors.Is(err, errStop) || errors.Is(err, hitl.ErrPastExpiry) {
			t.Fatalf("Wait = %v; want the caller's cause", err)
		}
		if d := time.Since(start); d != 90*time.Second {
			t.Errorf("returned %v after start, want 90s (at the cancel)", d)
		}
	})
}

// TestWaitRefusesBadInterrupts: Wait validates what it is given, without sending anything.
func TestWaitRefusesBadInterrupts(t *testing.T) {
	s := &script{replies: []reply{ok(completedApprove)}}
	c := newClient(t, s)
	bad := interrupt("review_c1", time.Hour)
	bad.Case.PollURL = "http://evil.example/status"
	badID := interrupt("a/../b", time.Hour)
	for name, it := range map[string]*hitl.Interrupt{"nil": nil, "no case": {Kind: hitl.KindHITL}, "http poll": bad, "bad id": badID} {
		if _, err := c.Wait(t.Context(), it, nil); err == nil {
			t.Errorf("%s: Wait succeeded", name)
		}
	}
	if reqs, _ := s.requests(); len(reqs) != 0 {
		t.Errorf("sent %d requests", len(reqs))
	}
}
