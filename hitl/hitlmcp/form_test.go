package hitlmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

// signup asks for a name, an age, an email and a password.
var signup = map[string]any{"type": "object", "required": []any{"name", "email"}, "properties": map[string]any{
	"name":     map[string]any{"type": "string", "minLength": 2},
	"age":      map[string]any{"type": "integer", "minimum": 18},
	"email":    map[string]any{"type": "string", "format": "email"},
	"password": map[string]any{"type": "string", "minLength": 12},
}}

// formServer is a server whose "signup" tool asks for signup, at revision rev: with an input
// request on 2026-07-28, with elicitation/create on 2025-11-25; it answers with what came back.
func formServer(rev string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "accounts", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "signup"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ask := &mcp.ElicitParams{Message: "Your account?", RequestedSchema: signup}
		var res *mcp.ElicitResult
		if rev == "2025-11-25" {
			r, err := req.Session.Elicit(ctx, ask)
			if err != nil {
				return nil, nil, err
			}
			res = r
		} else {
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"account": ask}}, nil, nil
			}
			res = req.Params.InputResponses["account"].(*mcp.ElicitResult)
		}
		b, _ := json.Marshal(res.Content)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + string(b)}}}, nil, nil
	})
	return server
}

// TestFormPutBack: on 2026-07-28 input requests and 2025-11-25 elicitation/create alike, an
// answer that breaks the schema is put back to the human with every problem (field and rule;
// the value shown, the password's not); the second, good answer reaches the server. A human
// who never satisfies the schema is asked DefaultRounds times (or WithRounds'), and the
// server gets invalid params naming every problem, no secret among them.
func TestFormPutBack(t *testing.T) {
	bad := map[string]any{"name": "A", "age": 12.0, "email": "ada", "password": "hunter2"}
	good := map[string]any{"name": "Ada", "age": 36.0, "email": "ada@example.org", "password": "correct horse battery"}
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			var (
				mu    sync.Mutex
				forms []*hitlmcp.Form
			)
			human := func(answers ...map[string]any) hitlmcp.FormAsker {
				return func(_ context.Context, f *hitlmcp.Form) (hitlmcp.Answer, error) {
					mu.Lock()
					defer mu.Unlock()
					forms = append(forms, f)
					return hitlmcp.Answer{Action: "accept", Content: answers[min(len(forms), len(answers))-1]}, nil
				}
			}
			connect := func(ask hitlmcp.FormAsker, opts ...hitlmcp.HandlerOption) *mcp.ClientSession {
				mu.Lock()
				forms = nil
				mu.Unlock()
				return connectAt(t, formServer(rev), mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, hitlmcp.ClientOptions(nil, ask, opts...)), rev)
			}

			res, err := connect(human(bad, good)).CallTool(t.Context(), &mcp.CallToolParams{Name: "signup"})
			if err != nil || res.IsError || !strings.HasPrefix(text(res), "accept ") {
				t.Fatalf("CallTool = %+v (%q), %v; want the second answer", res, text(res), err)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(text(res), "accept ")), &got); err != nil || !reflect.DeepEqual(got, good) {
				t.Errorf("the server received %v, want %v", got, good)
			}
			if len(forms) != 2 || forms[0].Round != 1 || len(forms[0].Problems) != 0 || forms[1].Round != 2 || forms[1].Message != "Your account?" {
				t.Fatalf("asked %+v, want the form, then again with its problems", forms)
			}
			want := []hitlmcp.Problem{
				{Field: "age", Rule: "must be at least 18", Value: "12"},
				{Field: "email", Rule: "must be an email address (RFC 5321)", Value: `"ada"`},
				{Field: "name", Rule: "must be at least 2 characters long", Value: `"A"`},
				{Field: "password", Rule: "must be at least 12 characters long"},
			}
			if !reflect.DeepEqual(forms[1].Problems, want) {
				t.Errorf("problems %+v, want %+v", forms[1].Problems, want)
			}

			for _, tt := range []struct {
				opts   []hitlmcp.HandlerOption
				rounds int
			}{{nil, hitlmcp.DefaultRounds}, {[]hitlmcp.HandlerOption{hitlmcp.WithRounds(1)}, 1}} {
				res, err = connect(human(bad), tt.opts...).CallTool(t.Context(), &mcp.CallToolParams{Name: "signup"})
				msg := ""
				switch {
				case err != nil: // 2026-07-28: the client's own retry loop fails
					msg = err.Error()
				case err == nil && res.IsError: // 2025-11-25: the tool's elicitation failed
					msg = text(res)
				}
				if !strings.Contains(msg, hitlmcp.ErrBadAnswer.Error()) || !strings.Contains(msg, fmt.Sprintf("after %d answer", tt.rounds)) ||
					!strings.Contains(msg, "password: must be at least 12") || strings.Contains(msg, "hunter2") || len(forms) != tt.rounds {
					t.Errorf("always bad, %d rounds: %+v, %v; asked %d times; want invalid params after %d rounds, every problem, no password",
						tt.rounds, res, err, len(forms), tt.rounds)
				}
			}
		})
	}
}

