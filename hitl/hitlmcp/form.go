package hitlmcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hitlkit/hitlkit/internal/jsonname"
	"github.com/hitlkit/hitlkit/internal/pattern"
)

// DefaultRounds is how many times [ElicitationHandler] puts a form to the human when their
// answers break its schema, unless [WithRounds] says otherwise.
const DefaultRounds = 3

// Problem is one way an answer breaks its form's schema: the field, the rule it breaks, and
// the value given where it is not secret.
type Problem struct {
	// Field is the property of the form; "" for the answer as a whole.
	Field string
	// Rule is the rule broken, in words: "is required", "must be at most 1000", "must be
	// an email address (RFC 5321)", "must be one of: s, m, l".
	Rule string
	// Value is the value given, as JSON (at most 80 bytes, cut with "…"). It is "" when the
	// field was left out, or when it is secret: its schema is writeOnly or has format
	// "password", or its name says password, passphrase, secret, token, API key,
	// credential, PIN, OTP or CVV.
	Value string
}

// String is "field: rule (got value)", without the value when it is not shown.
func (p Problem) String() string {
	s := p.Rule
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.Value != "" {
		s += " (got " + p.Value + ")"
	}
	return s
}

// AnswerError is an answer that breaks its form's schema, with every problem found; it
// matches [ErrBadAnswer]. [ElicitationHandler] returns it (the server gets JSON-RPC invalid
// params, -32602) once the human has answered Rounds times without satisfying the schema.
type AnswerError struct {
	Problems []Problem
	// Rounds is how many answers the human gave; 0 from [Form.Check].
	Rounds int
}

