package hitl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// wireStep is one step of an example flow with its request body, under either spelling
// (request/response or alternative_request/alternative_response).
type wireStep struct {
	Request     *wireMessage `json:"request"`
	Response    *wireMessage `json:"response"`
	AltRequest  *wireMessage `json:"alternative_request"`
	AltResponse *wireMessage `json:"alternative_response"`
}

type wireMessage struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Status  int               `json:"status"`
	Body    json.RawMessage   `json:"body"`
}

func loadSteps(t *testing.T, name string) []wireStep {
	t.Helper()
	var f struct {
		Steps []wireStep `json:"steps"`
	}
	if err := json.Unmarshal(mustRead(t, name), &f); err != nil {
		t.Fatal(err)
	}
	return f.Steps
}

// flowInterrupt detects the first 202 of a flow, as if answering a POST to the service.
func flowInterrupt(t *testing.T, steps []wireStep) *hitl.Interrupt {
	t.Helper()
	for _, s := range steps {
		if s.Response != nil && s.Response.Status == http.StatusAccepted {
			it, err := hitl.Detect(response202(t, hitlOrigin(t, s.Response.Body), string(s.Response.Body)), nil)
			if err != nil || it == nil {
				t.Fatalf("Detect = %v, %v", it, err)
			}
			return it
		}
	}
	t.Fatal("flow has no 202")
	return nil
}

// hitlOrigin is the poll URL's origin: the flows' agents call the service there.
func hitlOrigin(t *testing.T, body json.RawMessage) string {
	var b struct {
		Hitl struct {
			PollURL string `json:"poll_url"`
		} `json:"hitl"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(b.Hitl.PollURL[len("https://"):], "/")
	return b.Hitl.PollURL[:len("https://")+i] + "/call"
}

// answerFrom reads an inline answer back from a flow's submit request body.
func answerFrom(t *testing.T, body json.RawMessage) hitl.InlineAnswer {
	t.Helper()
	var b struct {
		Action   string          `json:"action"`
		Data     json.RawMessage `json:"data"`
		Via      string          `json:"submitted_via"`
		By       hitl.Submitter  `json:"submitted_by"`
		Evidence json.RawMessage `json:"verification_evidence"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return hitl.InlineAnswer{Action: b.Action, Data: b.Data, Via: b.Via, By: b.By, Evidence: b.Evidence}
}

func jsonEqual(t *testing.T, what string, want, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: got %q: %v", what, got, err)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// TestInlineFlows runs the example flows whose human answers through a chat button (09, 10,
// 11, 14; case 31): the buttons offered are the flow's, the submission is the flow's request
// byte for byte in meaning (headers included), the 200 is a completed Result, and the poll
// after it gives the submission context.
func TestInlineFlows(t *testing.T) {
	for _, name := range []string{"09-inline-confirmation.json", "10-inline-escalation.json", "11-hybrid-approval.json", "14-inline-proof-of-human.json"} {
		t.Run(name, func(t *testing.T) {
			steps := loadSteps(t, name)
			it := flowInterrupt(t, steps)
			var submit, poll *wireStep
			for i := range steps {
				s := &steps[i]
				switch {
				case s.Request != nil && s.Request.URL == it.Case.SubmitURL:
					submit = s
				case s.Request != nil && s.Request.URL == it.Case.PollURL && submit != nil:
					poll = s
				}
			}
			if submit == nil {
				t.Fatal("no submit step")
			}
			if diff := cmp.Diff(it.Case.InlineActions, it.Case.InlineChoices()); diff != "" {
				t.Errorf("InlineChoices (-inline_actions +got):\n%s", diff)
			}
			caps := []hitl.Capability{{ProofType: "proof_of_human", Provider: "world_id", Assurance: "high"}}
			if ok, err := it.Case.InlineAllowed(caps); !ok || err != nil {
				t.Errorf("InlineAllowed = %v, %v; want true", ok, err)
			}

			replies := []reply{{status: submit.Response.Status, header: submit.Response.Headers, body: string(submit.Response.Body)}}
			if poll != nil {
				replies = append(replies, reply{status: poll.Response.Status, header: poll.Response.Headers, body: string(poll.Response.Body)})
			}
			rt := &script{replies: replies}
			c := newClient(t, rt)
			a := answerFrom(t, submit.Request.Body)
			res, err := c.SubmitInline(t.Context(), it, a)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != transport.StatusCompleted || res.Action != a.Action || res.CaseID != it.ID() {
				t.Errorf("SubmitInline = %v", res)
			}
			reqs, _ := rt.requests()
			got := reqs[0]
			if got.Method != submit.Request.Method || got.URL.String() != submit.Request.URL {
				t.Errorf("sent %s %s, want %s %s", got.Method, got.URL, submit.Request.Method, submit.Request.URL)
			}
			for k, v := range submit.Request.Headers {
				if got.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), v)
				}
			}
			body, _ := io.ReadAll(got.Body)
			jsonEqual(t, "submit body", submit.Request.Body, body)

			if poll == nil {
				return
			}
			final, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			sub, err := hitl.SubmissionOf(final)
			if err != nil || sub.Mode != "inline_submit" || sub.SubmittedVia != a.Via {
				t.Errorf("Submission() = %+v, %v", sub, err)
			}
			if a.Evidence != nil && (sub.Verification == nil || !sub.Verification.Satisfied) {
				t.Errorf("verification result = %+v, want satisfied", sub.Verification)
			}
		})
	}
}

