package hitltest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/duration"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /actions/{type}", s.handleAction)
	mux.HandleFunc("GET /reviews/{id}/status", s.handlePoll)
	mux.HandleFunc("GET /reviews/{id}/events", s.handleEvents)
	mux.HandleFunc("GET /api/reviews/{id}/status", s.handlePoll)
	mux.HandleFunc("GET /api/reviews/{id}/events", s.handleEvents)
	mux.HandleFunc("GET /review/{id}", s.handleReviewPage)
	mux.HandleFunc("POST /review/{id}", s.handleReviewSubmit)
	mux.HandleFunc("POST /review/{id}/progress", s.handleReviewProgress)
	mux.HandleFunc("POST /reviews/{id}/submit", s.handleInlineSubmit)
	mux.HandleFunc("GET "+hitl.WellKnownPath, s.handleDiscovery)
	return mux
}

// record notes a request and the status it got.
func (s *Server) record(r *http.Request, caseID string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, CaseID: caseID,
		Header: r.Header.Clone(), Status: status, Time: time.Now()})
}

// actionRequest is the optional body of POST /actions/{type}.
type actionRequest struct {
	Prompt        string          `json:"prompt"`
	Message       string          `json:"message"`
	DefaultAction string          `json:"default_action"`
	Timeout       string          `json:"timeout"`
	Context       json.RawMessage `json:"context"`
	CallbackURL   string          `json:"hitl_callback_url"`
	// ReminderAt is one RFC 3339 time or a list of them.
	ReminderAt json.RawMessage `json:"reminder_at"`
	// Inline turns on inline submit (submit_url and submit_token); InlineActions, when set,
	// becomes inline_actions.
	Inline             bool            `json:"inline"`
	InlineActions      []string        `json:"inline_actions"`
	VerificationPolicy json.RawMessage `json:"verification_policy"`
	// PreviousCaseID links a resubmission to the round before (§10.1).
	PreviousCaseID string `json:"previous_case_id"`
}

// handleAction answers any call with a 202 and a new case of the path's review type (§6).
func (s *Server) handleAction(w http.ResponseWriter, r *http.Request) {
	typ := hitl.ReviewType(r.PathValue("type"))
	var req actionRequest
	if body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20)); len(strings.TrimSpace(string(body))) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			s.record(r, "", http.StatusBadRequest)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_body"})
			return
		}
	}
	if !typ.Known() {
		s.record(r, "", http.StatusBadRequest)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unknown_type"})
		return
	}
	lifetime := s.cfg.lifetime
	if req.Timeout != "" {
		d, err := duration.Parse(req.Timeout)
		if err != nil {
			s.record(r, "", http.StatusBadRequest)
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_timeout"})
			return
		}
		lifetime = d
	}
	sample := samples[typ]
	if sample.prompt == "" {
		sample = samples[hitl.TypeInput]
	}
	reminders, err := reminderTimes(req.ReminderAt)
	if err != nil {
		s.record(r, "", http.StatusBadRequest)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_reminder_at"})
		return
	}
	c := &fakeCase{id: newID(), typ: string(typ), token: newToken(), state: "pending", live: s.cfg.profile == ProfileLive,
		prompt: firstNonEmpty(req.Prompt, sample.prompt), defaultAction: firstNonEmpty(req.DefaultAction, hitl.DefaultSkip),
		context: req.Context, callbackURL: req.CallbackURL, news: make(chan struct{}),
		inlineActions: req.InlineActions, policy: req.VerificationPolicy, previous: req.PreviousCaseID}
	if req.Inline {
		c.submitToken = "agt_" + newToken()
	}
	if len(c.context) == 0 {
		c.context = json.RawMessage(sample.context)
	}
	now := time.Now()
	c.createdAt, c.expiresAt = now, now.Add(lifetime)

	s.mu.Lock()
	s.cases[c.id] = c
	c.expiry = time.AfterFunc(lifetime, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.expireIfDue(c, time.Now())
	})
	for _, t := range reminders {
		if t.After(now) && t.Before(c.expiresAt) {
			c.reminders = append(c.reminders, time.AfterFunc(t.Sub(now), func() { s.remindIfWaiting(c) }))
		}
	}
	if prev, ok := s.cases[c.previous]; ok {
		prev.next = c.id
		prev.version++
	}
	s.mu.Unlock()
	select {
	case s.created <- c.id:
	default:
	}

	h := s.hitlObject(c, lifetime, req.ReminderAt, len(reminders) > 0)
	s.record(r, c.id, http.StatusAccepted)
	retryAfter := s.cfg.retryAfter
	if s.cfg.profile == ProfileReference || s.cfg.profile == ProfileLive {
		retryAfter = referenceRetryAfter
	}
	w.Header().Set("Retry-After", secondsCeil(retryAfter))
	writeJSON(w, http.StatusAccepted, map[string]any{
		"status": "human_input_required", "message": firstNonEmpty(req.Message, sample.message), "hitl": h})
}

