package hitl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hitlkit/hitlkit/internal/pattern"
)

// FieldType is a form field's type (HITL Protocol §10.3, form-field.schema.json). Types
// starting with "x-" are a service's own and are treated as text.
type FieldType string

// The field types of §10.3.
const (
	FieldText        FieldType = "text"
	FieldTextarea    FieldType = "textarea"
	FieldNumber      FieldType = "number"
	FieldDate        FieldType = "date"
	FieldEmail       FieldType = "email"
	FieldURL         FieldType = "url"
	FieldBoolean     FieldType = "boolean"
	FieldSelect      FieldType = "select"
	FieldMultiselect FieldType = "multiselect"
	FieldRange       FieldType = "range"
)

// Form is an input case's context.form (§10.3): either one list of Fields or a wizard of
// Steps. A Form is a plain value, safe to share once built.
type Form struct {
	Fields    []Field `json:"fields,omitempty"`
	Steps     []Step  `json:"steps,omitempty"`
	SessionID string  `json:"session_id,omitempty"`
	// Warnings lists what was odd but usable (both fields and steps, an unknown field type).
	Warnings []string `json:"-"`

	patterns map[string]*pattern.Pattern // compiled by ParseForm, read only after
}

// Step is one page of a multi-step form.
type Step struct {
	Title       string  `json:"title"`
	Description string  `json:"description,omitempty"`
	Fields      []Field `json:"fields"`
}

// Field is one form field. Default never holds a sensitive value (the spec sends those by
// DefaultRef); a Sensitive field's value must never be logged.
type Field struct {
	Key         string          `json:"key"`
	Label       string          `json:"label"`
	Type        FieldType       `json:"type"`
	Required    bool            `json:"required,omitempty"`
	Placeholder string          `json:"placeholder,omitempty"`
	Hint        string          `json:"hint,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	DefaultRef  string          `json:"default_ref,omitempty"`
	Sensitive   bool            `json:"sensitive,omitempty"`
	Options     []FieldOption   `json:"options,omitempty"`
	Validation  *Validation     `json:"validation,omitempty"`
	Conditional *Condition      `json:"conditional,omitempty"`
}

// FieldOption is one choice of a select or multiselect field.
type FieldOption struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Validation holds a field's rules. Lengths count characters; Min and Max bound numbers.
type Validation struct {
	MinLength *int     `json:"minLength,omitempty"`
	MaxLength *int     `json:"maxLength,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
}

// Condition makes a field visible only when another field's value compares as stated;
// a hidden field is left out of result.data (§10.3).
type Condition struct {
	Field string `json:"field"`
	// Operator is eq, neq, in, gt or lt.
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value"`
}

// Form returns the case's form, or nil and no error when its context has none. A form that
// cannot be read is an [*InvalidError] for the object "form", every problem listed.
func (c *Case) Form() (*Form, error) {
	var ctx struct {
		Form json.RawMessage `json:"form"`
	}
	if len(c.Context) == 0 || json.Unmarshal(c.Context, &ctx) != nil || len(ctx.Form) == 0 || string(ctx.Form) == "null" {
		return nil, nil
	}
	return ParseForm(ctx.Form)
}

// Limits of a form ParseForm accepts: a form over them is refused at once, so that
// rendering and checking one stays cheap whoever wrote it.
const (
	maxFormFields      = 500            // fields, all steps together
	maxFieldOptions    = 1000           // options of one field
	maxConditionDepth  = 8              // a field shown by a field shown by … (chains of conditions)
	maxPatternLength   = pattern.MaxLen // bytes of one validation pattern
	maxConditionValues = 1000           // values of one "in" condition
	maxFormInsts       = 20000          // compiled instructions of all the patterns of a form together
)

// ErrFormTooLarge matches the [*InvalidError] of a form over one of the limits above.
var ErrFormTooLarge = errors.New("hitl: form over the size limits")

