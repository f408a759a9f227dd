package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestForms reads the forms of ex04 and ex08 and checks result data against ex08's: the
// flow's own answer passes; each bad answer is reported by key, without its value.
func TestForms(t *testing.T) {
	f08, err := flowInterrupt(t, loadSteps(t, "08-multi-step-input.json")).Case.Form()
	if err != nil || f08 == nil {
		t.Fatalf("ex08 Form() = %v, %v", f08, err)
	}
	if got, want := f08.Summary(), "3-step form: Personal Information → Work Preferences → Review & Submit"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"tax_id", "annual_salary", "hourly_rate"}, f08.SensitiveKeys()); diff != "" {
		t.Errorf("SensitiveKeys (-want +got):\n%s", diff)
	}
	f04, err := flowInterrupt(t, loadSteps(t, "04-input-form.json")).Case.Form()
	if err != nil || f04 == nil || !strings.HasSuffix(f04.Summary(), " fields") || len(f04.All()) < 2 {
		t.Errorf("ex04 Form() = %v, %v", f04, err)
	}

	good := `{"full_name":"Sarah Chen","email":"sarah.chen@example.com","phone":"+49 170 9876543","tax_id":"DE123456789",
		"employment_type":"fulltime","annual_salary":115000,"available_from":"2026-04-01","remote_preference":"hybrid","skills":["frontend","mobile","design"]}`
	if err := f08.Check(t.Context(), json.RawMessage(good)); err != nil {
		t.Errorf("ex08's own answer: %v", err)
	}
	edit := func(change map[string]any) json.RawMessage {
		var m map[string]any
		_ = json.Unmarshal([]byte(good), &m)
		for k, v := range change {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		data json.RawMessage
		want []hitl.FieldError
	}{
		{"not an object", json.RawMessage(`[1]`), []hitl.FieldError{{Field: "data", Problem: "must be a JSON object"}}},
		{"required missing", edit(map[string]any{"tax_id": nil, "skills": []string{}}), []hitl.FieldError{
			{Field: "tax_id", Problem: "required"}, {Field: "skills", Problem: "required"}}},
		{"hidden field present", edit(map[string]any{"hourly_rate": 95}), []hitl.FieldError{
			{Field: "hourly_rate", Problem: "must be absent: its condition hides it"}}},
		{"other branch", edit(map[string]any{"employment_type": "contract", "annual_salary": nil, "hourly_rate": 600}), []hitl.FieldError{
			{Field: "hourly_rate", Problem: "above the maximum 500"}}},
		{"types and rules", edit(map[string]any{"full_name": "S", "email": "not-an-email", "phone": "call me", "annual_salary": "lots",
			"available_from": "April", "remote_preference": "mars", "skills": []string{"frontend", "juggling"}}), []hitl.FieldError{
			{Field: "full_name", Problem: "shorter than 2 characters"}, {Field: "email", Problem: "must be an email address"},
			{Field: "phone", Problem: "does not match the field's pattern"}, {Field: "annual_salary", Problem: "must be a number"},
			{Field: "available_from", Problem: "must be an ISO 8601 date"}, {Field: "remote_preference", Problem: "must be one of the options"},
			{Field: "skills", Problem: "has a value that is not one of the options"}}},
		{"sensitive out of range", edit(map[string]any{"annual_salary": 987654}), []hitl.FieldError{
			{Field: "annual_salary", Problem: "above the maximum 200000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := f08.Check(t.Context(), tt.data)
			var inv *hitl.InvalidError
			if !errors.As(err, &inv) || !errors.Is(err, hitl.ErrInvalid) {
				t.Fatalf("Check = %v, want an *InvalidError", err)
			}
			if diff := cmp.Diff(tt.want, inv.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, secret := range []string{"DE123456789", "987654", "juggling", "not-an-email"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error %q quotes a value", err)
				}
			}
		})
	}

	redacted := string(f08.Redact(json.RawMessage(good)))
	if strings.Contains(redacted, "DE123456789") || strings.Contains(redacted, "115000") || !strings.Contains(redacted, "Sarah Chen") {
		t.Errorf("Redact = %s", redacted)
	}
}

// TestCase36FormShapes: a form with both fields and steps warns and uses the steps; a form
// that cannot be used is an error naming what is wrong; every field type and x- type parse.
func TestCase36FormShapes(t *testing.T) {
	both, err := hitl.ParseForm([]byte(`{"fields":[{"key":"a","label":"A","type":"text"}],"steps":[{"title":"One","fields":[{"key":"b","label":"B","type":"x-color"}]}]}`))
	if err != nil || len(both.Warnings) != 1 || both.Summary() != "1-step form: One" {
		t.Errorf("both: %+v, %v", both, err)
	}
	_, err = hitl.ParseForm([]byte(`{"fields":[{"key":"1a","label":"","type":"select"},{"key":"b","label":"B","type":"text","conditional":{"field":"x","operator":"like","value":1}}]}`))
	var inv *hitl.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("err = %v", err)
	}
	want := []hitl.FieldError{{Field: "form.fields[0].key", Problem: "must match ^[a-zA-Z][a-zA-Z0-9_]*$"},
		{Field: "form.fields[0].label", Problem: "missing"}, {Field: "form.fields[0].options", Problem: "required for select"},
		{Field: "form.fields[1].conditional.operator", Problem: "must be eq, neq, in, gt or lt"}}
	if diff := cmp.Diff(want, inv.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	all, err := hitl.ParseForm([]byte(`{"fields":[{"key":"t","label":"t","type":"text"},{"key":"ta","label":"ta","type":"textarea"},
		{"key":"n","label":"n","type":"number"},{"key":"d","label":"d","type":"date"},{"key":"e","label":"e","type":"email"},
		{"key":"u","label":"u","type":"url"},{"key":"b","label":"b","type":"boolean"},{"key":"s","label":"s","type":"select","options":[{"value":"1","label":"one"}]},
		{"key":"m","label":"m","type":"multiselect","options":[{"value":"1","label":"one"}]},{"key":"r","label":"r","type":"range"},
		{"key":"x","label":"x","type":"x-signature"},{"key":"g","label":"g","type":"number","conditional":{"field":"n","operator":"gt","value":3}}]}`))
	if err != nil || len(all.Warnings) != 0 {
		t.Fatalf("all types: %v, %v", all, err)
	}
	if err := all.Check(t.Context(), []byte(`{"t":"a","ta":"b","n":4,"d":"2026-01-02","e":"a@b.example","u":"https://x.example","b":true,"s":"1","m":["1"],"r":2,"x":"sig","g":1}`)); err != nil {
		t.Errorf("valid answer: %v", err)
	}
	if err := all.Check(t.Context(), []byte(`{"n":2,"g":1,"b":"yes","u":"/rel"}`)); err == nil || !strings.Contains(err.Error(), "g: must be absent") ||
		!strings.Contains(err.Error(), "b: must be true or false") || !strings.Contains(err.Error(), "u: must be an absolute URL") {
		t.Errorf("bad answer: %v", err)
	}
}

// TestSensitiveValuesNeverLogged runs example flow 08 through Wait with debug logging and an
// observer, prints the Result every way, and checks the form errors: the sensitive values
// (tax_id, annual_salary) appear nowhere. The observer sees the progress of the wizard.
func TestSensitiveValuesNeverLogged(t *testing.T) {
	steps := loadSteps(t, "08-multi-step-input.json")
	it := flowInterrupt(t, steps)
	var replies []reply
	for _, s := range steps {
		if s.Request != nil && s.Request.URL == it.Case.PollURL {
			replies = append(replies, reply{status: s.Response.Status, body: string(s.Response.Body)})
		}
	}
	var logs bytes.Buffer
	c := newClient(t, &script{replies: replies}, transport.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var progress []hitl.Progress
	var res *transport.Result
	synctest.Test(t, func(t *testing.T) {
		var err error
		res, err = c.Wait(context.Background(), &hitl.Interrupt{Kind: it.Kind, Case: it.Case, Origin: it.Origin},
			&hitl.WaitOptions{PollOnly: true, OnUpdate: func(u hitl.Update) {
				if u.Progress != nil {
					progress = append(progress, *u.Progress)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
	})
	if diff := cmp.Diff([]hitl.Progress{{CurrentStep: 2, TotalSteps: 3, CompletedFields: 4, TotalFields: 9}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	form, _ := it.Case.Form()
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("result", "result", res, "redacted", json.RawMessage(form.Redact(res.Data)))
	checkErr := form.Check(t.Context(), json.RawMessage(strings.Replace(string(res.Data), `"fulltime"`, `"parttime"`, 1)))
	printed := fmt.Sprint(res, *res) + fmt.Sprintf("%+v %#v", res, *res) + logs.String() + checkErr.Error()
	for _, secret := range []string{"DE123456789", "115000"} {
		if strings.Contains(printed, secret) {
			t.Errorf("sensitive value %s printed:\n%s", secret, printed)
		}
	}
	if in, _ := hitl.InputOf(res); in["tax_id"] != "DE123456789" {
		t.Errorf("the data itself must still hold the value; Input() = %v", in)
	}
}

// TestReminders: a case with three reminder_at times, answered between the second and the
// third. The forwarder is called at creation, once at each of the first two times (the
// service's own review.reminder event at the same moment is not a second reminder), and
// never after the answer or for a time past expiry.
func TestReminders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second), hitltest.WithCaseLifetime(6*time.Hour))
		start := time.Now()
		var (
			mu    sync.Mutex
			calls []string
		)
		fwd := func(_ context.Context, it *hitl.Interrupt) error {
			mu.Lock()
			defer mu.Unlock()
			calls = append(calls, fmt.Sprintf("%v #%d", time.Since(start), it.Reminder))
			return nil
		}
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(fwd))
		if err != nil {
			t.Fatal(err)
		}
		at := func(d time.Duration) string { return `"` + start.Add(d).UTC().Format(time.RFC3339) + `"` }
		body := `{"reminder_at":[` + at(time.Hour) + `,` + at(2*time.Hour) + `,` + at(4*time.Hour) + `,` + at(7*time.Hour) + `]}`
		go func() {
			id := s.NextCase(t.Context().Done())
			<-time.After(90 * time.Minute)
			_ = s.Open(id)
			<-time.After(90 * time.Minute)
			_ = s.Respond(id, "approve", nil, nil)
		}()
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(body))
		resp, err := c.Do(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Result.Action != "approve" {
			t.Errorf("result %v", resp.Result)
		}
		<-time.After(5 * time.Hour) // past the third reminder time: nothing more may come
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff([]string{"0s #0", "1h0m0s #1", "2h0m0s #2"}, calls); diff != "" {
			t.Errorf("forwards (-want +got):\n%s", diff)
		}
	})
}

// TestRemindersSkipInProgress: a human already filling the form is not reminded.
func TestRemindersSkipInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(10*time.Second), hitltest.WithoutEvents())
		start := time.Now()
		var n int
		var mu sync.Mutex
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error {
			mu.Lock()
			n++
			mu.Unlock()
			return nil
		}))
		go func() {
			id := s.NextCase(t.Context().Done())
			<-time.After(time.Minute)
			_ = s.Progress(id, hitl.Progress{CurrentStep: 1, TotalSteps: 2})
			<-time.After(2 * time.Hour)
			_ = s.Respond(id, "submit", map[string]any{"salary_expectation": 1}, nil)
		}()
		body := `{"reminder_at":"` + start.Add(time.Hour).UTC().Format(time.RFC3339) + `"}`
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/input", strings.NewReader(body))
		resp, err := c.Do(context.Background(), req, &hitl.CallOptions{EveryDecisionOK: true})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if n != 1 {
			t.Errorf("forwarded %d times, want once (no reminder while in progress)", n)
		}
	})
}