// hitlObject is the hitl object of a new case's 202 (§4), shaped by the server's profile.
func (s *Server) hitlObject(c *fakeCase, lifetime time.Duration, reminderAt json.RawMessage, reminded bool) map[string]any {
	h := map[string]any{
		"spec_version": "0.8", "case_id": c.id, "review_url": c.reviewURL(s.URL),
		"poll_url": s.URL + "/reviews/" + c.id + "/status", "type": c.typ, "prompt": c.prompt,
		"timeout": lifetime.String(), "default_action": c.defaultAction,
		"created_at": stamp(c.createdAt), "expires_at": stamp(c.expiresAt), "context": c.context,
	}
	if !s.cfg.noEvents && s.cfg.profile != ProfileReference {
		h["events_url"] = s.URL + "/reviews/" + c.id + "/events"
	}
	if s.cfg.profile == ProfileReference {
		h["poll_url"] = s.URL + "/api/reviews/" + c.id + "/status"
	}
	if s.cfg.profile == ProfileLive {
		liveCase(h, lifetime)
	}
	if c.callbackURL != "" {
		h["callback_url"] = c.callbackURL
	}
	if reminded {
		h["reminder_at"] = reminderAt
	}
	if c.submitToken != "" {
		h["submit_url"] = s.URL + "/reviews/" + c.id + "/submit"
		h["submit_token"] = c.submitToken
		if c.inlineActions != nil {
			h["inline_actions"] = c.inlineActions
		}
	}
	if len(c.policy) > 0 {
		h["verification_policy"] = c.policy
	}
	if c.previous != "" {
		h["previous_case_id"] = c.previous
	}
	return h
}

// handlePoll is GET poll_url (§8): ETag and If-None-Match, Retry-After on waiting states,
// 60 polls per minute per case (§13.5), and any injected fault.
func (s *Server) handlePoll(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	now := time.Now()
	s.mu.Lock()
	c, ok := s.cases[id]
	if !ok {
		s.mu.Unlock()
		s.record(r, id, http.StatusNotFound)
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "not_found"})
		return
	}
	c.polls++
	fault, _ := takeFirst(s.faults, id)
	limited, wait := c.rateLimited(now, s.cfg.rateLimit)
	s.expireIfDue(c, now)
	body, etag, terminal := c.pollBody(), c.etag(), c.terminal()
	pace := s.cfg.retryAfter
	if c.live { // 30 s while pending, 10 s while the human is at it
		pace = referenceRetryAfter
		if c.state == "opened" || c.state == "in_progress" {
			pace = liveActiveRetryAfter
		}
	}
	s.mu.Unlock()

	if limited {
		s.record(r, id, http.StatusTooManyRequests)
		w.Header().Set("Retry-After", secondsCeil(wait))
		writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "rate_limited"})
		return
	}
	if fault != 0 {
		s.serveFault(w, r, id, fault)
		return
	}
	w.Header().Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == etag {
		if !terminal && s.cfg.profile != ProfileReference {
			w.Header().Set("Retry-After", secondsCeil(pace))
		}
		s.record(r, id, http.StatusNotModified)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if !terminal {
		w.Header().Set("Retry-After", secondsCeil(pace))
	}
	s.record(r, id, http.StatusOK)
	writeJSON(w, http.StatusOK, body)
}

