package hitltest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// The review page (§7): one page per case at its review_url, for each review type. The
// token in the URL authenticates; the first visit marks the case opened; an ended case says
// how it ended and shows the answer given; a second submission is refused with the first
// answer. Inputs are checked by the server with the SDK's own form rules, and the page is
// shown again with a message at each field. Plain HTML, a little JavaScript for multi-step
// forms, conditional fields and progress; usable on a phone, with a keyboard, in dark mode.

// kv is one row of a context shown as a table.
type kv struct {
	Key, Value string
	Block      bool     // the value is JSON shown preformatted
	List       []string // the value is a list of strings or numbers, shown as one
}

// choice is one option of a selection or one item of a confirmation.
type choice struct {
	ID, Label, Description string
	Checked                bool
}

type fieldView struct {
	hitl.Field
	Input               string // the input's type attribute, for the kinds that use <input>
	Value               string
	Checked             map[string]bool
	Min, Max, Step      string
	MinLength           string
	MaxLength           string
	Error               string
	CondField, CondOp   string
	CondValue           string
	Selected, BoolValue bool
}

type stepView struct {
	Title, Description string
	Fields             []fieldView
}

type pageData struct {
	ID, Type, Prompt, State string
	Ended, Expired          bool
	ExpiresAt               string
	DefaultAction           string
	Answer                  string // the action given, for an answered case
	AnswerData              string
	AlreadyAnswered         bool
	Error                   string // a message for the whole form
	FeedbackError           string
	SelectedError           string
	Context                 string
	Artifact                []kv
	Options                 []choice
	Multi                   bool
	Note                    string
	Feedback                string
	Steps                   []stepView
	FirstErrorStep          int
	Items                   []choice
	Irreversible            bool
	Failure                 []kv
	Params                  []kv
	Reason                  string
}

// contextView is what the page reads from a case's context, in the shapes the fake's
// samples and the conformance examples use.
type contextView struct {
	Artifact        json.RawMessage   `json:"artifact"`
	Options         []choiceJSON      `json:"options"`
	Items           []choiceJSON      `json:"items"`
	ItemsToConfirm  []choiceJSON      `json:"items_to_confirm"`
	MultiSelect     *bool             `json:"multi_select"`
	Irreversible    bool              `json:"irreversible"`
	Error           json.RawMessage   `json:"error"`
	Params          map[string]any    `json:"params"`
	Warnings        []json.RawMessage `json:"warnings"`
	SuggestedAction []string          `json:"suggested_actions"`
}

type choiceJSON struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Title       string `json:"title"`
	Description string `json:"description"`
}

func (c choiceJSON) choice() choice {
	return choice{ID: c.ID, Label: firstNonEmpty(c.Label, firstNonEmpty(c.Title, c.ID)), Description: c.Description}
}

// handleReviewPage shows the page. The token authenticates; the first visit marks the case
// opened.
func (s *Server) handleReviewPage(w http.ResponseWriter, r *http.Request) {
	c, ok := s.openCase(w, r)
	if !ok {
		return
	}
	d := s.pageFor(c, nil, nil)
	s.mu.Unlock()
	s.record(r, c.id, http.StatusOK)
	renderPage(w, http.StatusOK, d)
}

// openCase finds the case of the request and checks its token; it returns with s.mu held
// when ok.
func (s *Server) openCase(w http.ResponseWriter, r *http.Request) (*fakeCase, bool) {
	id := r.PathValue("id")
	now := time.Now()
	s.mu.Lock()
	c, ok := s.cases[id]
	if !ok || !tokenOK(c, r.URL.Query().Get("token")) {
		s.mu.Unlock()
		s.record(r, id, http.StatusUnauthorized)
		http.Error(w, "This review link is not valid: the token is missing or wrong.", http.StatusUnauthorized)
		return nil, false
	}
	s.expireIfDue(c, now)
	if c.state == "pending" {
		c.state, c.openedAt = "opened", now
		s.changed(c)
	}
	return c, true
}

