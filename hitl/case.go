package hitl

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitlkit/hitlkit/internal/clientcfg"
	"github.com/hitlkit/hitlkit/internal/duration"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// ReviewType is a case's type (HITL Protocol §10). Types starting with "x-" are a service's
// own and are handled as [TypeInput].
type ReviewType string

// The review types of HITL Protocol §10.
const (
	TypeApproval     ReviewType = "approval"
	TypeSelection    ReviewType = "selection"
	TypeInput        ReviewType = "input"
	TypeConfirmation ReviewType = "confirmation"
	TypeEscalation   ReviewType = "escalation"
)

// Known reports whether t is one of the five spec types or a custom "x-" type.
func (t ReviewType) Known() bool {
	switch t {
	case TypeApproval, TypeSelection, TypeInput, TypeConfirmation, TypeEscalation:
		return true
	}
	return strings.HasPrefix(string(t), "x-")
}

// The default actions of HITL Protocol §6 (default_action), applied by the service when a
// case expires unanswered. Absent means [DefaultSkip].
const (
	DefaultSkip    = "skip"
	DefaultApprove = "approve"
	DefaultReject  = "reject"
	DefaultAbort   = "abort"
)

// maxPrompt is the longest prompt HITL Protocol §6 allows, in characters.
const maxPrompt = 500

// defaultTimeout is a case's lifetime when its 202 gives neither expires_at nor a usable
// timeout: §6's default timeout, 24h.
const defaultTimeout = 24 * time.Hour

// leniencyNote completes the warning for a required field a 202 left out (outside Strict).
func leniencyNote(field string) string {
	switch field {
	case "prompt":
		return "the message is the question"
	case "created_at":
		return "the time the 202 was received is used"
	}
	return "the case expires its timeout (default 24h) after created_at"
}

// Case is the hitl object of a HITL Protocol 202 response (§6), in Go's shape: timestamps
// parsed, reminder_at always a list, callback_url null or absent as "".
//
// ReviewURL carries the review token and SubmitToken is a bearer secret: a Case's String,
// GoString and LogValue redact both, but its JSON form (used to resume a wait in another
// process) holds them in full; store it as you would a credential.
type Case struct {
	SpecVersion string     `json:"spec_version"`
	CaseID      string     `json:"case_id"`
	ReviewURL   string     `json:"review_url"`
	PollURL     string     `json:"poll_url"`
	EventsURL   string     `json:"events_url,omitempty"`
	CallbackURL string     `json:"callback_url,omitempty"`
	Type        ReviewType `json:"type"`
	Prompt      string     `json:"prompt"`
	// Timeout is the case's lifetime as the service wrote it ("24h", "PT24H"), informational:
	// ExpiresAt is the deadline.
	Timeout        string      `json:"timeout,omitempty"`
	DefaultAction  string      `json:"default_action,omitempty"`
	CreatedAt      time.Time   `json:"created_at"`
	ExpiresAt      time.Time   `json:"expires_at"`
	ReminderAt     []time.Time `json:"reminder_at,omitempty"`
	PreviousCaseID string      `json:"previous_case_id,omitempty"`
	// Context is the service's context for the review page, raw (forms live in context.form).
	Context json.RawMessage `json:"context,omitempty"`
	// Surface is the optional UI format declaration, raw.
	Surface json.RawMessage `json:"surface,omitempty"`
	// SubmitURL, SubmitToken and InlineActions enable inline submit (§7.5, v0.6+).
	SubmitURL     string   `json:"submit_url,omitempty"`
	SubmitToken   string   `json:"submit_token,omitempty"`
	InlineActions []string `json:"inline_actions,omitempty"`
	// VerificationPolicy is the v0.8 verification policy (§7.6), raw.
	VerificationPolicy json.RawMessage `json:"verification_policy,omitempty"`
}

// inlineSubmit reports whether the case offers inline submit: it needs both submit_url and
// submit_token (§7.5); one without the other disables it.
func (c *Case) inlineSubmit() bool { return c.SubmitURL != "" && c.SubmitToken != "" }

// String describes the case with its secrets redacted.
func (c Case) String() string {
	return fmt.Sprintf("hitl case %s (%s, expires %s, review %s)", c.CaseID, c.Type,
		c.ExpiresAt.Format(time.RFC3339), httpx.Redact(c.ReviewURL))
}

// GoString is String, so that %#v does not print the secrets either.
func (c Case) GoString() string { return c.String() }

// LogValue gives slog the case without its secrets.
func (c Case) LogValue() slog.Value {
	return slog.GroupValue(slog.String("case_id", c.CaseID), slog.String("type", string(c.Type)),
		slog.String("review_url", httpx.Redact(c.ReviewURL)), slog.Time("expires_at", c.ExpiresAt))
}