// rateLimited reports whether one more poll now exceeds perMinute, and how long until a
// slot frees. Guarded by Server.mu.
func (c *fakeCase) rateLimited(now time.Time, perMinute int) (bool, time.Duration) {
	cut := now.Add(-time.Minute)
	keep := c.window[:0]
	for _, t := range c.window {
		if t.After(cut) {
			keep = append(keep, t)
		}
	}
	c.window = keep
	if perMinute > 0 && len(c.window) >= perMinute {
		return true, c.window[0].Sub(cut)
	}
	c.window = append(c.window, now)
	return false, 0
}

func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, id string, f Fault) {
	status := map[Fault]int{Fault503: 503, Fault500: 500, Fault429: 429, Fault429Date: 429,
		FaultTruncated: 200, FaultOversized: 200, FaultStall: 0, FaultResetMidBody: 200, FaultUnauthorized: 401,
		FaultNotFound: 404, FaultGone: 410}[f]
	s.record(r, id, status)
	switch f {
	case FaultStall:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
		return
	case Fault429:
		w.Header().Set("Retry-After", secondsCeil(s.cfg.retryAfter))
	case Fault429Date:
		w.Header().Set("Retry-After", time.Now().Add(s.cfg.retryAfter+time.Second).UTC().Format(http.TimeFormat))
	case FaultTruncated:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"completed","case_id":"`+id+`","result":{"act`)
		return
	case FaultResetMidBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"status":"pending","case_id":"`)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		panic(http.ErrAbortHandler)
	case FaultOversized:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"pending","pad":"`+strings.Repeat("x", 2<<20)+`"}`)
		return
	case FaultNotFound:
		writeJSON(w, status, map[string]string{"error": "not_found"})
		return
	}
	http.Error(w, http.StatusText(status), status)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// samples gives each review type a realistic prompt and context (§10).
var samples = map[hitl.ReviewType]struct{ prompt, message, context string }{
	hitl.TypeApproval: {"Approve deployment of acme-web v2.1.0 to production",
		"Deployment plan ready for review.",
		`{"artifact":{"title":"acme-web v2.1.0","environment":"production","changes":["Upgrade runtime to 1.26","Enable canary rollout"]}}`},
	hitl.TypeSelection: {"Select which jobs to apply for (3 matches found in Berlin)",
		"3 matching positions found.",
		`{"options":[{"id":"job_1","label":"Senior Frontend Engineer, TechFlow"},{"id":"job_2","label":"Staff Frontend Developer, Klarna"},{"id":"job_3","label":"Senior React Engineer, Zalando"}],"multi_select":true}`},
	hitl.TypeInput: {"Provide your salary expectations and start date",
		"A few details are needed to finish the application.",
		`{"form":{"fields":[{"key":"salary_expectation","label":"Expected annual salary (EUR)","type":"number","required":true,"sensitive":true,"validation":{"min":30000,"max":300000}},{"key":"start_date","label":"Earliest start date","type":"date","required":true},{"key":"remote","label":"Remote only","type":"boolean","default":false}]}}`},
	hitl.TypeConfirmation: {"Confirm sending 2 application emails",
		"2 emails are ready to send.",
		`{"items":[{"id":"email_001","label":"Application to Klarna"},{"id":"email_002","label":"Application to Zalando"}],"irreversible":true}`},
	hitl.TypeEscalation: {"Deployment failed: readiness probe timed out. Retry, skip or abort?",
		"Deployment of acme-web v2.1.0 failed.",
		`{"error":{"code":"readiness_probe_failed","message":"3 of 5 pods failed readiness checks"},"params":{"strategy":"rolling","readiness_timeout_seconds":60}}`},
}

// liveCase writes the hitl object h as the live service does: spec 0.6, timeout "24h", and
// no prompt, created_at or expires_at.
func liveCase(h map[string]any, lifetime time.Duration) {
	h["spec_version"], h["timeout"] = "0.6", shortDuration(lifetime)
	delete(h, "prompt")
	delete(h, "created_at")
	delete(h, "expires_at")
}

// liveActiveRetryAfter is ProfileLive's poll pacing while the human is at the case.
const liveActiveRetryAfter = 10 * time.Second

// shortDuration writes d as the live service writes timeouts: "24h", "30m", else Go's form.
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	case d%time.Minute == 0:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return d.String()
}
