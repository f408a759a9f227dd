package hitl_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
)

// hugeTimeout is a duration spelled in 300,000 digits: valid JSON, a 293 KiB body, well
// under the 1 MiB limit.
var hugeTimeout = "P" + strings.Repeat("0", 300_000) + "D"

// extraAllocs is how many more allocations f makes on hostile than on plain: the work one
// field adds, counted rather than timed.
func extraAllocs(f func(string), hostile, plain string) float64 {
	return testing.AllocsPerRun(1, func() { f(hostile) }) - testing.AllocsPerRun(1, func() { f(plain) })
}

// TestDetectHugeTimeout: a 202 whose timeout is 300,000 digits long costs Detect about what a
// plain one does. The ISO 8601 parser Detect used before copied the number at each digit
// (300,000 allocations, 45 GB copied, 15 s of CPU per answer); the timeout is now refused by
// its length before any parser reads it, with a warning, and expires_at still applies.
func TestDetectHugeTimeout(t *testing.T) {
	detect := func(timeout string) {
		body := with(func(h map[string]any) { h["timeout"] = timeout })
		req, _ := http.NewRequest(http.MethodPost, "https://api.svc.example/v1/x", nil)
		resp := &http.Response{StatusCode: http.StatusAccepted, Request: req, Body: io.NopCloser(strings.NewReader(body))}
		it, err := hitl.Detect(resp, &hitl.DetectOptions{MaxBody: 1 << 20})
		if err != nil || it == nil {
			t.Fatalf("Detect: %v, %v", it, err)
		}
		if timeout == hugeTimeout && !strings.Contains(strings.Join(it.Warnings, "; "), "timeout") {
			t.Fatalf("no warning about the timeout: %q", it.Warnings)
		}
	}
	if extra := extraAllocs(detect, hugeTimeout, "P1D"); extra > 100 {
		t.Fatalf("a 300,000-digit timeout cost %v more allocations than P1D; want the same work", extra)
	}
}

// TestDiscoveryHugeTimeouts: the same for the discovery document's default_timeout,
// max_timeout and timeout_default: each is refused unread and left zero.
func TestDiscoveryHugeTimeouts(t *testing.T) {
	docs := []func(string) string{
		func(d string) string {
			return `{"hitl_protocol":{"spec_version":"0.8","capabilities":{"default_timeout":"` + d + `","max_timeout":"` + d + `"}}}`
		},
		func(d string) string { return `{"hitl_protocol":"0.5","timeout_default":"` + d + `"}` },
	}
	for _, doc := range docs {
		parse := func(timeout string) {
			d, err := hitl.ParseDiscovery([]byte(doc(timeout)))
			if err != nil {
				t.Fatal(err)
			}
			if timeout == hugeTimeout && (d.DefaultTimeout != 0 || d.MaxTimeout != 0) {
				t.Fatalf("a 300,000-digit timeout read as %v, %v", d.DefaultTimeout, d.MaxTimeout)
			}
		}
		if extra := extraAllocs(parse, hugeTimeout, "P1D"); extra > 100 {
			t.Fatalf("%.40s: 300,000-digit timeouts cost %v more allocations than P1D; want the same work", doc("…"), extra)
		}
	}
}

// TestFormPatternWork: a form's patterns cost bounded work. "[a-z]{1000}x" is 12 bytes and a
// 1,003-instruction program; matched against a 64 KiB answer it took 5 s of CPU. ParseForm now
// refuses a pattern over 1,000 instructions (ErrFormTooLarge) before compiling it, and Check
// matches within a budget: a 16 KiB value against a 900-instruction pattern is "too long to
// check against the field's pattern" without being matched (before, it was matched: 14
// million steps, and said "does not match").
func TestFormPatternWork(t *testing.T) {
	form := func(p string) []byte {
		return []byte(`{"fields":[{"key":"id","label":"ID","type":"text","validation":{"pattern":` + strconv.Quote(p) + `}}]}`)
	}
	if _, err := hitl.ParseForm(form(`[a-z]{1000}x`)); !errors.Is(err, hitl.ErrFormTooLarge) {
		t.Errorf("ParseForm with a 1,003-instruction pattern = %v; want ErrFormTooLarge", err)
	}
	f, err := hitl.ParseForm(form(`[a-z]{290}x`))
	if err != nil {
		t.Fatal(err)
	}
	data := func(v string) json.RawMessage { return json.RawMessage(`{"id":"` + v + `"}`) }
	if err := f.Check(t.Context(), data(strings.Repeat("a", 290)+"x")); err != nil {
		t.Errorf("a matching value: %v", err)
	}
	var ie *hitl.InvalidError
	err = f.Check(t.Context(), data(strings.Repeat("a", 16<<10)))
	if !errors.As(err, &ie) || len(ie.Problems) != 1 || !strings.Contains(ie.Problems[0].Problem, "too long to check") {
		t.Errorf("Check of a 16 KiB value = %v; want one problem, too long to check", err)
	}
}

// TestFormPatternsTogether: a form's distinct patterns compile to at most 20,000 instructions
// together. Before, ParseForm compiled every one of up to 500 fields' patterns, each up to
// the largest accepted (about 1 ms each): 100 distinct 900-instruction patterns were
// accepted; now the form is ErrFormTooLarge, and no pattern past the limit is compiled.
func TestFormPatternsTogether(t *testing.T) {
	var fields []string
	for i := range 100 {
		fields = append(fields, fmt.Sprintf(`{"key":"f%d","label":"F","type":"text","validation":{"pattern":"[a-z]{290}x%d"}}`, i, i))
	}
	if _, err := hitl.ParseForm([]byte(`{"fields":[` + strings.Join(fields, ",") + `]}`)); !errors.Is(err, hitl.ErrFormTooLarge) {
		t.Errorf("ParseForm of 100 distinct 900-instruction patterns = %v; want ErrFormTooLarge", err)
	}
	if _, err := hitl.ParseForm([]byte(`{"fields":[` + strings.Join(fields[:20], ",") + `]}`)); err != nil {
		t.Errorf("ParseForm of 20 of them: %v", err)
	}
}
