package hitltest

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// reminderTimes reads reminder_at as one RFC 3339 time or a list of them.
func reminderTimes(raw json.RawMessage) ([]time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		list = []string{one}
	}
	out := make([]time.Time, 0, len(list))
	for _, v := range list {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// FailSubmit makes the next n inline submissions to caseID (any case when "") answer status
// instead: 400 as {"detail":{"error":"missing_action",…}} (a wrapped error body, as some
// frameworks send), 429 with Retry-After (the server's retry-after), others with
// {"error":…}.
func (s *Server) FailSubmit(caseID string, status, n int) {
	enqueue(s, s.submitFaults, caseID, status, n)
}

// inlineView is the case as the agent sees it, for the checks the spec makes on a
// submission. Guarded by Server.mu.
func (c *fakeCase) inlineView() *hitl.Case {
	return &hitl.Case{CaseID: c.id, Type: hitl.ReviewType(c.typ), SubmitURL: "https://submit", SubmitToken: c.submitToken,
		InlineActions: c.inlineActions, VerificationPolicy: c.policy}
}

// handleInlineSubmit is POST submit_url (HITL Protocol §7.5): the submit token
// authenticates; the action must be allowed inline; a verification policy for inline submit
// is checked against the evidence (§7.6).
func (s *Server) handleInlineSubmit(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	status, answer := s.inlineSubmit(id, token, body)
	s.record(r, id, status)
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", secondsCeil(s.cfg.retryAfter))
	}
	writeJSON(w, status, answer)
}

// inlineSubmit decides a submission under the server's lock and returns the answer.
func (s *Server) inlineSubmit(id, token string, body []byte) (int, any) {
	var req struct {
		Action   string          `json:"action"`
		Data     json.RawMessage `json:"data"`
		Via      string          `json:"submitted_via"`
		By       hitl.Submitter  `json:"submitted_by"`
		Evidence []evidence      `json:"verification_evidence"`
	}
	fail := func(status int, code string, extra map[string]any) (int, any) {
		b := map[string]any{"error": code, "message": strings.ReplaceAll(code, "_", " "), "case_id": id}
		for k, v := range extra {
			b[k] = v
		}
		return status, b
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if status, faulted := takeFirst(s.submitFaults, id); faulted {
		switch status {
		case http.StatusBadRequest:
			return status, map[string]any{"detail": map[string]string{"error": "missing_action", "message": "action is required"}}
		case http.StatusTooManyRequests:
			return status, map[string]string{"error": "rate_limited"}
		}
		return status, map[string]string{"error": strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))}
	}
	c, ok := s.cases[id]
	if !ok {
		return fail(http.StatusNotFound, "not_found", nil)
	}
	if c.submitToken == "" || !equalSecret(c.submitToken, token) {
		return fail(http.StatusUnauthorized, "invalid_token", nil)
	}
	if json.Unmarshal(body, &req) != nil || req.Action == "" {
		return fail(http.StatusBadRequest, "missing_action", nil)
	}
	s.expireIfDue(c, now)
	switch {
	case c.changeable(now): // ProfileLive: the answer may change for a while
	case c.state == "completed", c.state == "cancelled":
		return fail(http.StatusConflict, "duplicate_submission", nil)
	case c.state == "expired":
		return fail(http.StatusGone, "case_expired", nil)
	}
	// The 403 body's review_url carries no token: the agent must use the one it holds.
	page := map[string]any{"review_url": s.URL + "/review/" + c.id}
	view := c.inlineView()
	if !slices.Contains(view.InlineChoices(), req.Action) {
		return fail(http.StatusForbidden, "action_not_inline", page)
	}
	policy, _ := view.Verification()
	var verdict map[string]any
	if policy.Applies(hitl.ForInlineSubmit) || len(req.Evidence) > 0 {
		satisfied := satisfies(policy, req.Evidence, c.id, req.Action)
		switch {
		case policy.Demands(hitl.ForInlineSubmit) && len(req.Evidence) == 0:
			return fail(http.StatusForbidden, "verification_required", page)
		case policy.Demands(hitl.ForInlineSubmit) && !satisfied:
			return fail(http.StatusForbidden, "verification_failed", page)
		}
		verified := []any{}
		if satisfied {
			for _, e := range req.Evidence {
				verified = append(verified, map[string]any{"proof_type": e.ProofType, "provider": e.Provider,
					"bound_to_case": e.Binding.CaseID == c.id, "bound_to_action": e.Binding.Action == req.Action})
			}
		}
		verdict = map[string]any{"satisfied": satisfied, "verified_evidence": verified, "missing_requirements": []any{}}
	}
	data := req.Data
	if len(data) == 0 {
		data = json.RawMessage(`{}`)
	}
	if c.openedAt.IsZero() {
		c.openedAt = now
	}
	if !c.changeable(now) { // a changed answer keeps the first submission's time
		c.endedAt = now
	}
	c.state, c.action, c.data = "completed", req.Action, data
	if req.By.DisplayName != "" {
		c.by = &transport.Responder{Name: req.By.DisplayName}
	}
	c.submission = map[string]any{"mode": "inline_submit", "submitted_via": req.Via, "submitted_by": req.By}
	if verdict != nil {
		c.submission["verification_result"] = verdict
	}
	s.changed(c)
	return http.StatusOK, map[string]string{"status": "completed", "case_id": c.id, "completed_at": stamp(now)}
}