// handleReviewSubmit takes the page's form. Called with a valid token on a waiting case, it
// builds the type's result.data, checks it, and either records the answer and shows the page
// again (303), or shows the form again with the problems (422). On an ended case it answers
// 409 with the first answer.
func (s *Server) handleReviewSubmit(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "could not read the form", http.StatusBadRequest)
		return
	}
	c, ok := s.openCase(w, r)
	if !ok {
		return
	}
	if c.terminal() {
		d := s.pageFor(c, nil, nil)
		d.AlreadyAnswered = true
		s.mu.Unlock()
		s.record(r, c.id, http.StatusConflict)
		renderPage(w, http.StatusConflict, d)
		return
	}
	action := r.PostForm.Get("action")
	data, problems := buildAnswer(c, action, r.PostForm)
	if len(problems) > 0 {
		d := s.pageFor(c, r.PostForm, problems)
		s.mu.Unlock()
		s.record(r, c.id, http.StatusUnprocessableEntity)
		renderPage(w, http.StatusUnprocessableEntity, d)
		return
	}
	s.mu.Unlock()
	if err := s.Respond(c.id, action, data, &transport.Responder{Name: "Reviewer (review page)"}); err != nil {
		s.record(r, c.id, http.StatusConflict)
		http.Error(w, "this case has already ended", http.StatusConflict)
		return
	}
	s.record(r, c.id, http.StatusSeeOther)
	http.Redirect(w, r, r.URL.String(), http.StatusSeeOther)
}

// handleReviewProgress records a multi-step form's progress (§8 in_progress): POST with step
// and total.
func (s *Server) handleReviewProgress(w http.ResponseWriter, r *http.Request) {
	step, err1 := strconv.Atoi(r.FormValue("step"))
	total, err2 := strconv.Atoi(r.FormValue("total"))
	c, ok := s.openCase(w, r)
	if !ok {
		return
	}
	ended := c.terminal()
	s.mu.Unlock()
	switch {
	case err1 != nil || err2 != nil || step < 1 || step > total:
		http.Error(w, "step and total must be numbers, 1 ≤ step ≤ total", http.StatusBadRequest)
	case ended:
		http.Error(w, "this case has already ended", http.StatusConflict)
	default:
		_ = s.Progress(c.id, hitl.Progress{CurrentStep: step, TotalSteps: total})
		s.record(r, c.id, http.StatusNoContent)
		w.WriteHeader(http.StatusNoContent)
	}
}

// actionsOf are the actions each review type offers (§10.2).
var actionsOf = map[string][]string{
	"approval": {"approve", "edit", "reject"}, "selection": {"select"}, "input": {"submit"},
	"confirmation": {"confirm", "cancel"}, "escalation": {"retry", "skip", "abort"},
}

// buildAnswer turns the posted form into result.data for c's type; problems maps a field
// (or "" for the whole form) to a message for the person.
func buildAnswer(c *fakeCase, action string, f map[string][]string) (any, map[string]string) {
	typ := c.typ
	if actionsOf[typ] == nil {
		typ = "input" // x-* types are handled as input
	}
	valid := false
	for _, a := range actionsOf[typ] {
		valid = valid || a == action
	}
	if !valid {
		return nil, map[string]string{"": fmt.Sprintf("Choose one of: %s.", strings.Join(actionsOf[typ], ", "))}
	}
	get := func(k string) string { return strings.TrimSpace(first(f[k])) }
	switch typ {
	case "approval":
		fb := get("feedback")
		if action == "edit" && fb == "" {
			return nil, map[string]string{"feedback": "Describe the edits you want."}
		}
		return omitEmpty(map[string]any{"feedback": fb}), nil
	case "selection":
		sel := f["selected"]
		if len(sel) == 0 {
			return nil, map[string]string{"selected": "Choose at least one option."}
		}
		return omitEmpty(map[string]any{"selected": sel, "note": get("note")}), nil
	case "confirmation":
		items := f["item"]
		if items == nil {
			items = []string{}
		}
		return omitEmpty(map[string]any{"confirmed_items": items, "note": get("note")}), nil
	case "escalation":
		out := map[string]any{"reason": get("reason")}
		if action == "retry" {
			var ctx contextView
			_ = json.Unmarshal(c.context, &ctx)
			mod := map[string]any{}
			for k, orig := range ctx.Params {
				v := get("param." + k)
				if v == "" || v == fmt.Sprint(orig) {
					continue
				}
				if _, isNum := orig.(float64); isNum {
					n, err := strconv.ParseFloat(v, 64)
					if err != nil {
						return nil, map[string]string{"": "Enter a number for " + k + "."}
					}
					mod[k] = n
				} else {
					mod[k] = v
				}
			}
			if len(mod) > 0 {
				out["modified_params"] = mod
			}
		}
		return omitEmpty(out), nil
	}
	return inputAnswer(c, f)
}

