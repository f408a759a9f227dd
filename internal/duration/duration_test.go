package duration

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"24h", 24 * time.Hour}, {"30m", 30 * time.Minute}, {"7d", 7 * 24 * time.Hour}, {"1.5d", 36 * time.Hour},
		{"PT24H", 24 * time.Hour}, {"P1DT12H", 36 * time.Hour}, {"P7D", 7 * 24 * time.Hour}, {"pt5m", 5 * time.Minute},
		{"PT1.5S", 1500 * time.Millisecond}, {"P0,5D", 12 * time.Hour}, {"P1W", 7 * 24 * time.Hour},
		{"P1M", 365 * 24 * time.Hour / 12}, {"P1Y", 365 * 24 * time.Hour}, {"P1Y1D", 366 * 24 * time.Hour},
		{"P1DT1H1M1S", 25*time.Hour + time.Minute + time.Second}, {" PT1M ", time.Minute},
		{"PT0.000000001S", time.Nanosecond}, {"P366D", Max}, {"PT8784H", Max},
		{"P" + strings.Repeat("0", MaxLen-3) + "1D", 24 * time.Hour},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "soon", "P", "PT", "-5m", "0s", "P300Y", "PT9999999999999H", "400d", "P6", "d",
		"P1DT", "PT1D", "P1H", "P1D1D", "P1D1Y", "PT1S1M", "P1DTT1H", "P.5D", "P5.D", "P1.2.3D", "P1e3D", "-P1D",
		"P1D-", "P１D", "1e1d", "NaNd", "infd", "P367D", "P2Y", "PT0S", "P0D", "P" + strings.Repeat("0", MaxLen-2) + "1D",
		"P" + strings.Repeat("0", 300_000) + "D", strings.Repeat("1.", 100_000)} {
		if got, err := Parse(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%.40q) = %v, %v; want ErrInvalid", bad, got, err)
		}
	}
}

// TestLongSpellingIsNotRead: a duration spelled in more bytes than MaxLen is refused without
// being read. The ISO 8601 parser this package used before built its number one character at a
// time, copying it at each step: "P" + 300,000 zeros + "D" cost 300,000 allocations and 45 GB
// copied (15 s of CPU in hitl.Detect). Parse now allocates nothing for it.
func TestLongSpellingIsNotRead(t *testing.T) {
	for _, s := range []string{
		"P" + strings.Repeat("0", 300_000) + "D",
		"PT" + strings.Repeat("1", 300_000) + "S",
		"P" + strings.Repeat("1.", 100_000) + "D",
		strings.Repeat("9", 300_000) + "d",
	} {
		var err error
		allocs := testing.AllocsPerRun(1, func() { _, err = Parse(s) })
		if !errors.Is(err, ErrInvalid) || allocs != 0 {
			t.Errorf("Parse(%.20q… %d bytes) = %v after %v allocations; want ErrInvalid after none", s, len(s), err, allocs)
		}
	}
}

// worstCases are the shapes a benchmark measures at each size: long digit runs after each
// prefix that reaches a number parser, and a run of "1." (a number that never ends).
func worstCases(n int) map[string]string {
	return map[string]string{
		"iso-zeros": "P" + strings.Repeat("0", n-2) + "D",
		"iso-time":  "PT" + strings.Repeat("1", n-3) + "S",
		"iso-dots":  "P" + strings.Repeat("1.", (n-2)/2) + "D",
		"days":      strings.Repeat("9", n-1) + "d",
		"go":        strings.Repeat("1", n-1) + "h",
	}
}

// BenchmarkParse reports the cost per byte of refusing each worst-case shape at 1 KiB,
// 64 KiB and 1 MiB (the body limit), and of reading the longest accepted spelling.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1 << 10, 64 << 10, 1 << 20} {
		for name, s := range worstCases(n) {
			b.Run(fmt.Sprintf("%s/%dKiB", name, n>>10), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Parse(s); err == nil {
						b.Fatal("accepted")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s)), "ns/B")
			})
		}
	}
	longest := "P" + strings.Repeat("0", MaxLen-len("P0Y0M0W365DT23H59M59.999999999S")) + "0Y0M0W365DT23H59M59.999999999S"
	b.Run("valid/64B", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(longest); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(longest)), "ns/B")
	})
}