// ParseForm reads a context.form object. A form over the limits (500 fields, 1,000 options
// per field, conditions 8 deep, patterns of 1,000 bytes or whose compiled program would exceed
// 1,000 instructions, such as "[a-z]{1000}", or 20,000 all the form's distinct patterns
// together) is an [*InvalidError] that also matches ErrFormTooLarge; so is a condition that
// refers back to itself.
func ParseForm(raw []byte) (*Form, error) {
	var f Form
	if err := json.Unmarshal(raw, &f); err != nil {
		p := fieldErrorFromJSON(err)
		p.Field = "form." + strings.TrimPrefix(p.Field, "hitl")
		return nil, &InvalidError{Object: "form", Problems: []FieldError{p}}
	}
	var problems []FieldError
	switch {
	case len(f.Fields) > 0 && len(f.Steps) > 0:
		f.Warnings = append(f.Warnings, "form has both fields and steps; steps are used")
		f.Fields = nil
	case len(f.Fields) == 0 && len(f.Steps) == 0:
		problems = append(problems, FieldError{Field: "form", Problem: "has neither fields nor steps"})
	}
	if err := checkFormSize(&f); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var tooBig []FieldError
	insts := 0 // of the patterns compiled so far
	for i, fd := range f.All() {
		at := fmt.Sprintf("form.fields[%d]", i)
		if !validFieldKey(fd.Key) {
			problems = append(problems, FieldError{Field: at + ".key", Problem: "must match ^[a-zA-Z][a-zA-Z0-9_]*$"})
		} else if seen[fd.Key] {
			problems = append(problems, FieldError{Field: at + ".key", Problem: "duplicate key"})
		}
		seen[fd.Key] = true
		if fd.Label == "" {
			problems = append(problems, FieldError{Field: at + ".label", Problem: "missing"})
		}
		switch kind := fd.Type.kind(); {
		case fd.Type == "":
			problems = append(problems, FieldError{Field: at + ".type", Problem: "missing"})
		case kind == "":
			f.Warnings = append(f.Warnings, "field "+fd.Key+" has type "+quoteShort(string(fd.Type))+"; treated as text")
		case (fd.Type == FieldSelect || fd.Type == FieldMultiselect) && len(fd.Options) == 0:
			problems = append(problems, FieldError{Field: at + ".options", Problem: "required for " + string(fd.Type)})
		}
		if v := fd.Validation; v != nil && v.Pattern != "" && f.patterns[v.Pattern] == nil && insts <= maxFormInsts {
			switch re, err := pattern.Compile(v.Pattern); {
			case errors.Is(err, pattern.ErrTooLarge):
				tooBig = append(tooBig, FieldError{Field: at + ".validation.pattern", Problem: fmt.Sprintf("compiles to more than %d instructions", pattern.MaxInsts)})
			case err != nil:
				f.Warnings = append(f.Warnings, "field "+fd.Key+" has a pattern Go cannot compile; not checked")
			case insts+re.Insts() > maxFormInsts:
				insts += re.Insts() // no other pattern is compiled
				tooBig = append(tooBig, FieldError{Field: at + ".validation.pattern", Problem: fmt.Sprintf("the form's patterns compile to more than %d instructions together", maxFormInsts)})
			default:
				insts += re.Insts()
				if f.patterns == nil {
					f.patterns = make(map[string]*pattern.Pattern)
				}
				f.patterns[v.Pattern] = re
			}
		}
		if cd := fd.Conditional; cd != nil {
			switch cd.Operator {
			case "eq", "neq", "in", "gt", "lt":
			default:
				problems = append(problems, FieldError{Field: at + ".conditional.operator", Problem: "must be eq, neq, in, gt or lt"})
			}
		}
	}
	if len(tooBig) > 0 {
		return nil, tooLarge(tooBig...)
	}
	if len(problems) > 0 {
		return nil, &InvalidError{Object: "form", Problems: problems}
	}
	return &f, nil
}

// All returns every field, steps flattened in order.
func (f *Form) All() []Field {
	if len(f.Steps) == 0 {
		return f.Fields
	}
	var all []Field
	for _, s := range f.Steps {
		all = append(all, s.Fields...)
	}
	return all
}