// TestFormCheck: Form.Check names every problem of an answer, one per rule broken, the
// secret fields' values never; a good answer and a form without a schema pass; a schema
// that cannot be read is an error of its own.
func TestFormCheck(t *testing.T) {
	schema, _ := json.Marshal(map[string]any{"type": "object", "required": []any{"name"}, "additionalProperties": false,
		"properties": map[string]any{
			"name":      map[string]any{"type": "string", "maxLength": 3},
			"size":      map[string]any{"type": "string", "enum": []any{"s", "m"}},
			"tier":      map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "gold"}, map[string]any{"const": "free"}}},
			"toppings":  map[string]any{"type": "array", "maxItems": 1, "items": map[string]any{"type": "string", "enum": []any{"ham", "egg"}}},
			"born":      map[string]any{"type": "string", "format": "date"},
			"api_token": map[string]any{"type": "string", "pattern": "^tk_"},
			"note":      map[string]any{"type": "string", "writeOnly": true, "minLength": 5},
			"ok":        map[string]any{"type": "boolean"},
		}})
	f := &hitlmcp.Form{Schema: schema}
	err := f.Check(map[string]any{"size": "xl", "tier": "Gold", "toppings": []any{"tofu", "ham"}, "born": "10/12/1815",
		"api_token": "leaked-token", "note": "abc", "ok": "yes", "extra": 1.0})
	var ae *hitlmcp.AnswerError
	if !errors.As(err, &ae) || !errors.Is(err, hitlmcp.ErrBadAnswer) {
		t.Fatalf("Check = %v, want an AnswerError", err)
	}
	want := []hitlmcp.Problem{
		{Field: "name", Rule: "is required"},
		{Field: "api_token", Rule: "must match the pattern ^tk_"},
		{Field: "born", Rule: "must be a date like 2026-07-28 (RFC 3339)", Value: `"10/12/1815"`},
		{Field: "extra", Rule: "is not a field of the form", Value: "1"},
		{Field: "note", Rule: "must be at least 5 characters long"},
		{Field: "ok", Rule: "must be a boolean", Value: `"yes"`},
		{Field: "size", Rule: "must be one of: s, m", Value: `"xl"`},
		{Field: "tier", Rule: "must be one of: gold, free", Value: `"Gold"`},
		{Field: "toppings", Rule: "must have at most 1 items", Value: `["tofu","ham"]`},
		{Field: "toppings", Rule: "every item must be one of: ham, egg", Value: `["tofu","ham"]`},
	}
	if !reflect.DeepEqual(ae.Problems, want) {
		t.Errorf("problems\n%+v\nwant\n%+v", ae.Problems, want)
	}
	if strings.Contains(err.Error(), "leaked") || strings.Contains(err.Error(), `"abc"`) {
		t.Errorf("the error shows a secret: %v", err)
	}
	if err := f.Check(map[string]any{"name": "Ada", "toppings": []any{"egg"}, "api_token": "tk_1"}); err != nil {
		t.Errorf("a good answer: %v", err)
	}
	if err := (&hitlmcp.Form{}).Check(map[string]any{"anything": 1}); err != nil {
		t.Errorf("no schema: %v", err)
	}
	if err := (&hitlmcp.Form{Schema: json.RawMessage(`{"type":7}`)}).Check(nil); err == nil || errors.Is(err, hitlmcp.ErrBadAnswer) {
		t.Errorf("an unreadable schema: %v", err)
	}
	long := strings.Repeat("é", 200)
	err = (&hitlmcp.Form{Schema: schema}).Check(map[string]any{"name": long})
	if !errors.As(err, &ae) || len(ae.Problems) != 1 || len(ae.Problems[0].Value) > 90 || !strings.HasSuffix(ae.Problems[0].Value, "…") {
		t.Errorf("a long value: %v", err)
	}
}