func (e *AnswerError) Error() string {
	var b strings.Builder
	b.WriteString(ErrBadAnswer.Error())
	switch {
	case e.Rounds == 1:
		b.WriteString(" after 1 answer")
	case e.Rounds > 1:
		fmt.Fprintf(&b, " after %d answers", e.Rounds)
	}
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Is reports whether target is ErrBadAnswer.
func (e *AnswerError) Is(target error) bool { return target == ErrBadAnswer }

// Check validates an accepted answer's content against the form's schema (a form without a
// schema takes anything): nil when it satisfies it, an [*AnswerError] listing every problem
// — each field with the rule it breaks, the string formats email, uri, date and date-time
// included — when it does not, or another error when the schema cannot be read. A
// [FormAsker] may call it to re-prompt by itself before it answers. Its work is linear in the
// size of the schema and the content: a schema whose objects and arrays nest over 32 deep,
// with a pattern over 1,000 bytes or 1,000 compiled instructions, or with patterns over
// 20,000 instructions together is refused before its validator sees it, and an answer whose
// text could cost over 8,388,608 steps of matching against the patterns (as many as a HITL
// form's check allows) is not matched: it is a problem to put back, too long to check.
func (f *Form) Check(content map[string]any) error {
	if f == nil || len(f.Schema) == 0 || string(f.Schema) == "null" {
		return nil
	}
	if err := schemaKeys(f.Schema); err != nil {
		// Elicitation schemas are flat; a reference could make validation recurse forever,
		// deep nesting make it quadratic.
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(f.Schema, &s); err != nil {
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	insts := 0
	if err := sizePatterns(reflect.ValueOf(&s), &insts); err != nil {
		// The validator compiles every pattern it is given: a short one can compile to
		// tens of thousands of instructions (milliseconds each).
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("hitlmcp: requested schema: %w", err)
	}
	if content == nil {
		content = map[string]any{}
	}
	var problems []Problem
	// The validator matches each string of the answer, keys included, against the patterns
	// that apply to it: (len+1) × their instructions at most. An answer that could cost
	// more than a HITL form's check (pattern.MaxSteps) is not matched at all.
	match := insts == 0 || textCost(reflect.ValueOf(content), insts) <= pattern.MaxSteps
	if !match {
		problems = append(problems, Problem{Rule: fmt.Sprintf("the answer's text is too long to check against the form's patterns (%d instructions); shorten it", insts)})
	}
	for _, name := range s.Required {
		if _, ok := content[name]; !ok {
			problems = append(problems, Problem{Field: name, Rule: "is required"})
		}
	}
	names := make([]string, 0, len(content))
	for name := range content {
		names = append(names, name)
	}
	slices.Sort(names)
	shut := -1 // whether additionalProperties admits nothing, once known
	for _, name := range names {
		p := s.Properties[name]
		if p == nil {
			if shut < 0 {
				shut = 0
				if closed(s.AdditionalProperties) {
					shut = 1
				}
			}
			if shut == 1 {
				problems = append(problems, Problem{Field: name, Rule: "is not a field of the form", Value: shown(name, nil, content[name])})
			}
			continue
		}
		for _, rule := range broken(p, content[name], match) {
			problems = append(problems, Problem{Field: name, Rule: rule, Value: shown(name, p, content[name])})
		}
	}
	if len(problems) == 0 {
		if err := resolved.Validate(content); err != nil {
			// A rule of the schema the checks above do not name (a pattern, a nested
			// keyword): the validator's words, unless they might quote a secret.
			rule := "does not satisfy the schema"
			if !anySecret(&s) {
				rule += ": " + err.Error()
			}
			problems = append(problems, Problem{Rule: rule})
		}
	}
	if len(problems) > 0 {
		return &AnswerError{Problems: problems}
	}
	return nil
}

// references are the keywords by which a schema refers to another schema, folded
// ([jsonname.Fold]).
var references = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{"$ref", "$dynamicRef", "$recursiveRef", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$id", "$defs", "definitions"} {
		m[jsonname.Fold(k)] = true
	}
	return m
}()

// maxSchemaDepth bounds how deep a requested schema's objects and arrays nest. An elicitation
// schema is flat (an object of primitive properties: a property's enum, items and titled
// choices nest five deep); the validator's work grows with the square of the depth — its
// error for an anyOf quotes every error below it — so 1,300 nested anyOf (16 KiB) took 17 s
// of CPU.
const maxSchemaDepth = 32

// schemaKeys reads every key of the schema's JSON, in one pass: an error for a keyword that
// refers to another schema ($ref and its kin), for an object that names a key twice, and for
// objects and arrays nested over maxSchemaDepth. Keys
// are compared as encoding/json matches them to the validator's fields ([jsonname.Fold]:
// "$reF", "$defſ"; and a key named twice fills one field from both copies), so no spelling
// or repetition hides a reference from this check and hands it to the validator, which would
// follow "$ref": "#" into itself until the stack runs out.
func schemaKeys(schema []byte) error {
	d := json.NewDecoder(bytes.NewReader(schema))
	var (
		objects []map[string]bool // the folded keys seen in each open object, innermost last
		inArray []bool            // for each open container, whether it is an array
		wantKey bool              // the next token of the innermost object is a key
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if (t == '{' || t == '[') && len(inArray) >= maxSchemaDepth {
				return fmt.Errorf("objects and arrays nested over %d deep; an elicitation schema is an object of primitive properties", maxSchemaDepth)
			}
			switch t {
			case '{':
				objects = append(objects, map[string]bool{})
				inArray = append(inArray, false)
				wantKey = true
				continue
			case '[':
				inArray = append(inArray, true)
				wantKey = false
				continue
			case '}':
				objects = objects[:len(objects)-1]
				fallthrough
			case ']':
				inArray = inArray[:len(inArray)-1]
			}
		case string:
			if wantKey {
				keys, f := objects[len(objects)-1], jsonname.Fold(t)
				if references[f] {
					return fmt.Errorf("%s is not allowed in an elicitation schema", t)
				}
				if keys[f] {
					return fmt.Errorf("an object names %q twice", t)
				}
				keys[f] = true
				wantKey = false
				continue
			}
		}
		// A value ended: the innermost object wants its next key.
		wantKey = len(inArray) > 0 && !inArray[len(inArray)-1]
	}
}

// maxSchemaInsts bounds the instructions of all the patterns of a requested schema
// together, each occurrence counted (the validator compiles each), as a HITL form's patterns
// are bounded (hitl.ParseForm).
const maxSchemaInsts = 20000

var (
	schemaPtr   = reflect.TypeFor[*jsonschema.Schema]()
	schemaSlice = reflect.TypeFor[[]*jsonschema.Schema]()
	schemaMap   = reflect.TypeFor[map[string]*jsonschema.Schema]()
)

// sizePatterns sizes, without compiling, every pattern the validator would compile in the
// schema v (a *jsonschema.Schema) and every schema within it — each pattern and each name of
// patternProperties — adding their instructions to *total: an error for a pattern that is
// not RE2 syntax, over 1,000 bytes or 1,000 instructions ([pattern.Size]), or for a total
// over maxSchemaInsts. Every exported field holding schemas is followed, so a keyword the
// validator reads is not missed whatever its name. Its work is linear in the schema.
func sizePatterns(v reflect.Value, total *int) error {
	add := func(p string) error {
		n, err := pattern.Size(p)
		if err != nil {
			return fmt.Errorf("pattern %.40q: %w: a pattern may be %d bytes and compile to %d instructions at most (RE2 syntax)", p, err, pattern.MaxLen, pattern.MaxInsts)
		}
		if *total += n; *total > maxSchemaInsts {
			return fmt.Errorf("the patterns compile to more than %d instructions together; use fewer or smaller patterns", maxSchemaInsts)
		}
		return nil
	}
	switch v.Type() {
	case schemaPtr:
		if v.IsNil() {
			return nil
		}
		s := v.Interface().(*jsonschema.Schema)
		if s.Pattern != "" {
			if err := add(s.Pattern); err != nil {
				return err
			}
		}
		for _, p := range slices.Sorted(maps.Keys(s.PatternProperties)) {
			if err := add(p); err != nil {
				return err
			}
		}
		e := v.Elem()
		for i := range e.NumField() {
			if f := e.Field(i); e.Type().Field(i).IsExported() && (f.Type() == schemaPtr || f.Type() == schemaSlice || f.Type() == schemaMap) {
				if err := sizePatterns(f, total); err != nil {
					return err
				}
			}
		}
	case schemaSlice:
		for i := range v.Len() {
			if err := sizePatterns(v.Index(i), total); err != nil {
				return err
			}
		}
	case schemaMap:
		for it := v.MapRange(); it.Next(); {
			if err := sizePatterns(it.Value(), total); err != nil {
				return err
			}
		}
	}
	return nil
}

// textCost is what matching every string in v (map keys included) against patterns of
// insts instructions in all may cost, in steps as pattern.MaxSteps counts them; it stops
// counting past pattern.MaxSteps.
func textCost(v reflect.Value, insts int) int {
	cost := 0
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if cost > pattern.MaxSteps || !v.IsValid() {
			return
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.String:
			cost += min(v.Len()+1, pattern.MaxSteps+1) * insts
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Key())
				walk(it.Value())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		}
	}
	walk(v)
	return cost
}