// Summary describes the form in one line for a forwarded message: "3-step form: Personal →
// Preferences → Review" or "6 fields".
func (f *Form) Summary() string {
	if len(f.Steps) > 0 {
		titles := make([]string, len(f.Steps))
		for i, s := range f.Steps {
			titles[i] = s.Title
		}
		return fmt.Sprintf("%d-step form: %s", len(f.Steps), strings.Join(titles, " → "))
	}
	if n := len(f.Fields); n != 1 {
		return fmt.Sprintf("%d fields", n)
	}
	return "1 field"
}

// SensitiveKeys lists the keys of the fields marked sensitive.
func (f *Form) SensitiveKeys() []string {
	var keys []string
	for _, fd := range f.All() {
		if fd.Sensitive {
			keys = append(keys, fd.Key)
		}
	}
	return keys
}

// redactedValue is what [Form.Redact] puts in place of a sensitive value.
const redactedValue = "[redacted]"

// Redact returns data (a result's data object) with the value of every sensitive field
// replaced by "[redacted]", for logging or display. Data that is not a JSON object is returned
// as nil, since it cannot be shown safely.
func (f *Form) Redact(data json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return nil
	}
	for _, k := range f.SensitiveKeys() {
		if _, ok := obj[k]; ok {
			obj[k] = json.RawMessage(strconv.Quote(redactedValue))
		}
	}
	out, _ := json.Marshal(obj)
	return out
}

// Check compares a submitted result.data with the form: every required visible field
// present and non-empty, every value of its field's type and within its rules, and no value
// for a field its condition hides. It returns nil or an [*InvalidError] for the object
// "result data" with one problem per key. Problems never quote a value.
//
// Its cost is linear in the size of the form and of data, whatever the conditions: each
// value is decoded once, however many conditions read it; options are looked up in a set,
// and each pattern is matched in linear time, all matches together within a fixed budget
// (the sum of each value's length times its pattern's instructions at most 8,388,608: 8 KiB
// against the largest pattern ParseForm accepts): a value the budget cannot cover is a
// problem, "too long to check against the field's pattern". An email address is checked only
// up to 254 bytes, the longest SMTP carries. It stops, returning context.Cause(ctx), when
// ctx ends.
func (f *Form) Check(ctx context.Context, data json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return &InvalidError{Object: "result data", Problems: []FieldError{{Field: "data", Problem: "must be a JSON object"}}}
	}
	vs := answer{raw: obj, decoded: make(map[string]decoded)}
	m := &matcher{known: f.patterns}
	var problems []FieldError
	for i, fd := range f.All() {
		if i%64 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		v, present := vs.value(fd.Key)
		if !vs.visible(fd) {
			if present {
				problems = append(problems, FieldError{Field: fd.Key, Problem: "must be absent: its condition hides it"})
			}
			continue
		}
		if !present {
			if fd.Required {
				problems = append(problems, FieldError{Field: fd.Key, Problem: "required"})
			}
			continue
		}
		if p := checkValue(fd, v, m); p != "" {
			problems = append(problems, FieldError{Field: fd.Key, Problem: p})
		}
	}
	if len(problems) > 0 {
		return &InvalidError{Object: "result data", Problems: problems}
	}
	return nil
}

// answer is a result.data object whose values are decoded on first use, once each.
type answer struct {
	raw     map[string]json.RawMessage
	decoded map[string]decoded
}

// decoded is one value; v is nil when it is absent, null, or did not decode (a number out
// of range).
type decoded struct {
	v       any
	present bool // and not null
}

// value returns key's value, decoding it the first time.
func (a answer) value(key string) (decoded, bool) {
	d, ok := a.decoded[key]
	if !ok {
		raw, in := a.raw[key]
		d.present = in && string(raw) != "null"
		if d.present && json.Unmarshal(raw, &d.v) != nil {
			d.v = nil
		}
		a.decoded[key] = d
	}
	return d, d.present
}