// TestCase31ActionNotInlineIsRefusedLocally: ex09 offers confirm and cancel; anything else
// is refused without a request, as is a case without inline submit or of a URL-only type.
func TestCase31ActionNotInlineIsRefusedLocally(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "09-inline-confirmation.json"))
	rt := &script{replies: []reply{{status: 200, body: `{}`}}}
	c := newClient(t, rt)
	by := hitl.Submitter{Platform: "telegram", PlatformUserID: "1"}
	for _, action := range []string{"approve", "edit", "", "CONFIRM"} {
		if _, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: action, Via: hitl.ViaTelegram, By: by}); !errors.Is(err, hitl.ErrNotInline) {
			t.Errorf("action %q: err = %v, want ErrNotInline", action, err)
		}
	}
	noToken := *it.Case
	noToken.SubmitToken = ""
	selection := *it.Case
	selection.Type, selection.InlineActions = hitl.TypeSelection, nil
	for _, cs := range []*hitl.Case{&noToken, &selection} {
		if _, err := c.SubmitInline(t.Context(), &hitl.Interrupt{Kind: hitl.KindHITL, Case: cs}, hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaTelegram, By: by}); !errors.Is(err, hitl.ErrNotInline) {
			t.Errorf("case %s: err = %v, want ErrNotInline", cs.Type, err)
		}
	}
	if reqs, _ := rt.requests(); len(reqs) != 0 {
		t.Errorf("%d requests sent, want none", len(reqs))
	}
}

// TestCase32VerificationRequired: ex15. A compliant agent's preflight fails, so it offers the
// review URL; an agent that submits anyway is refused before sending; and when the service
// answers 403 with a token-less review_url, the error says "use the review URL", the original
// (with its token) is what the interrupt still holds, and nothing is retried.
func TestCase32VerificationRequired(t *testing.T) {
	steps := loadSteps(t, "15-step-up-verification.json")
	it := flowInterrupt(t, steps)
	original := it.ReviewURL()
	if ok, err := it.Case.InlineAllowed(nil); ok || err != nil {
		t.Errorf("InlineAllowed(no capabilities) = %v, %v; want false", ok, err)
	}
	alt := steps[2]
	rt := &script{replies: []reply{{status: alt.AltResponse.Status, body: string(alt.AltResponse.Body)}}}
	c := newClient(t, rt)
	a := answerFrom(t, alt.AltRequest.Body)
	if _, err := c.SubmitInline(t.Context(), it, a); !errors.Is(err, hitl.ErrUseReviewURL) {
		t.Fatalf("without evidence: err = %v, want ErrUseReviewURL before sending", err)
	}
	if reqs, _ := rt.requests(); len(reqs) != 0 {
		t.Fatalf("%d requests sent without evidence, want none", len(reqs))
	}

	// An agent whose copy lost the policy reaches the service, which refuses.
	stale := *it
	cs := *it.Case
	cs.VerificationPolicy = nil
	stale.Case = &cs
	_, err := c.SubmitInline(t.Context(), &stale, a)
	var se *hitl.SubmitError
	if !errors.As(err, &se) || !errors.Is(err, hitl.ErrUseReviewURL) || se.Code != "verification_required" {
		t.Fatalf("err = %v, want a 403 verification_required", err)
	}
	if strings.Contains(err.Error(), "review") && strings.Contains(err.Error(), "http") {
		t.Errorf("error %q carries a URL", err)
	}
	if stale.ReviewURL() != original || !strings.Contains(original, "token=") {
		t.Errorf("review URL changed to %q", stale.ReviewURL())
	}
	if reqs, _ := rt.requests(); len(reqs) != 1 {
		t.Errorf("%d requests, want 1 (no retry)", len(reqs))
	}
}

