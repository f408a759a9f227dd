package hitl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
	"github.com/hitlkit/hitlkit/internal/sse"
)

// valueShapes are the worst JSON values a service can put where a parser reads or skips a
// member, each about n bytes once wrapped by wrap (a document with the value in place of
// %s): a long digit run, deep nesting, many keys, and a string of escapes.
func valueShapes(wrap string) map[string]bytecost.Shape {
	in := func(n int, value func(m int) []byte) []byte {
		return []byte(fmt.Sprintf(wrap, value(n-len(wrap)+2)))
	}
	return map[string]bytecost.Shape{
		"digits":  func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Repeat("", "9", "", m) }) },
		"nesting": func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Nest("[", "1", "]", m) }) },
		"keys": func(n int) []byte {
			return in(n, func(m int) []byte {
				return bytecost.List("{", func(i int) string { return fmt.Sprintf(`"k%d":1`, i) }, ",", "}", m)
			})
		},
		"same-key": func(n int) []byte {
			return in(n, func(m int) []byte { return bytecost.List("{", func(int) string { return `"k":1` }, ",", "}", m) })
		},
		"escapes": func(n int) []byte { return in(n, func(m int) []byte { return bytecost.Repeat(`"`, `\u00e9`, `"`, m) }) },
	}
}

const benchHITL = `"spec_version":"0.8","case_id":"review_c1","review_url":"https://svc.example/review/c1?token=t","poll_url":"https://api.svc.example/v1/reviews/c1/status","type":"selection","prompt":"Pick","timeout":"24h","created_at":"2026-02-22T10:00:00Z","expires_at":"2026-02-23T10:00:00Z"`

// BenchmarkDetect: a 202 whose hitl object carries each shape in its context, and with a
// timeout, a prompt and a reminder_at list as long as the body allows.
func BenchmarkDetect(b *testing.B) {
	shapes := valueShapes(`{"status":"human_input_required","hitl":{` + benchHITL + `,"context":%s}}`)
	shapes["timeout"] = func(n int) []byte {
		return bytecost.Repeat(`{"hitl":{`+strings.Replace(benchHITL, `"timeout":"24h"`, `"timeout":"P`, 1)[:0]+benchHITL+`,"timeout":"P`, "0", `D"}}`, n)
	}
	shapes["prompt"] = func(n int) []byte {
		return bytecost.Repeat(`{"hitl":{`+benchHITL+`,"prompt":"`, `\u00e9`, `"}}`, n)
	}
	shapes["reminders"] = func(n int) []byte {
		return bytecost.List(`{"hitl":{`+benchHITL+`,"reminder_at":[`, func(int) string { return `"2026-02-22T11:00:00.123456789+01:00"` }, ",", `]}}`, n)
	}
	req, _ := http.NewRequest(http.MethodPost, "https://api.svc.example/v1/x", nil)
	opts := &DetectOptions{MaxBody: 2 << 20}
	bytecost.Run(b, shapes, func(in []byte) {
		resp := &http.Response{StatusCode: http.StatusAccepted, Request: req, Body: io.NopCloser(bytes.NewReader(in))}
		_, _ = Detect(resp, opts)
	})
}

// BenchmarkPollBody: a completed poll answer whose result data is each shape.
func BenchmarkPollBody(b *testing.B) {
	c := &Case{CaseID: "review_c1", DefaultAction: DefaultSkip}
	bytecost.Run(b, valueShapes(`{"case_id":"review_c1","status":"completed","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":%s}}`), func(in []byte) {
		_, _, _ = decodePoll(c, in)
	})
}

// BenchmarkStatusEvent: a review.completed event whose result data is each shape.
func BenchmarkStatusEvent(b *testing.B) {
	c := &Case{CaseID: "review_c1", DefaultAction: DefaultSkip}
	bytecost.Run(b, valueShapes(`{"case_id":"review_c1","status":"completed","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":%s}}`), func(in []byte) {
		_, _, _ = decodeEvent(c, sse.Event{Name: eventStatus, Data: in})
	})
}

// BenchmarkCallbackBody: a verified callback body with each shape in a member.
func BenchmarkCallbackBody(b *testing.B) {
	bytecost.Run(b, valueShapes(`{"event":"review.completed","case_id":"review_c1","result":%s}`), func(in []byte) {
		_, _, _ = parseCallback(in)
	})
}

