package toolgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
	"github.com/hitlkit/hitlkit/internal/jsonname"

	"github.com/hitlkit/hitlkit/transport"
)

// TestOutcome: only an approval, or a person's edit carrying an arguments object, runs the
// tool; everything else says why not.
func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		r      *transport.Result
		run    bool
		edited string
		why    string
	}{
		{&transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, true, "", ""},
		{&transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"a":1}}`)}, true, `{"a":1}`, ""},
		{&transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":"x"}`)}, false, "", "not run: the person edited the call but gave no arguments"},
		{&transport.Result{Status: transport.StatusExpired, Action: "edit", DefaultApplied: true, Data: []byte(`{"edits":{"a":1}}`)}, false, "", "not run: the request expired without a decision"},
		{&transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, false, "", "not run: the request expired without a decision"},
		{&transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject, Data: []byte(`{"feedback":"no"}`)}, false, "", "not run: the person rejected it: no"},
		{&transport.Result{Status: transport.StatusCancelled, Reason: "gone"}, false, "", "not run: the request was cancelled: gone"},
		{&transport.Result{Status: transport.StatusFailed}, false, "", "not run: the request failed"},
		{&transport.Result{Status: transport.StatusCompleted, Action: "submit", Decision: transport.DecisionAnswer}, false, "", "not run: the answer (submit) is not an approval"},
		{nil, false, "", "not run: no decision was given"},
	} {
		run, edited, why := Outcome(tt.r)
		if run != tt.run || string(edited) != tt.edited || why != tt.why {
			t.Errorf("Outcome(%v) = %v, %s, %q; want %v, %s, %q", tt.r, run, edited, why, tt.run, tt.edited, tt.why)
		}
	}
	if a, ok, why := Answer(&transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "submit"}); !ok || string(a) != "{}" || why != "" {
		t.Errorf("Answer without data = %s, %v, %q", a, ok, why)
	}
	if _, ok, why := Answer(&transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "submit", Data: []byte(`{"x":1}`)}); ok || why != "no answer: the request expired without a decision" {
		t.Errorf("Answer of an expiry = %v, %q", ok, why)
	}
}

// TestEdit: a person's edit is put over the model's arguments, field by field; a field named
// in another case replaces the model's; arguments or edits that are not an object are refused.
func TestEdit(t *testing.T) {
	for _, tt := range []struct{ args, edits, want, err string }{
		{`{"path":"/a","force":true}`, `{"path":"/b"}`, `{"force":true,"path":"/b"}`, ""},
		{`{"path":"/a"}`, `{"reason":"x"}`, `{"path":"/a","reason":"x"}`, ""},
		{`{"Path":"/a"}`, `{"path":"/b"}`, `{"Path":"/b"}`, ""},
		{`{"path":"/a","PATH":"/c"}`, `{"Path":"/b"}`, `{"PATH":"/b"}`, ""},
		{`{"paſ":"/a"}`, `{"PAS":"/b"}`, `{"paſ":"/b"}`, ""},
		{``, `{"path":"/b"}`, `{"path":"/b"}`, ""},
		{` null `, `{}`, `{}`, ""},
		{`{"path":"/a"}`, `{}`, `{"path":"/a"}`, ""},
		{`[1]`, `{"path":"/b"}`, "", "the model's arguments are not a JSON object"},
		{`"x"`, `{"path":"/b"}`, "", "the model's arguments are not a JSON object"},
		{`{"path":"/a"}`, `[1]`, "", "the edits are not a JSON object"},
		{`{"path":"/a"}`, `null`, "", "the edits are not a JSON object"},
		{`{"path":"/a"}`, `{"path":"/b","Path":"/c"}`, "", `the edits name one field twice ("Path" and "path")`},
	} {
		got, err := Edit(json.RawMessage(tt.args), json.RawMessage(tt.edits))
		if string(got) != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("Edit(%s, %s) = %s, %v; want %s, %q", tt.args, tt.edits, got, err, tt.want, tt.err)
		}
	}
	if got := Unfit(errors.New("data did not match:\n- path: Invalid type.\n")); got != "not run: the person's edit does not fit the tool's arguments: data did not match: - path: Invalid type." {
		t.Errorf("Unfit = %q", got)
	}
}

// FuzzEdit: whatever a model and a person send, Edit never panics, and what it returns is a
// JSON object holding every field the person edited with the person's value.
func FuzzEdit(f *testing.F) {
	f.Add([]byte(`{"path":"/a","force":true}`), []byte(`{"Path":"/b"}`))
	f.Add([]byte(``), []byte(`{"a":{"b":[1,2]}}`))
	f.Add([]byte(`{"ſ":1,"S":2}`), []byte(`{"s":3}`))
	for _, shape := range worst { // the worst shapes at about 1 KiB, as model and person
		f.Add(shape(1<<10), shape(1<<10))
	}
	f.Fuzz(func(t *testing.T, args, edits []byte) {
		got, err := Edit(args, edits)
		if err != nil {
			return
		}
		var out, person map[string]json.RawMessage
		if json.Unmarshal(got, &out) != nil || out == nil || json.Unmarshal(edits, &person) != nil {
			t.Fatalf("Edit(%q, %q) = %q", args, edits, got)
		}
		for k, v := range person {
			found := false
			for ok, ov := range out {
				if jsonname.Fold(ok) == jsonname.Fold(k) {
					if found || !same(ov, v) {
						t.Fatalf("Edit(%q, %q) = %q: field %q", args, edits, got, k)
					}
					found = true
				}
			}
			if !found {
				t.Fatalf("Edit(%q, %q) = %q: field %q lost", args, edits, got, k)
			}
		}
	})
}