// TestCase33SubmitErrors: every refusal of §7.5 (and the references' extras, and a body
// wrapped in "detail") is a typed error.
func TestCase33SubmitErrors(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "09-inline-confirmation.json"))
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		sentinel   error
		code       string
		retryAfter time.Duration
	}{
		{"409 duplicate", 409, nil, `{"error":"duplicate_submission","message":"already answered"}`, hitl.ErrCaseClosed, "duplicate_submission", 0},
		{"410 expired", 410, nil, `{"error":"case_expired"}`, hitl.ErrCaseClosed, "case_expired", 0},
		{"401 bad token", 401, nil, `{"error":"invalid_token"}`, transport.ErrUnauthorized, "invalid_token", 0},
		{"400 wrapped in detail", 400, nil, `{"detail":{"error":"missing_action","message":"action is required"}}`, hitl.ErrBadRequest, "missing_action", 0},
		{"400 detail string", 400, nil, `{"detail":"action is required"}`, hitl.ErrBadRequest, "", 0},
		{"403 action_not_inline", 403, nil, `{"error":"action_not_inline","review_url":"https://mailcraft.example/review/x"}`, hitl.ErrUseReviewURL, "action_not_inline", 0},
		{"403 verification_failed", 403, nil, `{"error":"verification_failed"}`, hitl.ErrUseReviewURL, "verification_failed", 0},
		{"404", 404, nil, `{"error":"not_found"}`, transport.ErrNotFound, "not_found", 0},
		{"429 with Retry-After", 429, map[string]string{"Retry-After": "30"}, `{"error":"rate_limited"}`, hitl.ErrRateLimited, "rate_limited", 30 * time.Second},
		{"500 not JSON", 500, nil, `oops`, nil, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, &script{replies: []reply{{status: tt.status, header: tt.header, body: tt.body}}})
			_, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaSlack,
				By: hitl.Submitter{Platform: "slack", PlatformUserID: "U1"}})
			var se *hitl.SubmitError
			if !errors.As(err, &se) || tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want a *SubmitError matching %v", err, tt.sentinel)
			}
			if se.StatusCode != tt.status || se.Code != tt.code || se.RetryAfter != tt.retryAfter {
				t.Errorf("SubmitError = %+v", se)
			}
		})
	}
}

// TestCase34SubmittedViaAndSecrets: submitted_via and platform values must be known or
// start with x-; the submit token and the review token never appear in logs, errors or
// button data.
func TestCase34SubmittedViaAndSecrets(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "09-inline-confirmation.json"))
	var logs bytes.Buffer
	rt := &script{replies: []reply{{status: 403, body: `{"error":"action_not_inline","message":"use ` + it.ReviewURL() + `"}`}, {status: 200, body: `{"status":"completed"}`}}}
	c := newClient(t, rt, transport.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var errs []string
	for _, tt := range []struct {
		via, platform, user string
		ok                  bool
	}{
		{"cli", "telegram", "1", false},
		{hitl.ViaTelegram, "cli", "1", false},
		{hitl.ViaTelegram, "telegram", "", false},
		{"x-", "telegram", "1", false},
		{"x-cli", "x-terminal", "1", true},
		{hitl.ViaTelegram, "telegram", "1", true},
	} {
		_, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: "confirm", Via: tt.via, By: hitl.Submitter{Platform: tt.platform, PlatformUserID: tt.user}})
		var inv *hitl.InvalidError
		if refused := errors.As(err, &inv); refused == tt.ok {
			t.Errorf("via %q platform %q user %q: err = %v", tt.via, tt.platform, tt.user, err)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	if reqs, _ := rt.requests(); len(reqs) != 2 {
		t.Errorf("%d requests, want 2 (the valid submissions only)", len(reqs))
	}
	var table hitl.ButtonTable
	buttons := table.Buttons(it)
	if len(buttons) != 2 {
		t.Fatalf("buttons = %v", buttons)
	}
	for _, b := range buttons {
		errs = append(errs, b.Data)
		if len(b.Data) > 64 {
			t.Errorf("button data %q is over Telegram's 64 bytes", b.Data)
		}
		got, action, ok := table.Lookup(b.Data)
		if !ok || got != it || action != b.Action {
			t.Errorf("Lookup(%q) = %v, %q, %v", b.Data, got, action, ok)
		}
	}
	if _, _, ok := table.Lookup("hitl:unknown:confirm"); ok {
		t.Error("Lookup of an unknown handle succeeded")
	}
	table.Remove(it.ID())
	if _, _, ok := table.Lookup(buttons[0].Data); ok {
		t.Error("Lookup after Remove succeeded")
	}
	errs = append(errs, logs.String(), it.String(), it.Case.String())
	reviewToken := it.ReviewURL()[strings.Index(it.ReviewURL(), "token=")+len("token="):]
	for _, s := range errs {
		for _, secret := range []string{it.Case.SubmitToken, reviewToken, "token="} {
			if strings.Contains(s, secret) {
				t.Errorf("%q contains a secret", s)
			}
		}
	}
}