// FuzzFormCheck: whatever schema a server sends and whatever content a human answers,
// Form.Check returns (nil, an AnswerError, or a schema error) without panicking, and an
// AnswerError's values are bounded.
func FuzzFormCheck(f *testing.F) {
	s, _ := json.Marshal(signup)
	f.Add(string(s), `{"name":"A","age":12,"email":"ada","password":"hunter2"}`)
	f.Add(`{"type":"object","properties":{"t":{"type":"array","items":{"enum":["a",1,null]}}},"additionalProperties":false}`, `{"t":["a",2],"x":1}`)
	f.Add(`{"type":"object","properties":{"s":{"type":"string","pattern":"^(a+)+$","format":"date-time"}}}`, `{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"}`)
	f.Add(`{"$ref":"#"}`, `{}`)
	f.Add(`{"type":"object","properties":{"x":{"oneOf":[{"const":1},{"const":"1"}]}}}`, `{"x":1.0}`)
	f.Fuzz(func(t *testing.T, schema, content string) {
		var c map[string]any
		if json.Unmarshal([]byte(content), &c) != nil {
			return
		}
		err := (&hitlmcp.Form{Schema: json.RawMessage(schema)}).Check(c)
		var ae *hitlmcp.AnswerError
		if errors.As(err, &ae) {
			for _, p := range ae.Problems {
				if len(p.Value) > 90 || p.Rule == "" {
					t.Fatalf("problem %+v", p)
				}
			}
		}
	})
}

// TestFormHostileSchema: a server's schema that refers to itself — under any spelling of the
// keyword that decodes as one — is refused as invalid params before the human is asked,
// instead of sending validation into endless recursion (a stack overflow ends the whole
// agent; FuzzFormCheck found "$reF").
func TestFormHostileSchema(t *testing.T) {
	for _, schema := range []map[string]any{
		{"$ref": "#"},
		{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#"}}},
		{"type": "object", "$defs": map[string]any{"x": map[string]any{"$ref": "#/$defs/x"}}, "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/x"}}},
		// encoding/json matches keys to the validator's fields without regard to case,
		// under Unicode folding: every spelling is a reference.
		{"$reF": "#"},
		{"type": "object", "properties": map[string]any{"a": map[string]any{"$REF": "#"}}},
		{"type": "object", "$defſ": map[string]any{"x": map[string]any{"$Ref": "#/$defs/x"}}},
	} {
		asked := false
		ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
			asked = true
			return hitlmcp.Answer{Action: "accept", Content: map[string]any{"a": 1.0}}, nil
		}
		got, err := call(t, &mcp.ElicitParams{Message: "Loop?", RequestedSchema: schema}, hitlmcp.ElicitationHandler(nil, ask))
		if err == nil || asked {
			t.Errorf("schema %v: %q, %v, asked %v; want a refusal before the human is asked", schema, got, err, asked)
		}
	}
}