// wireCase is the hitl object as it arrives: everything whose spelling varies is kept raw or
// as a string so that one bad field is reported by name instead of failing the whole decode.
type wireCase struct {
	SpecVersion        *string         `json:"spec_version"`
	CaseID             *string         `json:"case_id"`
	ReviewURL          *string         `json:"review_url"`
	PollURL            *string         `json:"poll_url"`
	EventsURL          *string         `json:"events_url"`
	CallbackURL        *string         `json:"callback_url"`
	Type               *string         `json:"type"`
	Prompt             *string         `json:"prompt"`
	Timeout            json.RawMessage `json:"timeout"`
	DefaultAction      *string         `json:"default_action"`
	CreatedAt          *string         `json:"created_at"`
	ExpiresAt          *string         `json:"expires_at"`
	ReminderAt         json.RawMessage `json:"reminder_at"`
	PreviousCaseID     *string         `json:"previous_case_id"`
	Context            json.RawMessage `json:"context"`
	Surface            json.RawMessage `json:"surface"`
	SubmitURL          *string         `json:"submit_url"`
	SubmitToken        *string         `json:"submit_token"`
	InlineActions      []string        `json:"inline_actions"`
	VerificationPolicy json.RawMessage `json:"verification_policy"`
}

// parseCase turns a raw hitl value into a Case. It returns the partial case, the problems
// that make it invalid, and warnings for what is odd but usable.
func parseCase(raw []byte, o *DetectOptions) (*Case, []FieldError, []string) {
	if kind := jsonKind(raw); kind != "object" {
		return nil, []FieldError{{Field: "hitl", Problem: "must be an object, got " + kind}}, nil
	}
	var w wireCase
	var problems []FieldError
	var warnings []string
	if err := json.Unmarshal(raw, &w); err != nil {
		problems = append(problems, fieldErrorFromJSON(err))
	}
	c := &Case{InlineActions: w.InlineActions, Context: w.Context, Surface: w.Surface, VerificationPolicy: w.VerificationPolicy}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	typeErr := ""
	if len(problems) > 0 {
		typeErr = problems[0].Field
	}
	required := func(field string, p *string) string {
		if (p == nil || *p == "") && field != typeErr {
			problems = append(problems, FieldError{Field: field, Problem: "missing"})
		}
		return str(p)
	}

	c.SpecVersion = required("spec_version", w.SpecVersion)
	switch c.SpecVersion {
	case "", "0.5", "0.6", "0.7", "0.8":
	default:
		warnings = append(warnings, "spec_version "+quoteShort(c.SpecVersion)+" is not 0.5–0.8; parsed as 0.8")
	}

	c.CaseID = required("case_id", w.CaseID)
	if c.CaseID != "" && !validCaseID(c.CaseID) {
		problems = append(problems, FieldError{Field: "case_id", Problem: "must match ^[a-zA-Z0-9_-]+$"})
	}

	checkURL := func(field string, p *string, needed bool) string {
		var v string
		if needed {
			v = required(field, p)
		} else {
			v = str(p)
		}
		if v != "" {
			if problem := checkServiceURL(v, o); problem != "" {
				problems = append(problems, FieldError{Field: field, Problem: problem})
			}
		}
		return v
	}
	c.ReviewURL = checkURL("review_url", w.ReviewURL, true)
	c.PollURL = checkURL("poll_url", w.PollURL, true)
	c.EventsURL = checkURL("events_url", w.EventsURL, false)
	c.CallbackURL = checkURL("callback_url", w.CallbackURL, false)
	c.SubmitURL = checkURL("submit_url", w.SubmitURL, false)
	c.SubmitToken = str(w.SubmitToken)
	if (c.SubmitURL == "") != (c.SubmitToken == "") {
		warnings = append(warnings, "submit_url and submit_token must come together; inline submit disabled")
	}

	c.Type = ReviewType(required("type", w.Type))
	if c.Type != "" && !c.Type.Known() {
		warnings = append(warnings, "type "+quoteShort(string(c.Type))+" is not a spec type; handled as input")
	}

	// A live service leaves prompt, created_at and expires_at out of its 202 (the message
	// carries the question, timeout the lifetime): outside Strict mode each is a warning, the
	// case created when received and expiring after its timeout (24 h when it has none, §6's
	// default).
	lenient := func(field string, p *string) string {
		if (p == nil || *p == "") && !o.Strict {
			warnings = append(warnings, field+" missing; "+leniencyNote(field))
			return ""
		}
		return required(field, p)
	}
	c.Prompt = lenient("prompt", w.Prompt)
	if n := utf8.RuneCountInString(c.Prompt); n > maxPrompt {
		msg := fmt.Sprintf("longer than %d characters (%d)", maxPrompt, n)
		if o.Strict {
			problems = append(problems, FieldError{Field: "prompt", Problem: msg})
		} else {
			warnings = append(warnings, "prompt is "+msg)
		}
	}

	if lenient("created_at", w.CreatedAt) != "" {
		c.CreatedAt = requiredTime("created_at", w.CreatedAt, &problems)
	} else if !o.Strict {
		c.CreatedAt = time.Now()
	}
	expiresAt := lenient("expires_at", w.ExpiresAt) != ""
	if expiresAt {
		c.ExpiresAt = requiredTime("expires_at", w.ExpiresAt, &problems)
	}
	if !c.CreatedAt.IsZero() && !c.ExpiresAt.IsZero() && c.ExpiresAt.Before(c.CreatedAt) {
		warnings = append(warnings, "expires_at is before created_at")
	}

	c.DefaultAction = str(w.DefaultAction)
	switch c.DefaultAction {
	case "":
		c.DefaultAction = DefaultSkip
	case DefaultSkip, DefaultApprove, DefaultReject, DefaultAbort:
	default:
		warnings = append(warnings, "default_action "+quoteShort(c.DefaultAction)+" is not skip, approve, reject or abort")
	}

	lifetime := defaultTimeout
	if len(w.Timeout) > 0 && string(w.Timeout) != "null" {
		if err := json.Unmarshal(w.Timeout, &c.Timeout); err != nil {
			warnings = append(warnings, "timeout is not a string; ignored")
		} else if d, err := duration.Parse(c.Timeout); err != nil || d <= 0 {
			warnings = append(warnings, "timeout "+quoteShort(c.Timeout)+" is not a duration; expires_at still applies")
		} else {
			lifetime = d
		}
	}
	if !expiresAt && !o.Strict && !c.CreatedAt.IsZero() {
		c.ExpiresAt = c.CreatedAt.Add(lifetime)
	}

	var bad int
	c.ReminderAt, bad = parseTimes(w.ReminderAt)
	if bad > 0 {
		warnings = append(warnings, fmt.Sprintf("reminder_at: %d unparsable value(s) dropped", bad))
	}

	c.PreviousCaseID = str(w.PreviousCaseID)
	return c, problems, warnings
}

