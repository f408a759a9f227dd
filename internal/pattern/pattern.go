// Package pattern compiles and matches the validation patterns of forms and requests (HITL
// Protocol form fields, HXP PROVIDE validation) with bounded work.
//
// Go's regexp matches in time linear in the text, but the factor is the size of the compiled
// program, which a short pattern can make large: "[a-z]{1000}x" is 12 bytes and 1,003
// instructions, and matching it against 64 KiB of "a" took 5 s of CPU (80 s at the 1 MiB body
// limit); ".{1000}" written 142 times (994 bytes) took 0.2–0.6 s to compile. So a pattern is
// refused when an upper bound of its program (counted on the parsed pattern, before anything
// is compiled) is over MaxInsts, and a Budget caps the work of all the matches one check
// makes: a match whose (len(text)+1) × instructions would overdraw it is not run.
//
// Measured with
//
//	go test -run '^$' -bench . -benchmem ./internal/pattern
//
// (2026-11-26, commit 104c589, one run on a 2-core machine at load average about 13):
// compiling the largest pattern accepted ("[a-z]{330}x", 998 instructions) took 74 µs,
// refusing ".{1000}" written 142 times 0.15 ms and "[a-z]{1000}x" 3.7 µs; matching it against
// 1 KiB of near-misses (a million steps, an eighth of the budget) 9.3 µs per byte (3.5 µs of
// CPU time), and refusing 64 KiB or 1 MiB over the budget 0.7 and 2.7 ns per byte, without
// matching.
package pattern

import (
	"errors"
	"regexp"
	"regexp/syntax"
)

// MaxLen is the longest pattern Compile reads, in bytes.
const MaxLen = 1000

// MaxInsts is the most instructions a pattern's program may have, counted as an upper bound
// on the parsed pattern: a repeat x{n,m} counts m+1 times x and two more, so "[a-z]{300}"
// counts 903.
const MaxInsts = 1000

// MaxSteps is what one Budget allows: the sum, over the matches made with it, of
// (len(text)+1) × the pattern's instructions. 8,388,608: a 1,000-instruction pattern against
// 8 KiB of text, or 100 instructions against 80 KiB.
const MaxSteps = 1 << 23

var (
	// ErrTooLarge: the pattern is longer than MaxLen or its program larger than MaxInsts.
	ErrTooLarge = errors.New("pattern too large")
	// ErrSyntax: the pattern is not one Go's regexp (RE2 syntax) can compile.
	ErrSyntax = errors.New("pattern not RE2 syntax")
)

// Pattern is a compiled pattern with its size. Safe for concurrent use.
type Pattern struct {
	re    *regexp.Regexp
	insts int
}

// Compile compiles p, unanchored as regexp.Compile does. It returns ErrTooLarge, before
// compiling anything, for a pattern over MaxLen bytes or MaxInsts instructions, and ErrSyntax
// for one that does not parse.
func Compile(p string) (*Pattern, error) {
	n, err := Size(p)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, ErrSyntax
	}
	return &Pattern{re: re, insts: n}, nil
}

// Size is the upper bound of p's instructions that Compile checks, counted on the parsed
// pattern without compiling it, for a validator of someone else's that compiles p itself: it
// returns ErrTooLarge for a pattern over MaxLen bytes or MaxInsts instructions, and ErrSyntax
// for one that does not parse. Its work is linear in len(p), at most MaxLen bytes.
func Size(p string) (int, error) {
	if len(p) > MaxLen {
		return 0, ErrTooLarge
	}
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && (se.Code == syntax.ErrLarge || se.Code == syntax.ErrNestingDepth) {
			return 0, ErrTooLarge
		}
		return 0, ErrSyntax
	}
	n := insts(tree) + 2 // and the program's fail and match
	if n > MaxInsts {
		return 0, ErrTooLarge
	}
	return n, nil
}

// Insts is the upper bound of p's instructions that Compile checked against MaxInsts: what
// compiling p cost, about, and what each byte of text matched against it may cost.
func (p *Pattern) Insts() int { return p.insts }

// Budget is the work a set of matches may do together (MaxSteps). Not safe for concurrent
// use: one check owns it.
type Budget struct{ spent int }

// Match reports whether text matches p, and ok false (without matching) when the match could
// cost more than what is left of b.
func (b *Budget) Match(p *Pattern, text string) (matched, ok bool) {
	cost := (len(text) + 1) * p.insts
	if len(text) >= MaxSteps || cost > MaxSteps-b.spent {
		return false, false
	}
	b.spent += cost
	return p.re.MatchString(text), true
}

// insts is an upper bound of the instructions the program of re has, capped just over
// MaxInsts so that no count overflows.
func insts(re *syntax.Regexp) int {
	const top = MaxInsts + 1
	add := func(a, b int) int { return min(a+b, top) }
	mul := func(a, b int) int {
		if a == 0 || b == 0 {
			return 0
		}
		if a > top/b {
			return top
		}
		return min(a*b, top)
	}
	switch re.Op {
	case syntax.OpLiteral:
		return max(1, min(len(re.Rune), top))
	case syntax.OpCapture:
		return add(2, insts(re.Sub[0]))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		// x* of an x that can match empty compiles as (x+)?: two more.
		return add(2, insts(re.Sub[0]))
	case syntax.OpRepeat:
		n := re.Max
		if n < 0 {
			n = re.Min + 1
		}
		return mul(n+1, add(2, insts(re.Sub[0])))
	case syntax.OpConcat, syntax.OpAlternate:
		n := len(re.Sub)
		for _, s := range re.Sub {
			n = add(n, insts(s))
		}
		return n
	}
	return 1
}
