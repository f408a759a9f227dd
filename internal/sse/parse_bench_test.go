package sse

import (
	"bytes"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// BenchmarkRead: streams at 1 KiB, 64 KiB and 1 MiB: one event of many data lines (joined),
// one very long line, many empty events, comments, and CR-only line ends.
func BenchmarkRead(b *testing.B) {
	bytecost.Run(b, map[string]bytecost.Shape{
		"data-lines": func(n int) []byte { return bytecost.Repeat("", "data: x\n", "\n", n) },
		"long-line":  func(n int) []byte { return bytecost.Repeat("data: ", "x", "\n\n", n) },
		"events":     func(n int) []byte { return bytecost.Repeat("", "data:\n\n", "", n) },
		"comments":   func(n int) []byte { return bytecost.Repeat("", ":\n", "data: x\n\n", n) },
		"cr":         func(n int) []byte { return bytecost.Repeat("", "data: x\r", "\r", n) },
	}, func(in []byte) { _ = Read(bytes.NewReader(in), 2<<20, func(Event) bool { return true }) })
}
