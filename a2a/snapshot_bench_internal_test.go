package a2a

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkSameJSON: the comparison of a snapshot's data or metadata with the one read
// before (sameJSON: both decoded, nulls dropped, compared by meaning), at 1 KiB, 64 KiB and
// 1 MiB, on a long digit run (an integer past 2^53, kept as text), deep nesting, many keys,
// many null members and a long string; the second copy differs in spacing only, so nothing
// is skipped. Measured 2026-11-26 with go test -run '^$' -bench SameJSON -benchtime 3x ./a2a
// (load average 6–10), the CPU time per byte at 1 KiB, 64 KiB and 1 MiB: digits 57, 23, 23;
// keys 147, 124, 242 (with -count 2 and the default time: 177–181, 139–140, 271–277, 1.98×
// from the cheapest size to the dearest);
// nulls 65, 94, 84; a long string 106, 24, 20 ns; nesting falls with size (past 10,000
// levels the decoder refuses it).
func BenchmarkSameJSON(b *testing.B) {
	bytecost.Run(b, map[string]bytecost.Shape{
		"digits":  func(n int) []byte { return bytecost.Repeat(`{"n":`, "9", `}`, n) },
		"nesting": func(n int) []byte { return bytecost.Nest("[", "1", "]", n) },
		"keys": func(n int) []byte {
			return bytecost.List("{", func(i int) string { return fmt.Sprintf(`"k%d":1`, i) }, ",", "}", n)
		},
		"nulls": func(n int) []byte {
			return bytecost.List("{", func(i int) string { return fmt.Sprintf(`"k%d":null`, i) }, ",", "}", n)
		},
		"string": func(n int) []byte { return bytecost.Repeat(`{"s":"`, `\u00e9`, `"}`, n) },
	}, func(in []byte) {
		_ = sameJSON(json.RawMessage(in), json.RawMessage(" "+string(in))) // nesting past 10,000 levels is refused: not the same
	})
}