// TestChainOfThreeRounds is example flow 03's loop on the fake service: two rounds of edits,
// each revised and resubmitted with previous_case_id, then an approval.
func TestChainOfThreeRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithoutEvents())
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
		go func() {
			for i, action := range []string{"edit", "edit", "approve"} {
				id := s.NextCase(t.Context().Done())
				<-time.After(10 * time.Minute)
				_ = s.Respond(id, action, map[string]any{"feedback": fmt.Sprintf("round %d", i+1)}, nil)
			}
		}()
		call := func(previous string) *hitl.Interrupt {
			body := `{"previous_case_id":"` + previous + `"}`
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(body))
			return detect(t, c, req)
		}
		var revisions []string
		rounds, err := c.Chain(context.Background(), call(""), func(_ context.Context, h []hitl.Round) (*hitl.Interrupt, error) {
			a, _ := hitl.ApprovalOf(h[len(h)-1].Result)
			revisions = append(revisions, a.Feedback)
			return call(h[len(h)-1].Interrupt.ID()), nil
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, r := range rounds {
			got = append(got, r.Result.Action)
			if i > 0 && (r.Interrupt.Case.PreviousCaseID != rounds[i-1].Interrupt.ID() || len(r.Interrupt.Warnings) != 0) {
				t.Errorf("round %d: previous %q, warnings %v", i+1, r.Interrupt.Case.PreviousCaseID, r.Interrupt.Warnings)
			}
		}
		if diff := cmp.Diff([]string{"edit", "edit", "approve"}, got); diff != "" {
			t.Errorf("actions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"round 1", "round 2"}, revisions); diff != "" {
			t.Errorf("revise saw (-want +got):\n%s", diff)
		}
		// The fake links the first round forward once the second exists (next_case_id).
		res, err := c.Wait(context.Background(), rounds[0].Interrupt, nil)
		if err != nil || res.NextCaseID != rounds[1].Interrupt.ID() {
			t.Errorf("round 1 next_case_id = %q, %v; want %q", res.NextCaseID, err, rounds[1].Interrupt.ID())
		}
	})
}

