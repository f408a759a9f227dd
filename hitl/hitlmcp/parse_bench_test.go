package hitlmcp_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkFormCheck: Form.Check on the requested schemas a server could send, at 1 KiB,
// 64 KiB and 1 MiB: many fields each with a pattern, the largest patterns accepted (refused
// past 20,000 instructions together), many plain fields, one long enum, unknown keywords,
// a long digit run and deep nesting; the answer names one field. The cost per byte stays
// within 2× across sizes (the numbers are in the package documentation, "Bounded work").
func BenchmarkFormCheck(b *testing.B) {
	field := func(rule string) func(i int) string {
		return func(i int) string { return fmt.Sprintf(`"f%d":{"type":"string",%s}`, i, rule) }
	}
	obj := `{"type":"object","properties":{`
	bytecost.Run(b, map[string]bytecost.Shape{
		"patterns": func(n int) []byte {
			return bytecost.List(obj, field(`"pattern":"^[a-z]{1,8}$","maxLength":64`), ",", `}}`, n)
		},
		"large-patterns": func(n int) []byte {
			return bytecost.List(obj, field(`"pattern":"[a-z]{330}x"`), ",", `}}`, n)
		},
		"fields": func(n int) []byte { return bytecost.List(obj, field(`"minLength":1,"maxLength":64`), ",", `}}`, n) },
		"enum": func(n int) []byte {
			return bytecost.List(obj+`"f0":{"type":"string","enum":[`, func(i int) string { return fmt.Sprintf(`"v%d"`, i) }, ",", `]}}}`, n)
		},
		"keys": func(n int) []byte {
			return bytecost.List(obj+`"f0":{"type":"string"}},`, func(i int) string { return fmt.Sprintf(`"x%d":1`, i) }, ",", `}`, n)
		},
		"digits": func(n int) []byte {
			return bytecost.Repeat(obj+`"f0":{"type":"string"},"n":{"type":"number","maximum":`, "9", `}}}`, n)
		},
		"nesting": func(n int) []byte { return bytecost.Nest(`{"anyOf":[`, `{"type":"string"}`, `]}`, n) },
	}, func(in []byte) {
		_ = (&hitlmcp.Form{Schema: json.RawMessage(in)}).Check(map[string]any{"f0": "abc"})
	})
}