// BenchmarkDiscovery: a discovery document with each shape in its capabilities, and a
// review_types list as long as the document allows.
func BenchmarkDiscovery(b *testing.B) {
	shapes := valueShapes(`{"hitl_protocol":{"spec_version":"0.8","capabilities":{"default_timeout":"P7D","x":%s}}}`)
	shapes["types"] = func(n int) []byte {
		return bytecost.List(`{"hitl_protocol":{"capabilities":{"review_types":[`, func(int) string { return `"approval"` }, ",", `]}}}`, n)
	}
	bytecost.Run(b, shapes, func(in []byte) { _, _ = parseDiscovery(in) })
}

// BenchmarkStoreRecord: a stored interrupt whose case context is each shape.
func BenchmarkStoreRecord(b *testing.B) {
	key := StoreKey{Origin: "https://api.svc.example", ID: "review_c1"}
	bytecost.Run(b, valueShapes(`{"kind":"hitl","origin":"https://api.svc.example","case":{`+benchHITL+`,"context":%s}}`), func(in []byte) {
		_, _ = decodeRecord(key, in)
	})
}

// BenchmarkParseForm: forms at the limits (fields, options, "in" values, patterns) and over
// them, and each shape as a field's default.
func BenchmarkParseForm(b *testing.B) {
	shapes := valueShapes(`{"fields":[{"key":"a","label":"A","type":"text","default":%s}]}`)
	shapes["fields"] = func(n int) []byte {
		return bytecost.List(`{"fields":[`, func(i int) string {
			return fmt.Sprintf(`{"key":"f%d","label":"F","type":"text","validation":{"pattern":"^[a-z]{%d}$"}}`, i, 100+i%200)
		}, ",", `]}`, n)
	}
	shapes["large-patterns"] = func(n int) []byte {
		return bytecost.List(`{"fields":[`, func(i int) string {
			return fmt.Sprintf(`{"key":"f%d","label":"F","type":"text","validation":{"pattern":"[a-z]{290}x%d"}}`, i, i)
		}, ",", `]}`, n)
	}
	shapes["options"] = func(n int) []byte {
		return bytecost.List(`{"fields":[{"key":"s","label":"S","type":"select","options":[`, func(i int) string { return fmt.Sprintf(`{"value":"v%d","label":"V"}`, i) }, ",", `]}]}`, n)
	}
	shapes["conditions"] = func(n int) []byte {
		return bytecost.List(`{"fields":[{"key":"a","label":"A","type":"text"},{"key":"b","label":"B","type":"text","conditional":{"field":"a","operator":"in","value":[`,
			func(i int) string { return fmt.Sprintf(`"v%d"`, i) }, ",", `]}}]}`, n)
	}
	bytecost.Run(b, shapes, func(in []byte) { _, _ = ParseForm(in) })
}

// BenchmarkCheckWorst: answers to a form of 500 fields, each with a pattern and a condition
// on the first: each shape as a value, and values as long as the pattern budget allows.
func BenchmarkCheckWorst(b *testing.B) {
	var fields []string
	for i := range maxFormFields {
		cond := ""
		if i > 0 {
			cond = `,"conditional":{"field":"f0","operator":"neq","value":[1,2,3]}`
		}
		fields = append(fields, fmt.Sprintf(`{"key":"f%d","label":"F","type":"text","validation":{"pattern":"^[a-z]{1,300}$","maxLength":100000}%s}`, i, cond))
	}
	f, err := ParseForm([]byte(`{"fields":[` + strings.Join(fields, ",") + `]}`))
	if err != nil {
		b.Fatal(err)
	}
	shapes := valueShapes(`{"f0":%s}`)
	shapes["long-values"] = func(n int) []byte {
		per := max(1, n/maxFormFields)
		return bytecost.List("{", func(i int) string { return fmt.Sprintf(`"f%d":"%s"`, i%maxFormFields, strings.Repeat("x", per)) }, ",", "}", n)
	}
	ctx := context.Background()
	bytecost.Run(b, shapes, func(in []byte) { _ = f.Check(ctx, in) })
}
