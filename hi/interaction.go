package hi

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The enumerations of the spec's message (§2.2) and its design notes. The spec lists some
// values with "e.g." or "etc."; Type and UserActions stay open, the others are checked.
const (
	ModeCentralized = "centralized"
	ModeDistributed = "distributed"

	UrgencyBlocking    = "blocking"
	UrgencyRecommended = "recommended"
	UrgencyOptional    = "optional"

	StatusAwaitingInput = "awaiting_input"
	StatusResolved      = "resolved"
	StatusReceived      = "received"

	// TypeFeedback marks a human-initiated interaction: no agent output (§3, scenario 3).
	TypeFeedback     = "feedback"
	TypeApproval     = "approval"
	TypeNotification = "notification"

	// RoleObserver is the role of a participant whose role is not given (design notes).
	RoleObserver = "observer"
)

// Interaction is a HumanInteraction message (§2.2).
type Interaction struct {
	InteractionID    string        `json:"interactionId"`
	GroupID          string        `json:"groupId,omitempty"`
	CoordinationMode string        `json:"coordinationMode"`
	ResolutionPolicy Policy        `json:"resolutionPolicy"`
	Timestamp        time.Time     `json:"timestamp"`
	AgentInstanceID  string        `json:"agentInstanceId,omitempty"`
	Participants     []Participant `json:"participants"`
	// AgentOutput is nil for human-initiated feedback.
	AgentOutput  *AgentOutput  `json:"agentOutput"`
	Type         string        `json:"type"`
	Urgency      string        `json:"urgency"`
	UserActions  []string      `json:"userActions"`
	Status       string        `json:"status"`
	HumanFactors *HumanFactors `json:"humanFactors,omitempty"`
	History      []Feedback    `json:"history"`
}

// Participant is one person asked, with their role.
type Participant struct {
	ID   string `json:"id"`
	Role string `json:"role"`
}

// AgentOutput is what the agent produced and how sure it is (0–1).
type AgentOutput struct {
	Summary    string  `json:"summary"`
	Confidence float64 `json:"confidence"`
}

// HumanFactors are the spec's trust and fatigue measures, each 0–1 when present.
type HumanFactors struct {
	TrustLevel   *float64 `json:"trustLevel,omitempty"`
	FatigueScore *float64 `json:"fatigueScore,omitempty"`
}

// Feedback is one participant's response (the HumanFeedback of §4.3).
type Feedback struct {
	ParticipantID string    `json:"participantId"`
	Action        string    `json:"action"`
	Reason        string    `json:"reason,omitempty"`
	InputText     string    `json:"inputText,omitempty"`
	Timestamp     time.Time `json:"timestamp,omitzero"`
}

// Problem is one thing wrong with a message, at a JSON path ("$.participants[1].id").
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// ErrInvalid: a message breaks the protocol; the concrete error is a [*ParseError].
var ErrInvalid = errors.New("hi: invalid HumanInteraction")

// ParseError lists every problem of a message at once.
type ParseError struct {
	Problems []Problem
}

func (e *ParseError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Path + ": " + p.Message
	}
	return "hi: invalid HumanInteraction: " + strings.Join(parts, "; ")
}

// Is matches ErrInvalid.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// ForModel renders the problems as a message to send back to the model that wrote the
// message, one line per problem, asking for a corrected message.
func (e *ParseError) ForModel() string {
	var b strings.Builder
	b.WriteString("Your HumanInteraction message was rejected. Fix these problems and send the whole message again:\n")
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "- %s: %s\n", p.Path, p.Message)
	}
	return b.String()
}

