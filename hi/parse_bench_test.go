package hi_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkParse: messages a model or peer could send, at 1 KiB, 64 KiB and 1 MiB: many
// participants, a long history, many keys that normalise alike (each one a problem), a long
// digit run as a confidence, deep nesting in an unknown member, a summary of escapes.
func BenchmarkParse(b *testing.B) {
	head := strings.TrimSuffix(strings.TrimSpace(specExample), "}")
	bytecost.Run(b, map[string]bytecost.Shape{
		"participants": func(n int) []byte {
			return bytecost.List(`{"interactionId":"i","type":"approval","participants":[`, func(i int) string { return fmt.Sprintf(`{"id":"u%d","role":"r"}`, i) }, ",", `]}`, n)
		},
		"history": func(n int) []byte {
			return bytecost.List(head+`,"hist":[`, func(i int) string {
				return fmt.Sprintf(`{"participantId":"u%d","inputText":"x","timestamp":"2025-06-24T10:00:00Z"}`, i)
			}, ",", `]}`, n)
		},
		"clashing-keys": func(n int) []byte {
			return bytecost.List(head+",", func(i int) string { return `"` + strings.Repeat("_", i%64) + `Ty-pe_":"x"` }, ",", "}", n)
		},
		"digits":  func(n int) []byte { return bytecost.Repeat(head+`,"agentOutput":{"confidence":"0.`, "6", `"}}`, n) },
		"nesting": func(n int) []byte { return bytecost.Nest(`{"x":`, "1", "}", n) },
		"escapes": func(n int) []byte { return bytecost.Repeat(head+`,"agentOutput":{"summary":"`, `\u00e9`, `"}}`, n) },
	}, func(in []byte) { _, _ = hi.Parse(in) })
}

// TestParseCostPerMember: reading a member's key builds nothing. Parse once built a
// strings.Replacer for every member of every object, about 26 KiB allocated per participant
// (75 MB for a 64 KiB message, 1.7 s of CPU for 1 MiB); a participant now costs about 2 KiB.
// Counted in bytes allocated, not time.
func TestParseCostPerMember(t *testing.T) {
	const n = 1000
	msg, err := json.Marshal(message(n, hi.Majority)) // a valid message: Parse returns nothing with an error
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	it, err := hi.Parse(msg)
	runtime.ReadMemStats(&after)
	if err != nil || len(it.Participants) != n {
		t.Fatalf("Parse: %v", err)
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 8<<10 {
		t.Errorf("%d bytes allocated per participant; want under 8 KiB", per)
	}
}