// TestCase35VerificationPolicy: ex14/ex15's policy (world_id proof of human at high for
// inline submit): preflight by capability, evidence relayed byte for byte, and an optional
// policy that lets inline submit go without evidence.
func TestCase35VerificationPolicy(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "15-step-up-verification.json"))
	for _, tt := range []struct {
		name string
		caps []hitl.Capability
		want bool
	}{
		{"no capability: browser only", nil, false},
		{"world_id at high", []hitl.Capability{{ProofType: "proof_of_human", Provider: "world_id", Assurance: "high"}}, true},
		{"world_id at medium", []hitl.Capability{{ProofType: "proof_of_human", Provider: "world_id", Assurance: "medium"}}, false},
		{"another provider", []hitl.Capability{{ProofType: "proof_of_human", Provider: "other", Assurance: "high"}}, false},
		{"another proof", []hitl.Capability{{ProofType: "x-kyc", Provider: "world_id", Assurance: "high"}}, false},
	} {
		if got, err := it.Case.InlineAllowed(tt.caps); got != tt.want || err != nil {
			t.Errorf("%s: InlineAllowed = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}

	evidence := json.RawMessage("[ {\"proof_type\" : \"proof_of_human\",\n \"provider\":\"world_id\", \"format\":\"provider_opaque\", \"presentation\":{\"proof\":\"<opaque>\"}} ]")
	rt := &script{replies: []reply{{status: 200, body: `{"status":"completed"}`}}}
	c := newClient(t, rt)
	if _, err := c.SubmitInline(t.Context(), it, hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaSlack,
		By: hitl.Submitter{Platform: "slack", PlatformUserID: "U1"}, Evidence: evidence}); err != nil {
		t.Fatal(err)
	}
	reqs, _ := rt.requests()
	body, _ := io.ReadAll(reqs[0].Body)
	if !bytes.Contains(body, []byte(`"verification_evidence":`+string(evidence))) {
		t.Errorf("evidence not relayed byte for byte in %s", body)
	}

	optional := *it.Case
	optional.VerificationPolicy = json.RawMessage(strings.Replace(string(it.Case.VerificationPolicy), `"step_up"`, `"optional"`, 1))
	opt := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &optional}
	if ok, err := optional.InlineAllowed(nil); !ok || err != nil {
		t.Errorf("optional policy: InlineAllowed = %v, %v; want true", ok, err)
	}
	if _, err := c.SubmitInline(t.Context(), opt, hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaSlack,
		By: hitl.Submitter{Platform: "slack", PlatformUserID: "U1"}}); err != nil {
		t.Errorf("optional policy without evidence: %v", err)
	}

	browser := flowInterrupt(t, loadSteps(t, "16-browser-verified-approval.json"))
	p, err := browser.Case.Verification()
	if err != nil || !p.Demands(hitl.ForBrowserSubmit) || p.Applies(hitl.ForInlineSubmit) {
		t.Errorf("ex16 policy = %+v, %v", p, err)
	}
	if ok, _ := browser.Case.InlineAllowed(nil); ok {
		t.Error("ex16 has no submit_url, yet inline is allowed")
	}
}

