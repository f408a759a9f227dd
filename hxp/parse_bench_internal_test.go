package hxp

import (
	"encoding/json"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkStateAndMessage: poll answers and WebSocket messages a server could send, at
// 1 KiB, 64 KiB and 1 MiB: a PROVIDE receipt whose value is a long string checked against a
// pattern (matched within the pattern budget), a receipt result of deep nesting, a long
// digit run, and many members.
func BenchmarkStateAndMessage(b *testing.B) {
	decide := &Request{Decide: &Decide{Question: "Approve?", Options: []string{"Approve", "Deny"}, DefaultOption: "Deny"}}
	provide := &Request{Provide: &Provide{Prompt: "ID?", InputType: InputText, Validation: &Validation{Pattern: `^[a-z]{1,300}$`}}}
	receipt := `{"request_id":"req_1","status":"completed","receipt":{"request_id":"req_1","status":"completed","completed_at":"2026-01-01T00:00:00Z","evidence_hash":"ab","result":`
	shapes := map[string]bytecost.Shape{
		"pattern-value": func(n int) []byte { return bytecost.Repeat(receipt+`"`, "a", `"}}`, n) },
		"nesting":       func(n int) []byte { return []byte(receipt + string(bytecost.Nest("[", "1", "]", n)) + "}}") },
		"digits":        func(n int) []byte { return bytecost.Repeat(receipt, "9", "}}", n) },
		"members": func(n int) []byte {
			return bytecost.List(receipt+`{`, func(int) string { return `"k":1` }, ",", "}}}", n)
		},
	}
	for name, req := range map[string]*Request{"decide": decide, "provide": provide} {
		cr := &Created{RequestID: "req_1", Request: req}
		b.Run(name, func(b *testing.B) {
			bytecost.Run(b, shapes, func(in []byte) {
				var st State
				if json.Unmarshal(in, &st) == nil {
					_, _, _ = stateResult(cr, &st)
				}
				var m wsMessage
				if json.Unmarshal(in, &m) == nil && m.Receipt != nil {
					_, _, _ = receiptResult(cr, m.Receipt, req)
				}
			})
		})
	}
}