// same reports whether a and b are the same JSON value, numbers compared as written (a long
// number does not fit a float64).
func same(a, b []byte) bool {
	decode := func(in []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(in))
		d.UseNumber()
		var v any
		return v, d.Decode(&v)
	}
	x, errX := decode(a)
	y, errY := decode(b)
	return errX == nil && errY == nil && reflect.DeepEqual(x, y)
}

// TestUnknown: an edited field the tool's schema does not list is named; one listed in another
// case, or a schema listing nothing, is not.
func TestUnknown(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"Path":{"type":"string"},"force":{"type":"boolean"}}}`)
	for _, tt := range []struct{ schema, edits, err string }{
		{string(schema), `{"Path":"/b","force":true}`, ""},
		{string(schema), `{"path":"/b"}`, ""},
		{string(schema), `{"reason":"x","Path":"/b","other":1}`, `the tool has no argument "other"`},
		{string(schema), `[1]`, "the edits are not a JSON object"},
		{`{"type":"object"}`, `{"reason":"x"}`, ""},
		{`not json`, `{"reason":"x"}`, ""},
	} {
		err := Unknown(json.RawMessage(tt.schema), json.RawMessage(tt.edits))
		if (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("Unknown(%s, %s) = %v, want %q", tt.schema, tt.edits, err, tt.err)
		}
	}
}

// FuzzUnknown: whatever schema and edits it is given, Unknown never panics, and it passes
// only edits whose every field the schema lists (when it lists any).
func FuzzUnknown(f *testing.F) {
	f.Add([]byte(`{"properties":{"Path":{}}}`), []byte(`{"path":1}`))
	f.Add([]byte(`{"properties":{"ſ":{}}}`), []byte(`{"S":1,"x":2}`))
	for _, shape := range worst {
		f.Add(shape(1<<10), shape(1<<10))
	}
	f.Fuzz(func(t *testing.T, schema, edits []byte) {
		if Unknown(schema, edits) != nil {
			return
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		var person map[string]json.RawMessage
		if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 || json.Unmarshal(edits, &person) != nil {
			return
		}
		for k := range person {
			listed := false
			for p := range s.Properties {
				listed = listed || jsonname.Fold(p) == jsonname.Fold(k)
			}
			if !listed {
				t.Fatalf("Unknown(%q, %q) passed %q", schema, edits, k)
			}
		}
	})
}

// worst are the shapes of arguments and edits that cost Edit and Unknown the most per byte:
// many fields, many fields one name apart in case only, one name repeated, deep nesting and
// a long number in one field.
var worst = map[string]bytecost.Shape{
	"many-fields": func(n int) []byte {
		return bytecost.List("{", func(i int) string { return `"f` + strconv.Itoa(i) + `":1` }, ",", "}", n)
	},
	"case-variants": func(n int) []byte {
		return bytecost.List("{", func(i int) string { return `"` + caseVariant(i) + `":1` }, ",", "}", n)
	},
	"same-key": func(n int) []byte { return bytecost.List("{", func(int) string { return `"path":1` }, ",", "}", n) },
	"nesting":  func(n int) []byte { return []byte(`{"a":` + string(bytecost.Nest("[", "1", "]", n)) + `}`) },
	"digits":   func(n int) []byte { return bytecost.Repeat(`{"a":`, "9", `}`, n) },
}

// caseVariant spells "pathpathpath…" with the bits of i as its upper-case letters: names one
// field apart in case only, as many as i counts.
func caseVariant(i int) string {
	var b strings.Builder
	for bit := 0; bit < 24; bit++ {
		c := "path"[bit%4]
		if i>>bit&1 == 1 {
			c -= 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// BenchmarkEdit: Edit and Unknown on the worst shapes at 1 KiB, 64 KiB and 1 MiB, as both the
// model's arguments and the person's edits; the cost per byte stays within 2× across sizes.
//
//	go test -run '^$' -bench Edit -benchmem -count 2 ./internal/toolgate
//
// Measured 2026-11-26 on commit 3f422f8, load average
// under 1, CPU time per byte at 1 KiB, 64 KiB and 1 MiB: many fields 457–465, 341–361 and
// 580–607 ns (the encoder sorts the merged object's names: n log n, 1.8× from the cheapest
// size to the dearest); names one case apart 152–156, 122–126, 169–178; one name repeated
// 187–203 throughout; a long number 31–35, 23–24, 22–25; nesting falls with size (the decoder
// refuses past its depth limit).
func BenchmarkEdit(b *testing.B) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	bytecost.Run(b, worst, func(in []byte) {
		_, _ = Edit(in, in)
		_ = Unknown(schema, in)
	})
}

// TestAskAll: every question is asked, the Results come back in order; a question check
// refuses is not asked, and any error returns no Results, every error joined, once every ask
// has returned.
func TestAskAll(t *testing.T) {
	ask := func(_ context.Context, q int) (*transport.Result, error) {
		if q < 0 {
			return nil, errors.New("down")
		}
		return &transport.Result{CaseID: strconv.Itoa(q)}, nil
	}
	check := func(_ int, q int) error {
		if q == 0 {
			return errors.New("no zero")
		}
		return nil
	}
	wrap := func(q int, err error) error { return fmt.Errorf("question %d: %w", q, err) }
	got, err := AskAll(t.Context(), []int{3, 1, 2}, ask, check, wrap)
	if err != nil || len(got) != 3 || got[0].CaseID != "3" || got[1].CaseID != "1" || got[2].CaseID != "2" {
		t.Fatalf("AskAll = %v, %v", got, err)
	}
	got, err = AskAll(t.Context(), []int{0, -1, 5}, ask, check, wrap)
	if got != nil || err == nil || !strings.Contains(err.Error(), "no zero") || !strings.Contains(err.Error(), "question -1: down") {
		t.Fatalf("AskAll with failures = %v, %v", got, err)
	}
}