// TestWithRoundsRefusesZero: WithRounds(0) is a configuration error: every elicitation fails
// with it before the human is asked, instead of being read as some bound.
func TestWithRoundsRefusesZero(t *testing.T) {
	asked := false
	ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
		asked = true
		return hitlmcp.Answer{Action: "accept", Content: map[string]any{"amount": 5.0}}, nil
	}
	_, err := call(t, &mcp.ElicitParams{Message: "How much?", RequestedSchema: budget}, hitlmcp.ElicitationHandler(nil, ask, hitlmcp.WithRounds(0)))
	if err == nil || !strings.Contains(err.Error(), "WithRounds(0)") || asked {
		t.Errorf("WithRounds(0): %v, asked %v; want a refusal naming the option, nobody asked", err, asked)
	}
}

// TestFormCheckRefusesHiddenReferences: a schema read from bytes whose reference hides in the
// first of two copies of a key — which encoding/json fills one field from, the last copy
// winning elsewhere — or behind a key named twice in two cases, is refused, not validated
// into a stack overflow; a key named once is fine.
func TestFormCheckRefusesHiddenReferences(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"not":{"$ref":"#"},"not":{}}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"not":{"$ref":"#"},"not":{}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"not":{"$ref":"#"},"NOT":{}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"$REF":"#"}]}`,
	} {
		f := &hitlmcp.Form{Schema: json.RawMessage(schema)}
		if err := f.Check(map[string]any{"a": "x"}); err == nil || errors.Is(err, hitlmcp.ErrBadAnswer) {
			t.Errorf("Check with schema %s = %v, want the schema refused", schema, err)
		}
	}
	f := &hitlmcp.Form{Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","not":{"const":"no"}}},"required":["a"]}`)}
	if err := f.Check(map[string]any{"a": "x"}); err != nil {
		t.Errorf("Check with a sound schema = %v", err)
	}
}

// TestFormCheckBoundsPatterns: a requested schema's patterns are sized before the validator
// compiles them — wherever they sit (a property, an array's items, allOf, a patternProperties
// name, a keyword spelled in another case) — and one over 1,000 instructions, or patterns
// over 20,000 together, are refused before the human is asked, where "(?i:a…z){1000}" (37
// bytes, 27,000 instructions) was compiled at every check: a few kilobytes of such patterns
// cost the agent seconds of CPU.
func TestFormCheckBoundsPatterns(t *testing.T) {
	huge := `(?i:abcdefghijklmnopqrstuvwxyz){1000}`
	at := func(format string) string { return fmt.Sprintf(format, strconv.Quote(huge)) }
	large := `"[a-z]{330}x"` // 998 instructions: the largest accepted
	var many []string
	for i := range 21 {
		many = append(many, fmt.Sprintf(`"p%d":{"type":"string","pattern":%s}`, i, large))
	}
	for _, schema := range []string{
		at(`{"type":"object","properties":{"a":{"type":"string","pattern":%s}}}`),
		at(`{"type":"object","properties":{"a":{"type":"string","PATTERN":%s}}}`),
		at(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","pattern":%s}}}}`),
		at(`{"type":"object","properties":{"a":{"type":"string","allOf":[{"pattern":%s}]}}}`),
		at(`{"type":"object","patternProperties":{%s:{"type":"string"}}}`),
		`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`,
		`{"type":"object","properties":{` + strings.Join(many, ",") + `}}`,
	} {
		asked := false
		ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
			asked = true
			return hitlmcp.Answer{Action: "accept", Content: map[string]any{"a": "x"}}, nil
		}
		var params mcp.ElicitParams
		if err := json.Unmarshal([]byte(`{"message":"Size?","requestedSchema":`+schema+`}`), &params); err != nil {
			t.Fatal(err)
		}
		if got, err := call(t, &params, hitlmcp.ElicitationHandler(nil, ask)); err == nil || asked {
			t.Errorf("schema %.80s…: %q, %v, asked %v; want a refusal before the human is asked", schema, got, err, asked)
		}
		err := (&hitlmcp.Form{Schema: json.RawMessage(schema)}).Check(map[string]any{"a": "x"})
		if err == nil || errors.Is(err, hitlmcp.ErrBadAnswer) || !strings.Contains(err.Error(), "pattern") {
			t.Errorf("Check with schema %.80s… = %v, want the schema refused for its patterns", schema, err)
		}
	}
	f := &hitlmcp.Form{Schema: json.RawMessage(`{"type":"object","properties":{` + strings.Join(many[:20], ",") + `}}`)}
	if err := f.Check(map[string]any{"p0": strings.Repeat("a", 330) + "x"}); err != nil {
		t.Errorf("20 of the largest patterns: %v", err)
	}
	if err := f.Check(map[string]any{"p0": "A"}); !errors.Is(err, hitlmcp.ErrBadAnswer) {
		t.Errorf("an answer breaking a pattern: %v", err)
	}
}

