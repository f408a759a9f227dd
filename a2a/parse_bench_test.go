package a2a_test

import (
	"bytes"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkReadStream: streams an agent could send, at 1 KiB, 64 KiB and 1 MiB: many status
// updates with the same metadata member (merged into the task's), and one event holding a
// long digit run or deep nesting. (Updates that each add a member make the merge quadratic:
// 32 µs of CPU per byte at 1 MiB, 34 s in all; not measured here until that is fixed.)
//
// Measured with go test -run '^$' -bench ReadStream ./a2a on a loaded 2-core machine, the CPU
// time per byte at 1 KiB, 64 KiB and 1 MiB, over the shapes: 30–122, 23–172, 14–129 ns.
func BenchmarkReadStream(b *testing.B) {
	update := func(meta string) string {
		return `data: {"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"working"},"metadata":` + meta + `,"final":false}}` + "\n\n"
	}
	bytecost.Run(b, map[string]bytecost.Shape{
		"metadata-same": func(n int) []byte { return bytecost.List("", func(int) string { return update(`{"k":1}`) }, "", "", n) },
		"digits": func(n int) []byte {
			return bytecost.Repeat(`data: {"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t1","x":`, "9", "}}\n\n", n)
		},
		"nesting": func(n int) []byte { return []byte("data: " + string(bytecost.Nest(`{"x":`, "1", "}", n)) + "\n\n") },
	}, func(in []byte) { _, _ = a2a.ReadStream(bytes.NewReader(in)) })
}