// Parse reads a HumanInteraction, typically written by a model. It is lenient about form —
// keys in camelCase or snake_case and any letter case, enum values and actions in any case,
// numbers as strings, timestamps in RFC 3339 with or without fractions or zone, a missing
// history or status, and the object wrapped in one Markdown code fence (a line "```" or
// "```json" before it and "```" after it, as models often write) — and strict about meaning:
// every problem is reported at once in a [*ParseError]. Anything else around the object —
// prose before or after it, a second fence — is refused, with a problem at "$" saying the
// reply must be only the JSON object; invalid JSON is refused with the syntax error's line
// and column (counted in data), so that [ParseError.ForModel] gives the model something to
// fix.
//
// Required in every message: type and timestamp; in distributed mode, groupId. Required as
// well for an agent-initiated interaction (any type but feedback): interactionId,
// agentInstanceId (the spec's "unique id for the agent instance"; its problem is
// "$.agentInstanceId: required for an agent-initiated interaction"), participants,
// agentOutput (summary and confidence) and userActions (but for a notification). A feedback
// interaction (§3, scenario 3) needs no agentInstanceId and must have no agentOutput.
//
// Defaults applied: coordinationMode centralized, resolutionPolicy first_response (as the
// spec's example does), status awaiting_input (received for feedback), role observer. A
// feedback message without an interactionId gets a synthetic one ("fb-" and 16 hex digits),
// as §2.4 allows. userActions and the history's actions are trimmed and lower-cased.
//
// On any problem Parse returns a nil *Interaction and the *ParseError (matching
// [ErrInvalid]): a message that is partly wrong is never half used.
func Parse(data []byte) (*Interaction, error) {
	inner, base := unfence(data)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(inner, &raw); err != nil || raw == nil {
		return nil, &ParseError{Problems: []Problem{{"$", notAnObject(data, inner, base, err)}}}
	}
	p := &parser{}
	p.fields = p.normalise(raw, "$")
	it := p.interaction()
	p.check(it)
	if len(p.problems) > 0 {
		return nil, &ParseError{Problems: p.problems}
	}
	return it, nil
}

// onlyTheObject ends every problem with what surrounds the object.
const onlyTheObject = "the reply must be only the JSON object, without prose or Markdown around it"

// unfence returns the JSON inside one Markdown code fence around data ("```" or "```json" on
// the first line, "```" at the end, only blanks outside), and the offset in data it starts
// at; else data and 0.
func unfence(data []byte) ([]byte, int) {
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	t := bytes.TrimRight(data[start:], " \t\r\n")
	if !bytes.HasPrefix(t, []byte("```")) || !bytes.HasSuffix(t, []byte("```")) {
		return data, 0
	}
	nl := bytes.IndexByte(t, '\n')
	if nl < 0 || len(t) < nl+1+3 {
		return data, 0
	}
	if lang := strings.TrimSpace(string(t[3:nl])); lang != "" && !strings.EqualFold(lang, "json") {
		return data, 0
	}
	inner := t[nl+1 : len(t)-3]
	if bytes.Contains(inner, []byte("```")) {
		return data, 0
	}
	return inner, start + nl + 1
}

// notAnObject says why data (the reply, or the part of it inside a fence, starting at offset
// base of reply) is not one JSON object, for the model to fix: the syntax error at its line
// and column in the reply, text before or after the object, or the kind of value it is.
func notAnObject(reply, data []byte, base int, err error) string {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return "empty; " + onlyTheObject
	}
	var syn *json.SyntaxError
	switch {
	case t[0] != '{' && json.Valid(t):
		kind := map[byte]string{'[': "an array", '"': "a string", 'n': "null", 't': "a boolean", 'f': "a boolean"}[t[0]]
		if kind == "" {
			kind = "a number"
		}
		return "must be a JSON object, not " + kind
	case t[0] != '{':
		return "does not start with {; " + onlyTheObject
	case errors.As(err, &syn):
		line, col := position(reply, base+int(max(syn.Offset-1, 0)))
		msg := strings.TrimPrefix(syn.Error(), "json: ")
		if strings.Contains(msg, "after top-level value") {
			return fmt.Sprintf("text after the object at line %d, column %d; %s", line, col, onlyTheObject)
		}
		return fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, msg)
	}
	return "not a JSON object"
}