// TestFormCheckBoundsNesting: a requested schema nested over 32 deep is refused before the
// validator reads it (and before the human is asked), where the validator's error for
// nested anyOf quoted every error below it: 4 KiB of nesting took 1.5 s of CPU, 16 KiB 17 s.
// A flat schema at the depth elicitation uses (titled multi-select choices) is read.
func TestFormCheckBoundsNesting(t *testing.T) {
	for _, schema := range []string{
		strings.Repeat(`{"anyOf":[`, 20) + `{"type":"string"}` + strings.Repeat(`]}`, 20),
		`{"type":"object","properties":{"a":{"type":"string","default":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}}`,
	} {
		asked := false
		ask := func(context.Context, *hitlmcp.Form) (hitlmcp.Answer, error) {
			asked = true
			return hitlmcp.Answer{Action: "accept", Content: map[string]any{"a": "x"}}, nil
		}
		var params mcp.ElicitParams
		if err := json.Unmarshal([]byte(`{"message":"Deep?","requestedSchema":`+schema+`}`), &params); err != nil {
			t.Fatal(err)
		}
		if got, err := call(t, &params, hitlmcp.ElicitationHandler(nil, ask)); err == nil || asked {
			t.Errorf("schema %.60s…: %q, %v, asked %v; want a refusal before the human is asked", schema, got, err, asked)
		}
		err := (&hitlmcp.Form{Schema: json.RawMessage(schema)}).Check(map[string]any{"a": "x"})
		if err == nil || errors.Is(err, hitlmcp.ErrBadAnswer) || !strings.Contains(err.Error(), "nested") {
			t.Errorf("Check with schema %.60s… = %v, want the schema refused for its depth", schema, err)
		}
	}
	f := &hitlmcp.Form{Schema: json.RawMessage(`{"type":"object","properties":{"c":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"}]}}}}`)}
	if err := f.Check(map[string]any{"c": []any{"a"}}); err != nil {
		t.Errorf("a titled multi-select: %v", err)
	}
}

// TestFormCheckBoundsMatching: an answer whose text could cost more than 8,388,608 steps of
// matching against the schema's patterns (pattern.MaxSteps, as a HITL form's check) is put
// back as too long to check, without being matched, where a 64 KiB value against a
// 998-instruction pattern was matched (0.4 s); a value within the budget is still matched.
func TestFormCheckBoundsMatching(t *testing.T) {
	f := &hitlmcp.Form{Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"[a-z]{330}x"},"n":{"type":"number"}}}`)}
	var ae *hitlmcp.AnswerError
	err := f.Check(map[string]any{"a": strings.Repeat("a", 64<<10), "n": "x"})
	if !errors.As(err, &ae) || len(ae.Problems) != 2 || !strings.Contains(ae.Problems[0].Rule, "too long to check") || ae.Problems[1].Field != "n" {
		t.Fatalf("Check of a 64 KiB value = %v; want it too long to check, unmatched, and n's type named", err)
	}
	if err := f.Check(map[string]any{"a": strings.Repeat("a", 330) + "x"}); err != nil {
		t.Errorf("a matching value: %v", err)
	}
	if err := f.Check(map[string]any{"a": strings.Repeat("a", 1000)}); !errors.As(err, &ae) || !strings.Contains(ae.Error(), "must match the pattern") {
		t.Errorf("a value within the budget that does not match: %v", err)
	}
}