func requiredTime(field string, p *string, problems *[]FieldError) time.Time {
	if p == nil || *p == "" {
		*problems = append(*problems, FieldError{Field: field, Problem: "missing"})
		return time.Time{}
	}
	t, err := parseTime(*p)
	if err != nil {
		*problems = append(*problems, FieldError{Field: field, Problem: "not an RFC 3339 timestamp"})
	}
	return t
}

// parseTime accepts RFC 3339 with or without fractional seconds ("Z", ".845Z",
// ".123456+00:00"), as HITL Protocol timestamps are written.
func parseTime(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// parseTimes accepts one timestamp or a list of them (reminder_at, §6) and returns the
// parsable ones and how many were not.
func parseTimes(raw json.RawMessage) ([]time.Time, int) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, 0
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, 1
		}
		list = []string{one}
	}
	var out []time.Time
	bad := 0
	for _, s := range list {
		t, err := parseTime(s)
		if err != nil {
			bad++
			continue
		}
		out = append(out, t)
	}
	return out, bad
}

// validCaseID checks §6's pattern ^[a-zA-Z0-9_-]+$ without a regexp.
func validCaseID(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', b == '_', b == '-':
		default:
			return false
		}
	}
	return s != ""
}

// checkServiceURL applies the address rules of every client (§13: HTTPS only, with
// http://localhost and http://127.0.0.1 allowed for development (v0.7+) when the caller opts
// in; no localhost or private IP literal unless the caller allows private addresses: a
// hostile 202 must not point the agent at its own network). Host names are not resolved. It
// returns the problem, or "" when u is acceptable. The URL itself never appears in the
// problem.
func checkServiceURL(u string, o *DetectOptions) string {
	parsed, err := parseAbsURL(u)
	if err != nil {
		return "not an absolute URL"
	}
	if parsed.Scheme != "https" && parsed.Scheme != "http" {
		return "must use https"
	}
	if err := clientcfg.CheckURL(parsed, o.AllowPrivateAddresses); err != nil {
		return err.Error()
	}
	return ""
}

func jsonKind(raw []byte) string {
	for _, b := range raw {
		switch b {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return "object"
		case '[':
			return "array"
		case '"':
			return "string"
		case 'n':
			return "null"
		case 't', 'f':
			return "boolean"
		default:
			return "number"
		}
	}
	return "nothing"
}

func fieldErrorFromJSON(err error) FieldError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "hitl"
		}
		return FieldError{Field: field, Problem: "must be " + jsonTypeName(te.Type.Kind().String()) + ", got " + te.Value}
	}
	return FieldError{Field: "hitl", Problem: "not valid JSON"}
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string", "ptr":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "a " + kind
}

// quoteShort quotes a service-supplied value for a warning, cut to 40 bytes.
func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func parseAbsURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if !u.IsAbs() || u.Host == "" {
		return nil, errors.New("not absolute")
	}
	return u, nil
}