// evidence is the part of a verification_evidence entry the fake checks; the presentation
// stays opaque.
type evidence struct {
	ProofType string `json:"proof_type"`
	Provider  string `json:"provider"`
	Binding   struct {
		CaseID string `json:"case_id"`
		Action string `json:"action"`
	} `json:"binding"`
}

// satisfies plays the service's verifier: evidence bound to this case and action meets some
// any_of branch of the policy.
func satisfies(p *hitl.VerificationPolicy, ev []evidence, caseID, action string) bool {
	var caps []hitl.Capability
	for _, e := range ev {
		if e.Binding.CaseID == caseID && e.Binding.Action == action {
			caps = append(caps, hitl.Capability{ProofType: e.ProofType, Provider: e.Provider, Assurance: "high"})
		}
	}
	if p == nil {
		return len(caps) > 0
	}
	return len(caps) > 0 && p.SatisfiedBy(caps)
}

// DiscoveryShape is what GET /.well-known/hitl.json serves.
type DiscoveryShape int

// Discovery shapes for WithDiscovery.
const (
	// DiscoveryNested is the v0.7+ document (the default).
	DiscoveryNested DiscoveryShape = iota
	// DiscoveryLegacy is the flat v0.5/v0.6 document.
	DiscoveryLegacy
	// DiscoveryNone answers 404.
	DiscoveryNone
)

// WithDiscovery sets the discovery document's shape. Default DiscoveryNested.
func WithDiscovery(shape DiscoveryShape) Option { return func(c *config) { c.discovery = shape } }

func reviewsPath(p Profile) string {
	if p == ProfileReference {
		return "/api/reviews"
	}
	return "/reviews"
}

// handleDiscovery serves the service's discovery document (App. D), cacheable for a day.
func (s *Server) handleDiscovery(w http.ResponseWriter, r *http.Request) {
	transports := []string{"polling", "callback"}
	if !s.cfg.noEvents {
		transports = []string{"polling", "sse", "callback"}
	}
	types := []string{"approval", "selection", "input", "confirmation", "escalation"}
	var doc map[string]any
	switch s.cfg.discovery {
	case DiscoveryNone:
		s.record(r, "", http.StatusNotFound)
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return
	case DiscoveryLegacy:
		doc = map[string]any{"hitl_protocol": "0.5",
			"service":      map[string]string{"name": "hitltest", "description": "fake HITL service", "homepage": s.URL},
			"review_types": types, "review_base_url": s.URL + "/review", "api_base_url": s.URL,
			"timeout_default": s.cfg.lifetime.String(),
			"features":        map[string]bool{"callback": true, "signed_responses": false, "edit_grace_period": false}}
	default:
		doc = map[string]any{"hitl_protocol": map[string]any{
			"spec_version": "0.8",
			"service":      map[string]string{"name": "hitltest", "url": s.URL},
			"capabilities": map[string]any{"review_types": types, "transports": transports,
				"default_timeout": s.cfg.lifetime.String(), "supports_reminders": true, "supports_multi_round": true,
				"supports_signatures": false, "supports_inline_submit": true},
			"endpoints": map[string]string{"reviews_base": s.URL + reviewsPath(s.cfg.profile), "review_page_base": s.URL + "/review",
				"well_known": s.URL + hitl.WellKnownPath},
			"rate_limits": map[string]any{"poll_min_interval_seconds": 1,
				"poll_recommended_interval_seconds": s.cfg.retryAfter.Seconds(), "max_requests_per_minute": s.cfg.rateLimit},
		}}
	}
	s.record(r, "", http.StatusOK)
	w.Header().Set("Cache-Control", "public, max-age=86400")
	writeJSON(w, http.StatusOK, doc)
}
