package pattern

import (
	"errors"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/bytecost"
)

// TestCompile: everyday patterns compile; a pattern whose program is over MaxInsts is
// ErrTooLarge however short it is, one over MaxLen bytes too, and one that is not RE2 is
// ErrSyntax. Size, which compiles nothing, gives the count Compile checked or the same error.
func TestCompile(t *testing.T) {
	for _, p := range []string{`^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$`, `^\d{5}(-\d{4})?$`, `^[^@\s]+@[^@\s]+$`, `(?i)yes|no`, `x{300}`, `.*`} {
		re, err := Compile(p)
		if err != nil {
			t.Errorf("Compile(%q): %v", p, err)
			continue
		}
		if n, err := Size(p); n != re.Insts() || err != nil {
			t.Errorf("Size(%q) = %d, %v; Compile counted %d", p, n, err, re.Insts())
		}
	}
	for _, p := range []string{`[a-z]{1000}x`, `x{1000}`, strings.Repeat(`.{1000}`, 142), `(?:(?:a{30}){30})`, strings.Repeat("a", MaxLen+1),
		`\pL{999}`, `(?i:abcdefghijklmnopqrstuvwxyz){1000}`} {
		if _, err := Compile(p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Compile(%.30q…) = %v; want ErrTooLarge", p, err)
		}
		if n, err := Size(p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Size(%.30q…) = %d, %v; want ErrTooLarge", p, n, err)
		}
	}
	for _, p := range []string{`(`, `a**`, `(?<x`, `\8`} {
		if _, err := Compile(p); !errors.Is(err, ErrSyntax) {
			t.Errorf("Compile(%q) = %v; want ErrSyntax", p, err)
		}
		if n, err := Size(p); !errors.Is(err, ErrSyntax) {
			t.Errorf("Size(%q) = %d, %v; want ErrSyntax", p, n, err)
		}
	}
}

// TestInstsIsAnUpperBound: the count Compile checks is never below the instructions Go's
// compiler makes for the pattern.
func TestInstsIsAnUpperBound(t *testing.T) {
	for _, p := range []string{`a`, `abc`, `[a-z]{10,20}`, `(a|b|c)+x?`, `(?:ab){3,}`, `x{0}`, `x{0,5}`, `^$\b`, `(?i)héllo`, `((a)(b))*c{2}`, `.{999}`} {
		checkBound(t, p)
	}
}

func checkBound(t *testing.T, p string) {
	t.Helper()
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return
	}
	if n := insts(tree) + 2; n < min(len(prog.Inst), MaxInsts+1) {
		t.Errorf("insts(%q) = %d; the program has %d", p, n, len(prog.Inst))
	}
}

// FuzzCompile: the count is an upper bound for any pattern Go parses; Compile never panics.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{`a{2}b{3,5}`, `(a|b)*`, `[a-z]{1000}x`, `(?:(?:a{10}){10}){10}`, `\pL+`} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		_, _ = Compile(p)
		if len(p) <= MaxLen {
			checkBound(t, p)
		}
	})
}

// TestBudget: a match the budget cannot cover is not run, and leaves the budget as it was;
// one it can is charged (len(text)+1) × instructions.
func TestBudget(t *testing.T) {
	p, err := Compile(`[a-z]{300}x`)
	if err != nil {
		t.Fatal(err)
	}
	var b Budget
	long := strings.Repeat("a", MaxSteps/p.insts)
	if ok, within := b.Match(p, long); within || ok || b.spent != 0 {
		t.Fatalf("Match of %d bytes = %v, %v, spent %d; want refused unrun", len(long), ok, within, b.spent)
	}
	short := strings.Repeat("a", 400) + "x"
	if ok, within := b.Match(p, short); !ok || !within || b.spent != (len(short)+1)*p.insts {
		t.Fatalf("Match = %v, %v, spent %d", ok, within, b.spent)
	}
	for within := true; within; _, within = b.Match(p, short) {
	}
	if b.spent > MaxSteps {
		t.Fatalf("spent %d of %d", b.spent, MaxSteps)
	}
}

// BenchmarkMatch: a budget's worth of matching against the largest pattern Compile accepts,
// and the refusal of what is over it, per byte of text at 1 KiB, 64 KiB and 1 MiB.
func BenchmarkMatch(b *testing.B) {
	p, err := Compile(`[a-z]{330}x`)
	if err != nil {
		b.Fatal(err)
	}
	bytecost.Run(b, map[string]bytecost.Shape{
		"near-miss": func(n int) []byte { return []byte(strings.Repeat("a", n)) },
	}, func(in []byte) {
		var bud Budget
		bud.Match(p, string(in))
	})
}

// BenchmarkCompile: compiling the largest patterns accepted, and refusing the worst ones.
func BenchmarkCompile(b *testing.B) {
	for name, p := range map[string]string{"largest": `[a-z]{330}x`, "dots": strings.Repeat(`.{1000}`, 142), "short-huge": `[a-z]{1000}x`} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Compile(p)
			}
		})
	}
}