// visible reports whether fd is shown given the answer's values.
func (a answer) visible(fd Field) bool {
	cd := fd.Conditional
	if cd == nil {
		return true
	}
	d, _ := a.value(cd.Field)
	got := d.v
	var want any
	_ = json.Unmarshal(cd.Value, &want)
	switch cd.Operator {
	case "eq":
		return reflect.DeepEqual(got, want)
	case "neq":
		return !reflect.DeepEqual(got, want)
	case "in":
		list, _ := want.([]any)
		for _, v := range list {
			if reflect.DeepEqual(got, v) {
				return true
			}
		}
		return false
	case "gt", "lt":
		g, ok1 := got.(float64)
		w, ok2 := want.(float64)
		if !ok1 || !ok2 {
			return false
		}
		if cd.Operator == "gt" {
			return g > w
		}
		return g < w
	}
	return true
}

// checkValue returns the problem with one present value, or "".
func checkValue(fd Field, d decoded, m *matcher) string {
	switch fd.Type.kind() {
	case "bool":
		if _, ok := d.v.(bool); !ok {
			return "must be true or false"
		}
	case "number":
		n, ok := d.v.(float64)
		if !ok {
			return "must be a number"
		}
		if v := fd.Validation; v != nil {
			if v.Min != nil && n < *v.Min {
				return "below the minimum " + strconv.FormatFloat(*v.Min, 'f', -1, 64)
			}
			if v.Max != nil && n > *v.Max {
				return "above the maximum " + strconv.FormatFloat(*v.Max, 'f', -1, 64)
			}
		}
	case "list":
		list, ok := d.v.([]any)
		if !ok {
			return "must be a list of strings"
		}
		values := make([]string, len(list))
		for i, v := range list {
			s, isString := v.(string)
			if !isString && v != nil { // null reads as "", as it does into a []string
				return "must be a list of strings"
			}
			values[i] = s
		}
		if fd.Required && len(list) == 0 {
			return "required"
		}
		if len(list) > len(fd.Options) {
			return "has more values than there are options"
		}
		options := make(map[string]bool, len(fd.Options))
		for _, o := range fd.Options {
			options[o.Value] = true
		}
		for _, v := range values {
			if !options[v] {
				return "has a value that is not one of the options"
			}
		}
	default:
		s, ok := d.v.(string)
		if !ok {
			return "must be a string"
		}
		if s == "" {
			if fd.Required {
				return "required"
			}
			return ""
		}
		return checkString(fd, s, m)
	}
	return ""
}

func checkString(fd Field, s string, m *matcher) string {
	switch fd.Type {
	case FieldDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			if _, err := time.Parse(time.RFC3339, s); err != nil {
				return "must be an ISO 8601 date"
			}
		}
	case FieldEmail:
		if len(s) > maxEmailLength {
			return "must be an email address"
		}
		if a, err := mail.ParseAddress(s); err != nil || a.Name != "" {
			return "must be an email address"
		}
	case FieldURL:
		if _, err := parseAbsURL(s); err != nil {
			return "must be an absolute URL"
		}
	case FieldSelect:
		if !hasOption(fd, s) {
			return "must be one of the options"
		}
	}
	if v := fd.Validation; v != nil {
		n := utf8.RuneCountInString(s)
		if v.MinLength != nil && n < *v.MinLength {
			return fmt.Sprintf("shorter than %d characters", *v.MinLength)
		}
		if v.MaxLength != nil && n > *v.MaxLength {
			return fmt.Sprintf("longer than %d characters", *v.MaxLength)
		}
		if v.Pattern != "" {
			return m.match(v.Pattern, s)
		}
	}
	return ""
}

// maxEmailLength is the longest address SMTP carries (RFC 5321 §4.5.3.1.3: a path of 256
// bytes with its angle brackets); a longer one is refused before net/mail reads it.
const maxEmailLength = 254

// matcher matches the values of one Check against their patterns within one budget. known
// are the patterns ParseForm compiled; a Form built by hand has its patterns compiled here,
// once each per Check.
type matcher struct {
	known, compiled map[string]*pattern.Pattern
	budget          pattern.Budget
}

