package hitl

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/transport"
)

// The submitted_via channels of HITL Protocol §7.5; a service's own start with "x-".
const (
	ViaTelegram = "telegram_inline_button"
	ViaSlack    = "slack_block_action"
	ViaDiscord  = "discord_component"
	ViaWhatsApp = "whatsapp_reply_button"
	ViaTeams    = "teams_adaptive_card"
)

// Errors of inline submit (§7.5); match with errors.Is.
var (
	// ErrNotInline: the action may not be submitted inline for this case (the case has no
	// submit_url and submit_token, its type is selection or input, or the action is not in
	// inline_actions). Nothing was sent; send the human to the review URL.
	ErrNotInline = errors.New("hitl: action may not be submitted inline")
	// ErrUseReviewURL: the service wants the human on its review page (403
	// action_not_inline, verification_required or verification_failed). Send them to the
	// case's original review URL, [Interrupt.ReviewURL], never a URL from the error body, and
	// do not retry inline.
	ErrUseReviewURL = errors.New("hitl: send the human to the review URL")
	// ErrCaseClosed: the case was already answered (409) or has expired (410).
	ErrCaseClosed = errors.New("hitl: case already answered or expired")
	// ErrRateLimited: the service answered 429; see [SubmitError].RetryAfter.
	ErrRateLimited = errors.New("hitl: rate limited")
	// ErrBadRequest: the service refused the submission as malformed (400).
	ErrBadRequest = errors.New("hitl: bad request")
)

// Submitter is the platform user who tapped the button (§7.5 submitted_by).
type Submitter struct {
	// Platform is telegram, slack, discord, whatsapp, teams, or an "x-" value.
	Platform       string `json:"platform"`
	PlatformUserID string `json:"platform_user_id"`
	DisplayName    string `json:"display_name,omitempty"`
}

// InlineAnswer is one inline submission, made only after a human tapped a button (§7.5).
type InlineAnswer struct {
	Action string
	// Data is the action's data, a JSON object; nil sends {}.
	Data json.RawMessage
	// Via is one of the Via constants or an "x-" value.
	Via string
	By  Submitter
	// Evidence is verification_evidence (§7.6), a JSON array produced by a human-controlled
	// proof flow. It is relayed byte for byte; never build or alter it.
	Evidence json.RawMessage
}

// SubmitError is a submission the service refused. Error names the status and code only:
// the service's message may echo what it was sent, so it is kept in Message, unprinted.
type SubmitError struct {
	StatusCode int
	// Code is the service's error code (invalid_token, action_not_inline,
	// verification_required, verification_failed, duplicate_submission, case_expired,
	// rate_limited, …); may be empty.
	Code    string
	Message string
	// RetryAfter is the service's Retry-After on a 429; zero when absent.
	RetryAfter time.Duration
}

func (e *SubmitError) Error() string {
	s := fmt.Sprintf("hitl: inline submit refused: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.StatusCode == 0 {
		s = "hitl: inline submit refused before sending"
	}
	if e.Code != "" {
		s += " (" + quoteShort(e.Code) + ")"
	}
	return s
}

// Is matches the sentinel of the refusal's category.
func (e *SubmitError) Is(target error) bool {
	switch e.StatusCode {
	case http.StatusBadRequest:
		return target == ErrBadRequest
	case http.StatusUnauthorized:
		return target == transport.ErrUnauthorized
	case http.StatusForbidden, 0:
		return target == ErrUseReviewURL
	case http.StatusNotFound:
		return target == transport.ErrNotFound
	case http.StatusConflict, http.StatusGone:
		return target == ErrCaseClosed
	case http.StatusTooManyRequests:
		return target == ErrRateLimited
	}
	return false
}