// TestInlineSubmitAgainstFake drives the fake service's submit endpoint to each answer it can
// give, with the SDK refusing nothing locally (the agent's copy of the case is made to
// differ where the row needs the service to be the one refusing).
func TestInlineSubmitAgainstFake(t *testing.T) {
	policy := `{"mode":"step_up","required_for":["inline_submit"],"requirements":{"any_of":[{"all_of":[{"proof_type":"proof_of_human","provider":"world_id","min_assurance":"high"}]}]}}`
	tests := []struct {
		name     string
		body     string
		prepare  func(s *hitltest.Server, it *hitl.Interrupt) // before the submission
		evidence func(it *hitl.Interrupt) json.RawMessage
		status   int
		code     string
		sentinel error
	}{
		{name: "200", body: `{"inline":true}`, status: 200},
		{name: "200 with evidence", body: `{"inline":true,"verification_policy":` + policy + `}`, status: 200,
			evidence: func(it *hitl.Interrupt) json.RawMessage {
				return json.RawMessage(`[{"proof_type":"proof_of_human","provider":"world_id","format":"provider_opaque","presentation":{},"binding":{"case_id":"` + it.ID() + `","action":"confirm"}}]`)
			}},
		{name: "401 wrong token", body: `{"inline":true}`, status: 401, code: "invalid_token", sentinel: transport.ErrUnauthorized,
			prepare: func(_ *hitltest.Server, it *hitl.Interrupt) {
				it.Case.SubmitToken = "agt_not-the-token-the-service-issued"
			}},
		{name: "403 action_not_inline", body: `{"inline":true,"inline_actions":["cancel"]}`, status: 403, code: "action_not_inline", sentinel: hitl.ErrUseReviewURL,
			prepare: func(_ *hitltest.Server, it *hitl.Interrupt) { it.Case.InlineActions = nil }},
		{name: "403 verification_required", body: `{"inline":true,"verification_policy":` + policy + `}`, status: 403, code: "verification_required", sentinel: hitl.ErrUseReviewURL,
			prepare: func(_ *hitltest.Server, it *hitl.Interrupt) { it.Case.VerificationPolicy = nil }},
		{name: "403 verification_failed", body: `{"inline":true,"verification_policy":` + policy + `}`, status: 403, code: "verification_failed", sentinel: hitl.ErrUseReviewURL,
			evidence: func(*hitl.Interrupt) json.RawMessage {
				return json.RawMessage(`[{"proof_type":"proof_of_human","provider":"world_id","binding":{"case_id":"review_other","action":"confirm"}}]`)
			}},
		{name: "409 answered", body: `{"inline":true}`, status: 409, code: "duplicate_submission", sentinel: hitl.ErrCaseClosed,
			prepare: func(s *hitltest.Server, it *hitl.Interrupt) { _ = s.Respond(it.ID(), "cancel", nil, nil) }},
		{name: "410 expired", body: `{"inline":true}`, status: 410, code: "case_expired", sentinel: hitl.ErrCaseClosed,
			prepare: func(s *hitltest.Server, it *hitl.Interrupt) { _ = s.Expire(it.ID()) }},
		{name: "429", body: `{"inline":true}`, status: 429, code: "rate_limited", sentinel: hitl.ErrRateLimited,
			prepare: func(s *hitltest.Server, it *hitl.Interrupt) { s.FailSubmit(it.ID(), 429, 1) }},
		{name: "400 detail", body: `{"inline":true}`, status: 400, code: "missing_action", sentinel: hitl.ErrBadRequest,
			prepare: func(s *hitltest.Server, it *hitl.Interrupt) { s.FailSubmit(it.ID(), 400, 1) }},
		{name: "404", body: `{"inline":true}`, status: 404, code: "not_found", sentinel: transport.ErrNotFound,
			prepare: func(s *hitltest.Server, it *hitl.Interrupt) { s.FailSubmit(it.ID(), 404, 1) }},
	}
	s := hitltest.NewServer(t)
	c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/confirmation", strings.NewReader(tt.body))
			it := detect(t, c, req)
			cs := *it.Case
			it.Case = &cs
			if tt.prepare != nil {
				tt.prepare(s, it)
			}
			a := hitl.InlineAnswer{Action: "confirm", Via: hitl.ViaTelegram, By: hitl.Submitter{Platform: "telegram", PlatformUserID: "42", DisplayName: "Ada"}}
			if tt.evidence != nil {
				a.Evidence = tt.evidence(it)
			}
			res, err := c.SubmitInline(t.Context(), it, a)
			if tt.status == 200 {
				if err != nil || res.Action != "confirm" {
					t.Fatalf("SubmitInline = %v, %v", res, err)
				}
				final, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				sub, err := hitl.SubmissionOf(final)
				if err != nil || sub.Mode != "inline_submit" || sub.SubmittedVia != hitl.ViaTelegram || final.Action != "confirm" {
					t.Errorf("after the poll: %v, submission %+v, %v", final, sub, err)
				}
				if tt.evidence != nil && (sub.Verification == nil || !sub.Verification.Satisfied) {
					t.Errorf("verification = %+v, want satisfied", sub.Verification)
				}
				return
			}
			var se *hitl.SubmitError
			if !errors.As(err, &se) || se.StatusCode != tt.status || se.Code != tt.code || !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v (%+v), want %d %s", err, se, tt.status, tt.code)
			}
			if tt.status == 429 && se.RetryAfter != time.Second {
				t.Errorf("RetryAfter = %v, want the fake's 1 s", se.RetryAfter)
			}
		})
	}
	var sent []string
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/submit") {
			sent = append(sent, r.Path)
		}
	}
	if len(sent) != len(tests) {
		t.Errorf("%d submissions reached the fake, want one per row (%d)", len(sent), len(tests))
	}
}