// match returns the problem of s against the pattern p, or "". A pattern that cannot be
// compiled (or is too large) is not checked, as ParseForm warns.
func (m *matcher) match(p, s string) string {
	re := m.known[p]
	if re == nil {
		var seen bool
		if re, seen = m.compiled[p]; !seen {
			re, _ = pattern.Compile(p)
			if m.compiled == nil {
				m.compiled = make(map[string]*pattern.Pattern)
			}
			m.compiled[p] = re
		}
	}
	if re == nil {
		return ""
	}
	switch ok, within := m.budget.Match(re, s); {
	case !within:
		return "too long to check against the field's pattern"
	case !ok:
		return "does not match the field's pattern"
	}
	return ""
}

func hasOption(fd Field, v string) bool {
	for _, o := range fd.Options {
		if o.Value == v {
			return true
		}
	}
	return false
}

// kind is the JSON shape of the type's value (§10.3): "text" (string), "number", "date"
// (an ISO date string), "bool" or "list" (string array); custom "x-" types are text, and a
// type the spec does not list gives "".
func (t FieldType) kind() string {
	switch t {
	case FieldText, FieldTextarea, FieldEmail, FieldURL, FieldSelect, FieldDate:
		return "text"
	case FieldNumber, FieldRange:
		return "number"
	case FieldBoolean:
		return "bool"
	case FieldMultiselect:
		return "list"
	}
	if strings.HasPrefix(string(t), "x-") {
		return "text"
	}
	return ""
}

// validFieldKey checks §10.3's key pattern ^[a-zA-Z][a-zA-Z0-9_]*$.
func validFieldKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		b := k[i]
		letter := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if !letter && (i == 0 || !(b >= '0' && b <= '9' || b == '_')) {
			return false
		}
	}
	return true
}

// checkFormSize refuses a form over the limits, before anything else is looked at: field and
// option counts, pattern lengths, the values of "in" conditions, and the depth of chains of
// conditions (a cycle is refused too).
func checkFormSize(f *Form) error {
	var problems []FieldError
	all := f.All()
	if len(all) > maxFormFields {
		return tooLarge(FieldError{Field: "form", Problem: fmt.Sprintf("has %d fields; at most %d", len(all), maxFormFields)})
	}
	shownBy := make(map[string]string, len(all))
	for i, fd := range all {
		at := fmt.Sprintf("form.fields[%d]", i)
		if len(fd.Options) > maxFieldOptions {
			problems = append(problems, FieldError{Field: at + ".options", Problem: fmt.Sprintf("%d options; at most %d", len(fd.Options), maxFieldOptions)})
		}
		if v := fd.Validation; v != nil && len(v.Pattern) > maxPatternLength {
			problems = append(problems, FieldError{Field: at + ".validation.pattern", Problem: fmt.Sprintf("longer than %d bytes", maxPatternLength)})
		}
		if cd := fd.Conditional; cd != nil {
			shownBy[fd.Key] = cd.Field
			var values []json.RawMessage
			if cd.Operator == "in" && json.Unmarshal(cd.Value, &values) == nil && len(values) > maxConditionValues {
				problems = append(problems, FieldError{Field: at + ".conditional.value", Problem: fmt.Sprintf("%d values; at most %d", len(values), maxConditionValues)})
			}
		}
	}
	// Each chain is followed at most maxConditionDepth+1 steps: linear in the fields.
	for i, fd := range all {
		depth, key := 0, fd.Key
		for {
			next, ok := shownBy[key]
			if !ok {
				break
			}
			depth++
			if next == fd.Key || depth > maxConditionDepth {
				problems = append(problems, FieldError{Field: fmt.Sprintf("form.fields[%d].conditional", i),
					Problem: fmt.Sprintf("conditions chained deeper than %d or in a cycle", maxConditionDepth)})
				break
			}
			key = next
		}
	}
	if len(problems) > 0 {
		return tooLarge(problems...)
	}
	return nil
}

func tooLarge(problems ...FieldError) error {
	return limitError{&InvalidError{Object: "form", Problems: problems}}
}

// limitError is the *InvalidError of a form over the limits; it also matches ErrFormTooLarge.
type limitError struct{ *InvalidError }

func (e limitError) Unwrap() error        { return e.InvalidError }
func (e limitError) Is(target error) bool { return target == ErrFormTooLarge }
