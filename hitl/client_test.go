package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// human answers every case the fake creates, in order, with the next decision.
func human(t *testing.T, s *hitltest.Server, decide ...func(id string) error) {
	t.Helper()
	done := t.Context().Done()
	go func() {
		for _, d := range decide {
			id := s.NextCase(done)
			if id == "" {
				return
			}
			if err := d(id); err != nil {
				t.Errorf("scripted human: %v", err)
			}
		}
	}()
}

func post(t *testing.T, url, auth string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"query":"deploy"}`))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return req
}

// TestDoEveryReviewType: an agent calls the fake once per review type; a scripted human
// answers; Do returns the typed Result with the original response.
func TestDoEveryReviewType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		var forwarded bytes.Buffer
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(hitl.WriteTo(&forwarded)))
		if err != nil {
			t.Fatal(err)
		}
		human(t, s,
			func(id string) error {
				return s.Respond(id, "approve", map[string]any{"feedback": "ship it"}, &transport.Responder{Name: "Ana"})
			},
			func(id string) error {
				return s.Respond(id, "select", map[string]any{"selected": []string{"job_2"}}, nil)
			},
			func(id string) error {
				if err := s.Progress(id, hitl.Progress{CurrentStep: 1, TotalSteps: 1, CompletedFields: 1, TotalFields: 3}); err != nil {
					return err
				}
				<-time.After(5 * time.Second) // virtual time: the human fills the form
				return s.Respond(id, "submit", map[string]any{"salary_expectation": 95000, "start_date": "2027-01-04", "remote": true}, nil)
			},
			func(id string) error {
				return s.Respond(id, "confirm", map[string]any{"confirmed_items": []string{"email_001"}}, nil)
			},
			func(id string) error {
				return s.Respond(id, "retry", map[string]any{"modified_params": map[string]any{"strategy": "canary"}}, nil)
			},
		)
		type row struct {
			Type, Action, Detail string
		}
		var got []row
		for _, typ := range []string{"approval", "selection", "input", "confirmation", "escalation"} {
			resp, err := c.Do(t.Context(), post(t, s.URL+"/actions/"+typ, ""), &hitl.CallOptions{EveryDecisionOK: true})
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted || !bytes.Contains(body, []byte(`"human_input_required"`)) {
				t.Errorf("%s: original response not returned: %d %.40q", typ, resp.StatusCode, body)
			}
			r := resp.Result
			var detail string
			switch typ {
			case "approval":
				a, err := hitl.ApprovalOf(r)
				detail = a.Feedback + errString(err) + r.RespondedBy.Name
			case "selection":
				sel, err := hitl.SelectionOf(r)
				detail = strings.Join(sel.Selected, ",") + errString(err)
			case "input":
				in, err := hitl.InputOf(r)
				detail = in["salary_expectation"].(json.Number).String() + " " + in["start_date"].(string) + errString(err)
			case "confirmation":
				cf, err := hitl.ConfirmationOf(r)
				detail = strings.Join(cf.ConfirmedItems, ",") + errString(err)
			case "escalation":
				e, err := hitl.EscalationOf(r)
				detail = string(e.ModifiedParams) + errString(err)
			}
			got = append(got, row{typ, r.Action, detail})
			if r.Decision == "" || r.CaseID != resp.Interrupt.ID() {
				t.Errorf("%s: result %+v", typ, r)
			}
		}
		want := []row{{"approval", "approve", "ship itAna"}, {"selection", "select", "job_2"},
			{"input", "submit", "95000 2027-01-04"}, {"confirmation", "confirm", "email_001"},
			{"escalation", "retry", `{"strategy":"canary"}`}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if n := strings.Count(forwarded.String(), "Review: "+s.URL+"/review/"); n != 5 {
			t.Errorf("forwarded %d review links, want 5:\n%s", n, forwarded.String())
		}
	})
}

func errString(err error) string {
	if err != nil {
		return " err=" + err.Error()
	}
	return ""
}

// TestDoExpiryAndCancel: an expiry applying default approve and a cancelled case are
// Results, not errors, and neither looks like a human decision.
func TestDoExpiryAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		human(t, s, func(string) error { return nil }, func(id string) error { return s.Cancel(id, "request withdrawn") })

		req := post(t, s.URL+"/actions/approval", "")
		req.Body = io.NopCloser(strings.NewReader(`{"default_action":"approve","timeout":"2m"}`))
		start := time.Now()
		every := &hitl.CallOptions{EveryDecisionOK: true}
		expired, err := c.Do(t.Context(), req, every)
		if err != nil {
			t.Fatal(err)
		}
		cancelled, err := c.Do(t.Context(), post(t, s.URL+"/actions/confirmation", ""), every)
		if err != nil {
			t.Fatal(err)
		}
		_ = expired.Body.Close()
		_ = cancelled.Body.Close()
		got := []*summary{summarize(expired.Result), summarize(cancelled.Result)}
		want := []*summary{{Status: transport.StatusExpired, DefaultAction: "approve", DefaultApplied: true},
			{Status: transport.StatusCancelled, Reason: "request withdrawn"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		// The expiry was learned by polling, at the first poll past expires_at.
		if d := expired.Result.EndedAt.Sub(start); d != 2*time.Minute {
			t.Errorf("expired_at %v after the call, want 2m", d)
		}
	})
}

// TestInterruptResumes: an interrupt saved as JSON by one process is waited on by another and
// yields the same Result.
func TestInterruptResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		first, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := detect(t, first, post(t, s.URL+"/actions/approval", "Bearer agent-key"))
		saved, err := json.Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Respond(it.ID(), "reject", map[string]any{"feedback": "not today"}, nil); err != nil {
			t.Fatal(err)
		}

		var restored hitl.Interrupt
		if err := json.Unmarshal(saved, &restored); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(it, &restored); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		second, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()),
			transport.WithAuthorization(func(context.Context) (string, error) { return "Bearer agent-key", nil }))
		a, err := second.Wait(t.Context(), &restored, nil)
		b, err2 := second.Wait(t.Context(), it, nil)
		if err != nil || err2 != nil {
			t.Fatal(err, err2)
		}
		if diff := cmp.Diff(a, b); diff != "" || a.Action != "reject" {
			t.Errorf("results differ or wrong action %q (-want +got):\n%s", a.Action, diff)
		}
		for _, r := range s.Requests() {
			if r.Method == http.MethodGet && r.Header.Get("Authorization") != "Bearer agent-key" {
				t.Errorf("poll %s without the agent's credential", r.Path)
			}
		}
	})
}

// TestCredentialsStayOnOrigin: a 202 whose poll_url points at another origin does not get the
// agent's credential, unless the client trusts that origin.
func TestCredentialsStayOnOrigin(t *testing.T) {
	body := with(func(h map[string]any) {
		h["poll_url"] = "https://collector.evil.example/reviews/abc123/status"
		h["created_at"], h["expires_at"] = "2000-01-01T00:00:00Z", "2000-01-02T00:00:00Z"
	})
	for _, trusted := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			svc := &script{replies: []reply{{202, map[string]string{"Content-Type": "application/json"}, body}}}
			collector := &script{replies: []reply{ok(strings.ReplaceAll(completedApprove, "review_c1", "review_abc123"))}}
			rt := hostRouter{"api.svc.example": svc, "collector.evil.example": collector}
			opts := []transport.Option{hitl.WithForwarder(hitl.WriteTo(io.Discard))}
			if trusted {
				opts = append(opts, hitl.WithTrustedOrigins("https://collector.evil.example"))
			}
			resp, err := newClient(t, rt, opts...).Do(t.Context(), post(t, "https://api.svc.example/v1/search", "Bearer agent-key"), nil)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			reqs, _ := collector.requests()
			got := reqs[0].Header.Get("Authorization")
			want := ""
			if trusted {
				want = "Bearer agent-key"
			}
			if got != want {
				t.Errorf("trusted=%v: poll carried Authorization %q, want %q", trusted, got, want)
			}
		})
	}
}

type hostRouter map[string]*script

func (h hostRouter) RoundTrip(req *http.Request) (*http.Response, error) {
	s, ok := h[req.URL.Hostname()]
	if !ok {
		return nil, errors.New("no route to " + req.URL.Hostname())
	}
	return s.RoundTrip(req)
}

// TestDoWithoutHuman: responses that need no human come back untouched, and nothing is
// forwarded.
func TestDoWithoutHuman(t *testing.T) {
	rt := &script{replies: []reply{{200, nil, `{"ok":true}`}, {202, nil, `{"status":"queued"}`}}}
	forwards := 0
	c := newClient(t, rt, hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { forwards++; return nil }))
	for _, want := range []string{`{"ok":true}`, `{"status":"queued"}`} {
		resp, err := c.Do(t.Context(), post(t, "https://api.svc.example/x", ""), nil)
		if err != nil || resp.Interrupt != nil || resp.Result != nil {
			t.Fatalf("Do = %+v, %v", resp, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if string(b) != want {
			t.Errorf("body %q, want %q", b, want)
		}
	}
	if forwards != 0 {
		t.Errorf("forwarded %d times", forwards)
	}
}

// TestFaultsFromTheFake: the fake's injected faults, end to end.
func TestFaultsFromTheFake(t *testing.T) {
	tests := []struct {
		fault   hitltest.Fault
		n       int
		wantErr error
	}{
		{hitltest.Fault503, 5, nil},
		{hitltest.Fault500, 2, nil},
		{hitltest.Fault429, 3, nil},
		{hitltest.Fault429Date, 2, nil},
		{hitltest.FaultTruncated, 2, nil},
		{hitltest.FaultStall, 2, nil},
		{hitltest.FaultResetMidBody, 2, nil},
		{hitltest.FaultOversized, 1, transport.ErrBodyTooLarge},
		{hitltest.FaultUnauthorized, 1, transport.ErrUnauthorized},
		{hitltest.FaultNotFound, 1, transport.ErrNotFound},
		{hitltest.FaultGone, 1, transport.ErrNotFound},
	}
	for _, tt := range tests {
		for _, profile := range hitltest.Profiles() {
			t.Run(faultName(tt.fault)+" "+profile.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s := hitltest.NewMemoryServer(t, hitltest.WithProfile(profile))
					c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
					it := detect(t, c, post(t, s.URL+"/actions/approval", ""))
					id := it.ID()
					s.FailNext(id, tt.fault, tt.n)
					if err := s.Respond(id, "approve", nil, nil); err != nil {
						t.Fatal(err)
					}
					res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
					if tt.wantErr != nil {
						if !errors.Is(err, tt.wantErr) {
							t.Fatalf("Wait = %v, %v; want %v", res, err, tt.wantErr)
						}
						return
					}
					if err != nil || res.Action != "approve" {
						t.Fatalf("Wait = %+v, %v; want the approval", res, err)
					}
					st, _ := s.Case(id)
					if st.Polls != tt.n+1 {
						t.Errorf("%d polls, want %d (one per fault, then the answer)", st.Polls, tt.n+1)
					}
				})
			})
		}
	}
}

func faultName(f hitltest.Fault) string {
	return map[hitltest.Fault]string{hitltest.Fault503: "503", hitltest.Fault500: "500", hitltest.Fault429: "429",
		hitltest.Fault429Date: "429 date", hitltest.FaultTruncated: "malformed", hitltest.FaultStall: "stall", hitltest.FaultResetMidBody: "reset mid-body",
		hitltest.FaultOversized: "oversized", hitltest.FaultUnauthorized: "401", hitltest.FaultNotFound: "404",
		hitltest.FaultGone: "410"}[f]
}

// TestRateLimitRespected: a fake that allows only 5 polls a minute answers 429 with a
// Retry-After, and the client waits it out instead of hammering.
func TestRateLimitRespected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRateLimit(5))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := detect(t, c, post(t, s.URL+"/actions/approval", ""))
		id := it.ID()
		time.AfterFunc(3*time.Minute, func() { _ = s.Respond(id, "approve", nil, nil) })
		if _, err := c.Wait(t.Context(), it, nil); err != nil {
			t.Fatal(err)
		}
		limited := 0
		for _, r := range s.Requests() {
			if r.Status == http.StatusTooManyRequests {
				limited++
			}
		}
		st, _ := s.Case(id)
		// 3 minutes at 5 a minute: at most 5 accepted and 1 refused per window, then the
		// answer in the fourth; a client that ignored the 429's Retry-After would be refused ~170 times.
		if st.Polls > 4*(5+1) || limited > 4 {
			t.Errorf("%d polls, %d refused with 429", st.Polls, limited)
		}
	})
}

// TestSecretsStayOutOfLogsAndErrors: the review token and the agent's key appear in no log
// record and no error string.
func TestSecretsStayOutOfLogsAndErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		s := hitltest.NewMemoryServer(t)
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(hitl.WriteTo(io.Discard)),
			transport.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		human(t, s, func(id string) error {
			s.FailNext(id, hitltest.Fault503, 2)
			s.FailNext(id, hitltest.FaultNotFound, 1)
			return nil
		})
		resp, err := c.Do(t.Context(), post(t, s.URL+"/actions/approval", "Bearer sk_agent_secret"), nil)
		if err == nil {
			t.Fatal("want the 404 to end the wait")
		}
		_ = resp.Body.Close()
		token := resp.Interrupt.ReviewURL()[strings.Index(resp.Interrupt.ReviewURL(), "token=")+6:]
		texts := []string{logs.String(), err.Error(), resp.Interrupt.String(), (*resp.Interrupt.Case).GoString()}
		for _, text := range texts {
			for _, secret := range []string{token, "sk_agent_secret"} {
				if strings.Contains(text, secret) {
					t.Errorf("secret %.6s… leaked in %q", secret, text)
				}
			}
		}
		if !strings.Contains(logs.String(), "poll") {
			t.Errorf("expected debug records, got %q", logs.String())
		}
	})
}