// position is the line and column (from 1, in bytes) of offset i in b.
func position(b []byte, i int) (int, int) {
	i = min(max(i, 0), len(b))
	line := 1 + bytes.Count(b[:i], []byte("\n"))
	return line, i - bytes.LastIndexByte(b[:i], '\n')
}

// Validate checks an Interaction built in code with the rules Parse applies.
func (it *Interaction) Validate() error {
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	_, err = Parse(b)
	return err
}

// normalise keys a JSON object (at path) by its keys lower-cased without underscores or
// dashes. Two keys that normalise alike ("participants" and "__participants__") are a
// problem naming both, never a random winner; neither is kept.
func (p *parser) normalise(raw map[string]json.RawMessage, path string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(raw))
	names := make(map[string][]string, len(raw))
	for k, v := range raw {
		nk := key(k)
		names[nk] = append(names[nk], k)
		out[nk] = v
	}
	var clashes []string
	for nk, ks := range names {
		if len(ks) > 1 {
			slices.Sort(ks)
			clashes = append(clashes, fmt.Sprintf("keys %s name the same field; keep one", quoteAll(ks)))
			delete(out, nk)
		}
	}
	slices.Sort(clashes)
	for _, c := range clashes {
		p.bad(path, c)
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, " and ")
}

// key is k lower-cased without underscores or dashes. It is called for every member of every
// object, so it builds nothing per call (it once made a strings.Replacer each time: about
// 25 KiB and 15 µs per member, 1.7 s for a 1 MiB list of participants).
func key(k string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

type parser struct {
	fields   map[string]json.RawMessage
	problems []Problem
}

func (p *parser) bad(path, msg string) { p.problems = append(p.problems, Problem{path, msg}) }

func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// str reads a string member; numbers are taken as their text.
func (p *parser) str(obj map[string]json.RawMessage, name, path string) string {
	raw := obj[key(name)]
	if !present(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	p.bad(path, "must be a string")
	return ""
}

// num reads a number member; a numeric string is accepted. ok is false when absent or bad.
func (p *parser) num(obj map[string]json.RawMessage, name, path string) (float64, bool) {
	raw := obj[key(name)]
	if !present(raw) {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return v, true
		}
	}
	p.bad(path, "must be a number")
	return 0, false
}

func (p *parser) object(obj map[string]json.RawMessage, name, path string) map[string]json.RawMessage {
	raw := obj[key(name)]
	if !present(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		p.bad(path, "must be an object")
		return nil
	}
	return p.normalise(m, path)
}

func (p *parser) array(obj map[string]json.RawMessage, name, path string) []json.RawMessage {
	raw := obj[key(name)]
	if !present(raw) {
		return nil
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		p.bad(path, "must be an array")
		return nil
	}
	return a
}

// objects yields each object of the array member name with its path ("$.history[2]"),
// keys normalised, reporting the elements that are not objects.
func (p *parser) objects(obj map[string]json.RawMessage, name, problem string) iter.Seq2[string, map[string]json.RawMessage] {
	return func(yield func(string, map[string]json.RawMessage) bool) {
		for i, raw := range p.array(obj, name, "$."+name) {
			path := fmt.Sprintf("$.%s[%d]", name, i)
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil || m == nil {
				p.bad(path, problem)
				continue
			}
			if !yield(path, p.normalise(m, path)) {
				return
			}
		}
	}
}

func (p *parser) time(obj map[string]json.RawMessage, name, path string, required bool) time.Time {
	s := p.str(obj, name, path)
	if s == "" {
		if required {
			p.bad(path, "required (an ISO 8601 timestamp)")
		}
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	p.bad(path, "not an ISO 8601 timestamp")
	return time.Time{}
}

func (p *parser) interaction() *Interaction {
	f := p.fields
	it := &Interaction{
		InteractionID:    p.str(f, "interactionId", "$.interactionId"),
		GroupID:          p.str(f, "groupId", "$.groupId"),
		CoordinationMode: strings.ToLower(p.str(f, "coordinationMode", "$.coordinationMode")),
		AgentInstanceID:  p.str(f, "agentInstanceId", "$.agentInstanceId"),
		Type:             strings.ToLower(p.str(f, "type", "$.type")),
		Urgency:          strings.ToLower(p.str(f, "urgency", "$.urgency")),
		Status:           strings.ToLower(p.str(f, "status", "$.status")),
	}
	if s := p.str(f, "resolutionPolicy", "$.resolutionPolicy"); s != "" {
		pol, err := ParsePolicy(s)
		if err != nil {
			p.bad("$.resolutionPolicy", err.Error())
		}
		it.ResolutionPolicy = pol
	}
	it.Timestamp = p.time(f, "timestamp", "$.timestamp", true)
	for path, m := range p.objects(f, "participants", "must be an object with id and role") {
		it.Participants = append(it.Participants, Participant{ID: p.str(m, "id", path+".id"), Role: p.str(m, "role", path+".role")})
	}
	if o := p.object(f, "agentOutput", "$.agentOutput"); o != nil {
		it.AgentOutput = &AgentOutput{Summary: p.str(o, "summary", "$.agentOutput.summary")}
		if c, ok := p.num(o, "confidence", "$.agentOutput.confidence"); ok {
			it.AgentOutput.Confidence = c
		} else if !present(o["confidence"]) {
			it.AgentOutput.Confidence = math.NaN()
		}
	}
	for i, raw := range p.array(f, "userActions", "$.userActions") {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			p.bad(fmt.Sprintf("$.userActions[%d]", i), "must be a string")
			continue
		}
		it.UserActions = append(it.UserActions, strings.ToLower(strings.TrimSpace(s)))
	}
	if h := p.object(f, "humanFactors", "$.humanFactors"); h != nil {
		it.HumanFactors = &HumanFactors{}
		if v, ok := p.num(h, "trustLevel", "$.humanFactors.trustLevel"); ok {
			it.HumanFactors.TrustLevel = &v
		}
		if v, ok := p.num(h, "fatigueScore", "$.humanFactors.fatigueScore"); ok {
			it.HumanFactors.FatigueScore = &v
		}
	}
	for path, m := range p.objects(f, "history", "must be an object") {
		it.History = append(it.History, Feedback{
			ParticipantID: p.str(m, "participantId", path+".participantId"),
			Action:        strings.ToLower(p.str(m, "action", path+".action")),
			Reason:        p.str(m, "reason", path+".reason"),
			InputText:     p.str(m, "inputText", path+".inputText"),
			Timestamp:     p.time(m, "timestamp", path+".timestamp", false),
		})
	}
	return it
}

// check applies the rules of meaning and the defaults.
func (p *parser) check(it *Interaction) {
	feedback := it.Type == TypeFeedback
	if it.Type == "" {
		p.bad("$.type", "required (approval, notification, feedback, …)")
	}
	if it.InteractionID == "" {
		if feedback {
			it.InteractionID = syntheticID()
		} else {
			p.bad("$.interactionId", "required")
		}
	}
	if it.CoordinationMode == "" {
		it.CoordinationMode = ModeCentralized
	} else if it.CoordinationMode != ModeCentralized && it.CoordinationMode != ModeDistributed {
		p.bad("$.coordinationMode", "must be centralized or distributed")
	}
	if it.CoordinationMode == ModeDistributed && it.GroupID == "" {
		p.bad("$.groupId", "required in distributed mode, to link the interactions")
	}
	if it.ResolutionPolicy.Kind == "" {
		it.ResolutionPolicy = FirstResponse
	}
	if it.Urgency != "" && !slices.Contains([]string{UrgencyBlocking, UrgencyRecommended, UrgencyOptional}, it.Urgency) {
		p.bad("$.urgency", "must be blocking, recommended or optional")
	}
	if it.Urgency == "" {
		it.Urgency = UrgencyRecommended
		if feedback {
			it.Urgency = UrgencyOptional
		}
	}
	switch {
	case it.Status == "" && feedback:
		it.Status = StatusReceived
	case it.Status == "":
		it.Status = StatusAwaitingInput
	case !slices.Contains([]string{StatusAwaitingInput, StatusResolved, StatusReceived}, it.Status):
		p.bad("$.status", "must be awaiting_input, resolved or received")
	}
	if !feedback {
		if it.AgentInstanceID == "" {
			p.bad("$.agentInstanceId", "required for an agent-initiated interaction")
		}
		if it.AgentOutput == nil {
			p.bad("$.agentOutput", "required (summary and confidence), except for type feedback")
		}
		if len(it.Participants) == 0 {
			p.bad("$.participants", "at least one participant is required")
		}
		if len(it.UserActions) == 0 && it.Type != TypeNotification {
			p.bad("$.userActions", "at least one action is required")
		}
	} else if it.AgentOutput != nil {
		p.bad("$.agentOutput", "must be null for type feedback")
	}
	if o := it.AgentOutput; o != nil {
		if o.Summary == "" {
			p.bad("$.agentOutput.summary", "required")
		}
		switch {
		case math.IsNaN(o.Confidence):
			p.bad("$.agentOutput.confidence", "required, a number from 0 to 1")
			o.Confidence = 0
		case o.Confidence < 0 || o.Confidence > 1:
			p.bad("$.agentOutput.confidence", "must be from 0 to 1")
		}
	}
	if h := it.HumanFactors; h != nil {
		if v := h.TrustLevel; v != nil && (*v < 0 || *v > 1) {
			p.bad("$.humanFactors.trustLevel", "must be from 0 to 1")
		}
		if v := h.FatigueScore; v != nil && (*v < 0 || *v > 1) {
			p.bad("$.humanFactors.fatigueScore", "must be from 0 to 1")
		}
	}
	ids, skeletons := map[string]string{}, map[string]string{}
	for i := range it.Participants {
		pt := &it.Participants[i]
		path := fmt.Sprintf("$.participants[%d]", i)
		if pt.ID == "" {
			p.bad(path+".id", "required")
		} else if problem := idProblem(pt.ID, ids, skeletons); problem != "" {
			p.bad(path+".id", problem)
		}
		if pt.Role == "" {
			pt.Role = RoleObserver
		}
	}
	seen := map[string]bool{}
	for i, a := range it.UserActions {
		path := fmt.Sprintf("$.userActions[%d]", i)
		switch {
		case a == "":
			p.bad(path, "empty")
		case seen[a]:
			p.bad(path, fmt.Sprintf("duplicate action %q", a))
		}
		seen[a] = true
	}
	if q := it.ResolutionPolicy; q.Kind == kindQuorum && !feedback && len(it.Participants) > 0 && q.N > len(it.Participants) {
		p.bad("$.resolutionPolicy", fmt.Sprintf("quorum of %d with only %d participants", q.N, len(it.Participants)))
	}
	for i, h := range it.History {
		path := fmt.Sprintf("$.history[%d]", i)
		if h.ParticipantID == "" {
			p.bad(path+".participantId", "required")
		} else if _, ok := ids[participantKey(h.ParticipantID)]; !feedback && !ok {
			p.bad(path+".participantId", fmt.Sprintf("%q is not a participant", h.ParticipantID))
		}
		if h.Action == "" && h.InputText == "" {
			p.bad(path+".action", "required")
		} else if h.Action != "" && !feedback && len(it.UserActions) > 0 && !seen[h.Action] {
			p.bad(path+".action", fmt.Sprintf("%q is not in userActions", h.Action))
		}
	}
}

func syntheticID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "fb-" + hex.EncodeToString(b[:])
}