// closed reports whether an additionalProperties schema admits nothing (false).
func closed(s *jsonschema.Schema) bool {
	return s != nil && !validates(s, "")
}

// broken is every rule of the property schema p that v breaks, in words; its pattern only
// when match.
func broken(p *jsonschema.Schema, v any, match bool) []string {
	types := p.Types
	if p.Type != "" {
		types = []string{p.Type}
	}
	if len(types) > 0 && !slices.ContainsFunc(types, func(t string) bool { return isType(t, v) }) {
		return []string{"must be " + article(strings.Join(types, " or "))}
	}
	var out []string
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if p.MinLength != nil && n < *p.MinLength {
			out = append(out, fmt.Sprintf("must be at least %d characters long", *p.MinLength))
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			out = append(out, fmt.Sprintf("must be at most %d characters long", *p.MaxLength))
		}
		if !formatOK(p.Format, x) {
			out = append(out, "must be "+formatWords[p.Format])
		}
		if match && p.Pattern != "" && !validates(&jsonschema.Schema{Pattern: p.Pattern}, x) {
			out = append(out, "must match the pattern "+p.Pattern)
		}
	case float64, json.Number, int, int64:
		f, _ := number(x)
		if p.Minimum != nil && f < *p.Minimum {
			out = append(out, fmt.Sprintf("must be at least %v", *p.Minimum))
		}
		if p.Maximum != nil && f > *p.Maximum {
			out = append(out, fmt.Sprintf("must be at most %v", *p.Maximum))
		}
		if p.ExclusiveMinimum != nil && f <= *p.ExclusiveMinimum {
			out = append(out, fmt.Sprintf("must be more than %v", *p.ExclusiveMinimum))
		}
		if p.ExclusiveMaximum != nil && f >= *p.ExclusiveMaximum {
			out = append(out, fmt.Sprintf("must be less than %v", *p.ExclusiveMaximum))
		}
	case []any:
		if p.MinItems != nil && len(x) < *p.MinItems {
			out = append(out, fmt.Sprintf("must have at least %d items", *p.MinItems))
		}
		if p.MaxItems != nil && len(x) > *p.MaxItems {
			out = append(out, fmt.Sprintf("must have at most %d items", *p.MaxItems))
		}
		if p.Items != nil {
			if opts := choices(p.Items); len(opts) > 0 {
				in := set(opts)
				for _, item := range x {
					if !in[key(item)] {
						out = append(out, "every item must be one of: "+list(opts))
						break
					}
				}
			}
		}
	}
	if opts := choices(p); len(opts) > 0 && !set(opts)[key(v)] {
		out = append(out, "must be one of: "+list(opts))
	}
	if len(out) == 0 && match && !validates(p, v) {
		out = append(out, "does not satisfy its schema")
	}
	return out
}

