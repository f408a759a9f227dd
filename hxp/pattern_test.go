package hxp_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hxp"
)

// TestPatternWork: a PROVIDE's pattern costs bounded work. Validate refuses a pattern whose
// program is over 1,000 instructions ("[a-z]{1000}x", 12 bytes), which it accepted before;
// and a receipt whose value is too long to match within the budget is a mismatch, "too long
// to check against the pattern", without being matched (before, 16 KiB against a
// 900-instruction pattern was matched: 14 million steps).
func TestPatternWork(t *testing.T) {
	provide := func(p string) *hxp.Request {
		return &hxp.Request{Provide: &hxp.Provide{Prompt: "ID?", InputType: hxp.InputText, Validation: &hxp.Validation{Pattern: p}}}
	}
	if err := provide(`[a-z]{1000}x`).Validate(); !errors.Is(err, hxp.ErrInvalidRequest) || !strings.Contains(err.Error(), "instructions") {
		t.Errorf("Validate with a 1,003-instruction pattern = %v; want ErrInvalidRequest naming the limit", err)
	}
	req := provide(`[a-z]{290}x`)
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	receipt := func(v string) *hxp.Receipt {
		return &hxp.Receipt{RequestID: "hxp_1", Status: "completed", Result: json.RawMessage(strconv.Quote(v))}
	}
	if err := receipt(strings.Repeat("a", 290) + "x").Check(req); err != nil {
		t.Errorf("a matching value: %v", err)
	}
	var me *hxp.ReceiptMismatchError
	if err := receipt(strings.Repeat("a", 16<<10)).Check(req); !errors.As(err, &me) || !strings.Contains(me.Problem, "too long to check") {
		t.Errorf("Check of a 16 KiB value = %v; want too long to check", err)
	}
	if err := receipt(strings.Repeat("a", 300<<10) + "@b.example").Check(&hxp.Request{Provide: &hxp.Provide{Prompt: "Mail?", InputType: hxp.InputEmail}}); !errors.As(err, &me) {
		t.Errorf("Check of a 300 KiB address = %v; want a mismatch", err)
	}
}