// inputAnswer reads a form's fields with their JSON types and checks them with the form's
// rules (hitl.Form.Check). Fields hidden by a condition are left out.
func inputAnswer(c *fakeCase, f map[string][]string) (any, map[string]string) {
	form, err := formOf(c)
	if err != nil || form == nil {
		note := strings.TrimSpace(first(f["note"]))
		return omitEmpty(map[string]any{"note": note}), nil
	}
	data := map[string]any{}
	problems := map[string]string{}
	for _, fd := range form.All() {
		vals, sent := f[fd.Key]
		if fd.Type == hitl.FieldBoolean {
			if _, shown := f["shown."+fd.Key]; shown {
				data[fd.Key] = first(vals) == "true"
			}
			continue
		}
		v := strings.TrimSpace(first(vals))
		switch {
		case !sent:
		case fd.Type == hitl.FieldMultiselect:
			data[fd.Key] = vals
		case v == "":
		case fd.Type == hitl.FieldNumber || fd.Type == hitl.FieldRange:
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				problems[fd.Key] = "Enter a number."
				continue
			}
			data[fd.Key] = n
		default:
			data[fd.Key] = v
		}
	}
	raw, _ := json.Marshal(data)
	var ie *hitl.InvalidError
	if err := form.Check(context.Background(), raw); errors.As(err, &ie) {
		// A field its condition hides is dropped, as the page's script does, then checked again.
		hidden := false
		for _, p := range ie.Problems {
			if strings.HasPrefix(p.Problem, "must be absent") {
				delete(data, p.Field)
				hidden = true
			}
		}
		if hidden {
			raw, _ = json.Marshal(data)
			ie = nil
			_ = errors.As(form.Check(context.Background(), raw), &ie)
		}
	}
	if ie != nil {
		for _, p := range ie.Problems {
			if problems[p.Field] == "" {
				problems[p.Field] = sentence(p.Problem)
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return data, nil
}

// sentence makes a rule's wording a message for a person.
func sentence(problem string) string {
	if problem == "required" {
		return "This field is required."
	}
	return strings.ToUpper(problem[:1]) + problem[1:] + "."
}

func formOf(c *fakeCase) (*hitl.Form, error) {
	var ctx struct {
		Form json.RawMessage `json:"form"`
	}
	if json.Unmarshal(c.context, &ctx) != nil || len(ctx.Form) == 0 {
		return nil, nil
	}
	return hitl.ParseForm(ctx.Form)
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func omitEmpty(m map[string]any) map[string]any {
	for k, v := range m {
		if s, ok := v.(string); ok && s == "" {
			delete(m, k)
		}
	}
	return m
}

// pageFor builds the page of c; posted and problems refill a refused form. Called with s.mu
// held.
func (s *Server) pageFor(c *fakeCase, posted map[string][]string, problems map[string]string) pageData {
	d := pageData{ID: c.id, Type: c.typ, Prompt: c.prompt, State: c.state, Ended: c.terminal(),
		Expired: c.state == "expired", DefaultAction: c.defaultAction, ExpiresAt: c.expiresAt.UTC().Format("2 Jan 2006, 15:04 MST"),
		Error: problems[""], FeedbackError: problems["feedback"], SelectedError: problems["selected"], Note: first(posted["note"]), Feedback: first(posted["feedback"]), Reason: first(posted["reason"])}
	if c.state == "completed" {
		d.Answer = c.action
		if len(c.data) > 0 && string(c.data) != "{}" {
			d.AnswerData = pretty(c.data)
		}
	}
	var ctx contextView
	_ = json.Unmarshal(c.context, &ctx)
	if len(c.context) > 0 {
		d.Context = pretty(c.context)
	}
	checked := map[string]bool{}
	for _, v := range append(posted["selected"], posted["item"]...) {
		checked[v] = true
	}
	typ := c.typ
	if actionsOf[typ] == nil {
		typ = "input"
	}
	switch typ {
	case "approval":
		d.Artifact = table(firstRaw(ctx.Artifact, c.context))
	case "selection":
		d.Multi = ctx.MultiSelect == nil || *ctx.MultiSelect
		for _, o := range append(ctx.Options, ctx.Items...) {
			ch := o.choice()
			ch.Checked = checked[ch.ID]
			d.Options = append(d.Options, ch)
		}
	case "confirmation":
		d.Irreversible = ctx.Irreversible
		for _, o := range append(ctx.Items, ctx.ItemsToConfirm...) {
			ch := o.choice()
			ch.Checked = posted == nil || checked[ch.ID]
			d.Items = append(d.Items, ch)
		}
	case "escalation":
		d.Failure = table(ctx.Error)
		keys := make([]string, 0, len(ctx.Params))
		for k := range ctx.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := fmt.Sprint(ctx.Params[k])
			if p := first(posted["param."+k]); p != "" {
				v = p
			}
			d.Params = append(d.Params, kv{Key: k, Value: v})
		}
	case "input":
		d.Steps, d.FirstErrorStep = formSteps(c, posted, problems)
	}
	return d
}

func firstRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 && string(a) != "null" {
		return a
	}
	return b
}

// table shows a JSON object as rows: scalars as text, the rest preformatted.
func table(raw json.RawMessage) []kv {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([]kv, 0, len(keys))
	for _, k := range keys {
		var s string
		if json.Unmarshal(obj[k], &s) == nil {
			rows = append(rows, kv{Key: label(k), Value: s})
			continue
		}
		var list []any
		if json.Unmarshal(obj[k], &list) == nil && scalars(list) {
			row := kv{Key: label(k)}
			for _, x := range list {
				row.List = append(row.List, fmt.Sprint(x))
			}
			rows = append(rows, row)
			continue
		}
		v := bytes.TrimSpace(obj[k])
		block := len(v) > 0 && (v[0] == '{' || v[0] == '[')
		val := string(v)
		if block {
			val = pretty(v)
		}
		rows = append(rows, kv{Key: label(k), Value: val, Block: block})
	}
	return rows
}

// scalars reports whether a JSON list holds only strings, numbers and booleans.
func scalars(list []any) bool {
	for _, x := range list {
		switch x.(type) {
		case string, float64, bool:
		default:
			return false
		}
	}
	return len(list) > 0
}

// label turns a JSON key into words: "readiness_timeout_seconds" → "Readiness timeout seconds".
func label(k string) string {
	k = strings.ReplaceAll(k, "_", " ")
	if k == "" {
		return k
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

func pretty(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// formSteps lays an input case's form out as steps (one step for a flat form), refilled with
// what was posted, and returns the index of the first step with a problem.
func formSteps(c *fakeCase, posted map[string][]string, problems map[string]string) ([]stepView, int) {
	form, err := formOf(c)
	if err != nil || form == nil {
		return nil, 0
	}
	steps := form.Steps
	if len(steps) == 0 {
		steps = []hitl.Step{{Fields: form.Fields}}
	}
	firstErr := -1
	out := make([]stepView, 0, len(steps))
	for i, st := range steps {
		sv := stepView{Title: st.Title, Description: st.Description}
		for _, fd := range st.Fields {
			fv := fieldView{Field: fd, Error: problems[fd.Key], Checked: map[string]bool{}}
			if fv.Error != "" && firstErr < 0 {
				firstErr = i
			}
			fv.Input = inputType(fd)
			if v := fd.Validation; v != nil {
				fv.Min, fv.Max = num(v.Min), num(v.Max)
				if v.MinLength != nil {
					fv.MinLength = strconv.Itoa(*v.MinLength)
				}
				if v.MaxLength != nil {
					fv.MaxLength = strconv.Itoa(*v.MaxLength)
				}
			}
			if cd := fd.Conditional; cd != nil {
				fv.CondField, fv.CondOp, fv.CondValue = cd.Field, cd.Operator, string(cd.Value)
			}
			switch {
			case posted != nil:
				fv.Value = first(posted[fd.Key])
				for _, v := range posted[fd.Key] {
					fv.Checked[v] = true
				}
				fv.BoolValue = first(posted[fd.Key]) == "true"
			case len(fd.Default) > 0 && !fd.Sensitive:
				var def any
				_ = json.Unmarshal(fd.Default, &def)
				switch v := def.(type) {
				case bool:
					fv.BoolValue = v
				case []any:
					for _, x := range v {
						fv.Checked[fmt.Sprint(x)] = true
					}
				case nil:
				default:
					fv.Value = fmt.Sprint(v)
				}
			}
			if fd.Sensitive {
				fv.Value = "" // a sensitive value is never sent back to the browser
			}
			sv.Fields = append(sv.Fields, fv)
		}
		out = append(out, sv)
	}
	return out, max(firstErr, 0)
}

func num(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

// inputType is the HTML input type of a field; select, multiselect, textarea and boolean
// have controls of their own.
func inputType(fd hitl.Field) string {
	switch fd.Type {
	case hitl.FieldNumber:
		return "number"
	case hitl.FieldDate:
		return "date"
	case hitl.FieldEmail:
		return "email"
	case hitl.FieldURL:
		return "url"
	case hitl.FieldRange:
		return "range"
	}
	if fd.Sensitive {
		return "password"
	}
	return "text"
}

func renderPage(w http.ResponseWriter, status int, d pageData) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, d); err != nil {
		http.Error(w, "could not render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer") // the URL carries the token
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