// TestChainRoundLimit: a human who keeps asking for edits meets the round limit; the last
// round's edit is the outcome.
func TestChainRoundLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithoutEvents())
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
		go func() {
			for {
				id := s.NextCase(t.Context().Done())
				if id == "" {
					return
				}
				_ = s.Respond(id, "edit", nil, nil)
			}
		}()
		call := func() *hitl.Interrupt {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", nil)
			return detect(t, c, req)
		}
		rounds, err := c.Chain(context.Background(), call(), func(context.Context, []hitl.Round) (*hitl.Interrupt, error) { return call(), nil },
			&hitl.ChainOptions{MaxRounds: 2})
		if err != nil || len(rounds) != 2 || rounds[1].Result.Action != "edit" {
			t.Fatalf("Chain = %d rounds, %v", len(rounds), err)
		}
		if len(rounds[1].Interrupt.Warnings) == 0 {
			t.Error("an unlinked second round gave no warning")
		}
	})
}

// TestImprovementLoop is example flow 13: share first, then up to two rounds of asking and
// resubmitting, sharing each new result before asking again.
func TestImprovementLoop(t *testing.T) {
	steps := loadSteps(t, "13-quality-improvement-loop.json")
	var bodies []json.RawMessage
	for _, s := range steps {
		if s.Response != nil && len(s.Response.Body) > 0 {
			bodies = append(bodies, s.Response.Body)
		}
	}
	if len(bodies) < 3 {
		t.Fatalf("flow has %d result bodies", len(bodies))
	}
	first, err := hitl.Suggestions(bodies[0])
	if err != nil || len(first) != 2 || first[0].Field != "experience" || first[0].Priority != "high" {
		t.Fatalf("Suggestions = %+v, %v", first, err)
	}
	for _, tt := range []struct {
		name      string
		max       int
		decline   int // round at which the human says no; 0 never
		wantLog   []string
		wantRound int
	}{
		{"runs until no suggestions remain", 0, 0, []string{"share 0", "ask 2", "resubmit", "share 1", "ask 1", "resubmit", "share 2"}, 2},
		{"one round allowed", 1, 0, []string{"share 0", "ask 2", "resubmit", "share 1"}, 1},
		{"the human declines", 0, 1, []string{"share 0", "ask 2"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			n, asks := 0, 0
			last, rounds, err := hitl.Improve(t.Context(), bodies[0], hitl.Improvement{
				MaxRounds: tt.max,
				Share: func(_ context.Context, b []byte) error {
					for i, body := range bodies {
						if bytes.Equal(body, b) {
							log = append(log, fmt.Sprintf("share %d", i))
						}
					}
					return nil
				},
				Ask: func(_ context.Context, s []hitl.Suggestion) (map[string]string, bool, error) {
					log = append(log, fmt.Sprintf("ask %d", len(s)))
					asks++
					return map[string]string{s[0].Field: "answer"}, asks != tt.decline, nil
				},
				Resubmit: func(context.Context, map[string]string) ([]byte, error) {
					log = append(log, "resubmit")
					n++
					return bodies[n], nil
				},
			})
			if err != nil || rounds != tt.wantRound || !bytes.Equal(last, bodies[tt.wantRound]) {
				t.Errorf("Improve = body %d?, %d rounds, %v", n, rounds, err)
			}
			if diff := cmp.Diff(tt.wantLog, log); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCase36Discovery: ex07 and the legacy flat document both parse; the fake serves both
// and a 404; documents are cached; a cached document paces the polls.
func TestCase36Discovery(t *testing.T) {
	raw := mustRead(t, "07-well-known-hitl.json")
	var ex struct {
		Response struct {
			Body json.RawMessage `json:"body"`
		} `json:"response"`
	}
	_ = json.Unmarshal(raw, &ex)
	d, err := hitl.ParseDiscovery(ex.Response.Body)
	if err != nil || d.SpecVersion != "0.8" || !slices.Contains(d.Transports, "sse") || slices.Contains(d.Transports, "callback") || d.PollMinInterval != 10*time.Second ||
		d.PollInterval != 30*time.Second || d.DefaultTimeout != 24*time.Hour || d.MaxTimeout != 7*24*time.Hour || !d.SupportsInlineSubmit || d.MaxRequestsPerMinute != 120 {
		t.Errorf("ex07: %+v, %v", d, err)
	}
	// The v0.8 fields are typed, and the stream of a case is found from the endpoints.
	if d == nil || d.Authentication == nil || d.Authentication.Type != "bearer" || !d.SupportsAgentBinding || !d.SupportsSurface ||
		len(d.SurfaceFormats) != 1 || d.EventsBase != "https://api.jobboard.example/v1/reviews/events" {
		t.Errorf("ex07 v0.8 fields: %+v", d)
	} else if got := d.EventsURL("review_1"); got != "https://api.jobboard.example/v1/reviews/review_1/events" {
		t.Errorf("EventsURL = %q", got)
	}
	legacy, err := hitl.ParseDiscovery([]byte(`{"hitl_protocol":"0.5","service":{"name":"Old","homepage":"https://old.example"},"review_types":["approval"],"timeout_default":"24h","features":{"callback":true}}`))
	if err != nil || legacy.SpecVersion != "0.5" || legacy.ServiceName != "Old" || !slices.Contains(legacy.Transports, "callback") || legacy.DefaultTimeout != 24*time.Hour {
		t.Errorf("legacy: %+v, %v", legacy, err)
	}
	if _, err := hitl.ParseDiscovery([]byte(`{"service":{}}`)); !errors.Is(err, hitl.ErrInvalid) {
		t.Errorf("no hitl_protocol: %v", err)
	}

	for _, tt := range []struct {
		shape   hitltest.DiscoveryShape
		wantErr error
		version string
	}{
		{hitltest.DiscoveryNested, nil, "0.8"},
		{hitltest.DiscoveryLegacy, nil, "0.5"},
		{hitltest.DiscoveryNone, hitl.ErrNoDiscovery, ""},
	} {
		s := hitltest.NewServer(t, hitltest.WithDiscovery(tt.shape))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses())
		for range 2 {
			d, err := c.Discover(t.Context(), s.URL+"/anything")
			if !errors.Is(err, tt.wantErr) || (d != nil && d.SpecVersion != tt.version) {
				t.Errorf("shape %d: Discover = %+v, %v", tt.shape, d, err)
			}
		}
		if n := len(s.Requests()); n != 1 {
			t.Errorf("shape %d: %d requests for two Discover calls, want 1 (cached)", tt.shape, n)
		}
	}
}

// TestDiscoveryPacesPolls: with ex07's document cached (minimum 10 s, recommended 30 s), a
// service that sends no Retry-After is polled every 30 s, and a Retry-After of 2 s is raised
// to 10 s.
func TestDiscoveryPacesPolls(t *testing.T) {
	var ex struct {
		Response struct {
			Body json.RawMessage `json:"body"`
		} `json:"response"`
	}
	_ = json.Unmarshal(mustRead(t, "07-well-known-hitl.json"), &ex)
	synctest.Test(t, func(t *testing.T) {
		rt := &script{replies: []reply{{status: 200, body: string(ex.Response.Body)},
			{status: 200, body: `{"status":"pending"}`},
			{status: 200, header: map[string]string{"Retry-After": "2"}, body: `{"status":"pending"}`},
			{status: 200, body: `{"status":"completed","result":{"action":"approve"}}`}}}
		c := newClient(t, rt)
		if _, err := c.Discover(context.Background(), "https://svc.example/"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Wait(context.Background(), interrupt("review_paced", time.Hour), &hitl.WaitOptions{PollOnly: true}); err != nil {
			t.Fatal(err)
		}
		_, times := rt.requests()
		var gaps []time.Duration
		for i := 2; i < len(times); i++ {
			gaps = append(gaps, times[i].Sub(times[i-1]))
		}
		if diff := cmp.Diff([]time.Duration{30 * time.Second, 10 * time.Second}, gaps); diff != "" {
			t.Errorf("poll gaps (-want +got):\n%s", diff)
		}
	})
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hitl-protocol", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