// InlineChoices returns the actions that may be offered as native buttons (§7.5, §7.7): none
// without submit_url and submit_token or for selection, input and custom types; otherwise
// inline_actions, or every action of the type when it is absent. Actions in inline_actions
// that the type does not have are left out.
func (c *Case) InlineChoices() []string {
	if !c.inlineSubmit() {
		return nil
	}
	var all []string
	switch c.Type {
	case TypeApproval:
		all = []string{"approve", "edit", "reject"}
	case TypeConfirmation:
		all = []string{"confirm", "cancel"}
	case TypeEscalation:
		all = []string{"retry", "skip", "abort"}
	default:
		return nil
	}
	if c.InlineActions == nil {
		return all
	}
	var out []string
	for _, a := range c.InlineActions {
		if slices.Contains(all, a) && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// SubmitInline submits a with the case's submit_token on behalf of the human who tapped a
// button, and returns the completed Result the service confirmed (its Action and Data are
// what was submitted; Wait's poll brings the service's full record, submission_context
// included).
//
// What may not be sent is refused before any request: an action not in
// [Case.InlineChoices] (ErrNotInline), an invalid Via or By ([*InvalidError]), and a missing
// Evidence when the case's verification policy demands proof for inline submit (a
// [*SubmitError] matching ErrUseReviewURL). The service's refusals are [*SubmitError]s
// matching transport.ErrUnauthorized, ErrUseReviewURL, ErrCaseClosed, ErrRateLimited, ErrBadRequest or
// transport.ErrNotFound. The submission is never retried: it is not idempotent. The submit token is
// sent only to submit_url and never appears in logs or errors.
func (c *Client) SubmitInline(ctx context.Context, it *Interrupt, a InlineAnswer) (*transport.Result, error) {
	if c == nil {
		return nil, errNilClient
	}
	if it == nil || it.Case == nil {
		return nil, errors.New("hitl: SubmitInline needs a HITL interrupt with a case")
	}
	cs := it.Case
	if !slices.Contains(cs.InlineChoices(), a.Action) {
		return nil, fmt.Errorf("%w: %s on case %s", ErrNotInline, quoteShort(a.Action), cs.CaseID)
	}
	body, err := inlineBody(a)
	if err != nil {
		return nil, err
	}
	policy, err := cs.Verification()
	if err != nil {
		return nil, err
	}
	if policy.Demands(ForInlineSubmit) && len(a.Evidence) == 0 {
		return nil, &SubmitError{Code: "verification_required"}
	}
	if problem := checkServiceURL(cs.SubmitURL, &c.detect); problem != "" {
		return nil, &InvalidError{Object: "hitl", Problems: []FieldError{{Field: "submit_url", Problem: problem}}, Case: cs, refused: true}
	}

	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cs.SubmitURL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("hitl: inline submit for case %s: %w", cs.CaseID, httpx.StripURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+cs.SubmitToken)
	resp, err := c.service.Do(req)
	if err != nil {
		return nil, fmt.Errorf("hitl: inline submit for case %s: %w", cs.CaseID, httpx.StripURL(err))
	}
	defer httpx.DrainClose(resp.Body)
	raw, err := httpx.ReadLimited(resp.Body, 64<<10)
	if err != nil {
		return nil, fmt.Errorf("hitl: inline submit for case %s: %w", cs.CaseID, err)
	}
	c.logger.LogAttrs(ctx, slog.LevelDebug, "hitl: inline submit", slog.String("case_id", cs.CaseID),
		slog.String("action", a.Action), slog.Int("status", resp.StatusCode))
	if resp.StatusCode != http.StatusOK {
		e := &SubmitError{StatusCode: resp.StatusCode}
		e.Code, e.Message = errorBody(raw)
		secrets := append(httpx.Secrets(req), cs.SubmitToken, cs.ReviewURL)
		if u, err := url.Parse(cs.ReviewURL); err == nil {
			for _, vs := range u.Query() {
				secrets = append(secrets, vs...)
			}
		}
		e.Code, e.Message = httpx.Scrub(e.Code, 64, secrets...), httpx.Scrub(e.Message, 200, secrets...)
		if resp.StatusCode == http.StatusTooManyRequests {
			e.RetryAfter, _ = httpx.RetryAfter(resp.Header, time.Now())
		}
		return nil, e
	}
	var ok struct {
		Status      string `json:"status"`
		CaseID      string `json:"case_id"`
		CompletedAt string `json:"completed_at"`
	}
	_ = json.Unmarshal(raw, &ok)
	if ok.CaseID != "" && ok.CaseID != cs.CaseID {
		return nil, &InvalidError{Object: "submit response", Problems: []FieldError{{Field: "case_id", Problem: "does not match the case submitted"}}}
	}
	data := a.Data
	if len(data) == 0 {
		data = json.RawMessage(`{}`)
	}
	return &transport.Result{Status: transport.StatusCompleted, CaseID: cs.CaseID, Action: a.Action, Decision: decision.Of(a.Action), Data: data,
		CreatedAt: cs.CreatedAt, EndedAt: at(ok.CompletedAt)}, nil
}

// inlineBody builds the §7.5 request body, relaying Data and Evidence byte for byte.
func inlineBody(a InlineAnswer) ([]byte, error) {
	var problems []FieldError
	if !knownOrCustom(a.Via, ViaTelegram, ViaSlack, ViaDiscord, ViaWhatsApp, ViaTeams) {
		problems = append(problems, FieldError{Field: "submitted_via", Problem: "must be a known channel or start with x-"})
	}
	if !knownOrCustom(a.By.Platform, "telegram", "slack", "discord", "whatsapp", "teams") {
		problems = append(problems, FieldError{Field: "submitted_by.platform", Problem: "must be a known platform or start with x-"})
	}
	if a.By.PlatformUserID == "" {
		problems = append(problems, FieldError{Field: "submitted_by.platform_user_id", Problem: "missing"})
	}
	data := a.Data
	if len(data) == 0 {
		data = json.RawMessage(`{}`)
	} else if jsonKind(data) != "object" || !json.Valid(data) {
		problems = append(problems, FieldError{Field: "data", Problem: "must be a JSON object"})
	}
	if len(a.Evidence) > 0 && (jsonKind(a.Evidence) != "array" || !json.Valid(a.Evidence)) {
		problems = append(problems, FieldError{Field: "verification_evidence", Problem: "must be a JSON array"})
	}
	if len(problems) > 0 {
		return nil, &InvalidError{Object: "inline submission", Problems: problems}
	}
	head, _ := json.Marshal(struct {
		Action string    `json:"action"`
		Via    string    `json:"submitted_via"`
		By     Submitter `json:"submitted_by"`
	}{a.Action, a.Via, a.By})
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"data":`)
	b.Write(data)
	if len(a.Evidence) > 0 {
		b.WriteString(`,"verification_evidence":`)
		b.Write(a.Evidence)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func knownOrCustom(v string, known ...string) bool {
	return slices.Contains(known, v) || (strings.HasPrefix(v, "x-") && len(v) > 2)
}

// errorBody reads a service's error code and message from {"error":…,"message":…}, the same
// wrapped in "detail", or a bare "detail" string.
func errorBody(raw []byte) (code, message string) {
	type flat struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	var w struct {
		flat
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &w) != nil {
		return "", ""
	}
	code, message = w.Error, w.Message
	var inner flat
	var text string
	switch {
	case json.Unmarshal(w.Detail, &inner) == nil && (inner.Error != "" || inner.Message != ""):
		code, message = cmp.Or(code, inner.Error), cmp.Or(message, inner.Message)
	case json.Unmarshal(w.Detail, &text) == nil:
		message = cmp.Or(message, text)
	}
	return code, message
}

// InlineButton is one native button for a case: the action and the short data to attach to
// the button (Telegram allows 64 bytes). Data names the case by an opaque handle, never by a
// token; resolve it with a [ButtonTable].
type InlineButton struct {
	Action string
	Data   string
}

// ButtonTable maps the short data of inline buttons back to their interrupts, so no token
// ever goes into a platform's callback data. The zero value is ready to use; it is safe for
// concurrent use. Remove entries when their cases end.
type ButtonTable struct {
	mu sync.Mutex
	m  map[string]*Interrupt
}

// Buttons registers it and returns one button per action of [Case.InlineChoices], with data
// "hitl:<handle>:<action>". It returns none when the case offers no inline actions.
func (t *ButtonTable) Buttons(it *Interrupt) []InlineButton {
	if it == nil || it.Case == nil {
		return nil
	}
	choices := it.Case.InlineChoices()
	if len(choices) == 0 {
		return nil
	}
	h := buttonHandle(it)
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[string]*Interrupt)
	}
	t.m[h] = it
	t.mu.Unlock()
	out := make([]InlineButton, len(choices))
	for i, a := range choices {
		out[i] = InlineButton{Action: a, Data: "hitl:" + h + ":" + a}
	}
	return out
}

// Lookup resolves a button's data to its interrupt and action. ok is false for data that is
// not a button of this table.
func (t *ButtonTable) Lookup(data string) (it *Interrupt, action string, ok bool) {
	rest, found := strings.CutPrefix(data, "hitl:")
	h, action, found2 := strings.Cut(rest, ":")
	if !found || !found2 {
		return nil, "", false
	}
	t.mu.Lock()
	it = t.m[h]
	t.mu.Unlock()
	if it == nil || !slices.Contains(it.Case.InlineChoices(), action) {
		return nil, "", false
	}
	return it, action, true
}

// Remove forgets the buttons of every case with this id, whichever service it came from.
func (t *ButtonTable) Remove(caseID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for h, it := range t.m {
		if it.Case.CaseID == caseID {
			delete(t.m, h)
		}
	}
}

// buttonHandle is 8 characters derived from the service's origin and the case id: short
// enough for any platform's button data, revealing nothing a URL would, and different for two
// services that happen to use the same case id.
func buttonHandle(it *Interrupt) string {
	origin := it.Origin
	if origin == "" {
		origin = httpx.OriginOf(it.Case.PollURL)
	}
	sum := sha256.Sum256([]byte(origin + "\n" + it.Case.CaseID))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}
