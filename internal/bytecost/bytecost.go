// Package bytecost measures what a parser costs per byte of its input, for the benchmarks
// that hold hitlkit's parsers of what services, peers, models and files send to linear work:
// each worst-case shape is read at 1 KiB, 64 KiB and 1 MiB (the body limit), and the time per
// byte is reported as the ns/B metric, with the process's CPU time per byte as cpu-ns/B (on
// Unix: user and system time, the garbage collector's included, which a busy machine
// inflates less than the wall clock); a linear parser's stay about the same across sizes.
package bytecost

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Sizes are the input sizes every shape is measured at: 1 KiB, 64 KiB and 1 MiB.
var Sizes = []int{1 << 10, 64 << 10, 1 << 20}

// Shape builds an input of about n bytes.
type Shape func(n int) []byte

// Run runs one sub-benchmark per shape and size, named shape/size, calling parse on the
// shape's input in a loop; parse must not keep the input. It reports ns/B, B/op and allocs/op.
func Run(b *testing.B, shapes map[string]Shape, parse func(in []byte)) {
	names := make([]string, 0, len(shapes))
	for name := range shapes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, n := range Sizes {
			in := shapes[name](n)
			b.Run(fmt.Sprintf("%s/%dKiB", name, n>>10), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(in)))
				cpu := cpuTime()
				for b.Loop() {
					parse(in)
				}
				if cpu >= 0 {
					b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/float64(len(in)), "cpu-ns/B")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(in)), "ns/B")
			})
		}
	}
}

// Repeat is prefix, then unit repeated, then suffix, about n bytes in all (never fewer than
// prefix and suffix).
func Repeat(prefix, unit, suffix string, n int) []byte {
	k := max(0, (n-len(prefix)-len(suffix))/len(unit))
	return []byte(prefix + strings.Repeat(unit, k) + suffix)
}

// List is prefix, then item(i) for i = 0, 1, … joined by sep, then suffix, about n bytes.
func List(prefix string, item func(i int) string, sep, suffix string, n int) []byte {
	var sb strings.Builder
	sb.WriteString(prefix)
	for i := 0; sb.Len()+len(suffix) < n; i++ {
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(item(i))
	}
	sb.WriteString(suffix)
	return []byte(sb.String())
}

// Nest is open repeated, then middle, then close repeated, about n bytes: deep nesting.
func Nest(open, middle, close string, n int) []byte {
	k := max(0, (n-len(middle))/(len(open)+len(close)))
	return []byte(strings.Repeat(open, k) + middle + strings.Repeat(close, k))
}