// formatWords names the formats formatOK checks.
var formatWords = map[string]string{
	"email":     "an email address (RFC 5321)",
	"uri":       "a URI with a scheme (RFC 3986)",
	"date":      "a date like 2026-07-28 (RFC 3339)",
	"date-time": "a date and time like 2026-07-28T09:30:00Z (RFC 3339)",
}

// choices is the values an enum, or a oneOf/anyOf of consts (titled enum), admits.
func choices(p *jsonschema.Schema) []any {
	if len(p.Enum) > 0 {
		return p.Enum
	}
	var out []any
	for _, alts := range [][]*jsonschema.Schema{p.OneOf, p.AnyOf} {
		for _, a := range alts {
			if a == nil || a.Const == nil {
				return nil
			}
			out = append(out, *a.Const)
		}
	}
	return out
}

// validates reports whether v satisfies the schema s on its own.
func validates(s *jsonschema.Schema, v any) bool {
	r, err := s.Resolve(nil)
	return err == nil && r.Validate(v) == nil
}

func isType(t string, v any) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == float64(int64(f))
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func article(t string) string {
	switch t {
	case "array", "integer", "object":
		return "an " + t
	}
	return "a " + t
}

// key is v as JSON, to compare values; "" for none.
func key(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// set is the choices by key, so that checking values against them is linear.
func set(opts []any) map[string]bool {
	m := make(map[string]bool, len(opts))
	for _, o := range opts {
		if k := key(o); k != "" {
			m[k] = true
		}
	}
	return m
}

// list is the choices as a person reads them: strings bare, anything else as JSON.
func list(opts []any) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		if s, ok := o.(string); ok {
			parts[i] = s
		} else {
			b, _ := json.Marshal(o)
			parts[i] = string(b)
		}
	}
	return strings.Join(parts, ", ")
}

// maxShown bounds the value a Problem shows.
const maxShown = 80

// shown is v as JSON for a Problem, or "" when the field is secret.
func shown(name string, p *jsonschema.Schema, v any) string {
	if secret(name, p) {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	if len(b) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

// secretWords are parts of a field name that say its value is secret; secretNames are whole
// names that do.
var (
	secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey", "credential", "privatekey"}
	secretNames = []string{"pin", "otp", "cvv", "cvc", "ssn", "key"}
)

// secret reports whether the field's value must not be shown back.
func secret(name string, p *jsonschema.Schema) bool {
	if p != nil && (p.WriteOnly || p.Format == "password") {
		return true
	}
	n := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == ' ' || r == '.' {
			return -1
		}
		return r
	}, strings.ToLower(name))
	return slices.Contains(secretNames, n) || slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(n, w) })
}

// anySecret reports whether the form has a secret field.
func anySecret(s *jsonschema.Schema) bool {
	for name, p := range s.Properties {
		if secret(name, p) {
			return true
		}
	}
	return false
}
