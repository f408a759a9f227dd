package hitlmcp

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
)

func testTool() *Tool {
	return &Tool{Secret: []byte("a-secret-of-at-least-thirty-two-bytes!")}
}

func testPaused(expires time.Time) *paused {
	return &paused{Call: "call-1", Expires: expires.Unix(), Interrupt: &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{
		CaseID: "case-1", ReviewURL: "https://svc.example/review/case-1?token=rt", PollURL: "https://svc.example/cases/case-1/status?token=pt"}}}
}

func bindingOf(t *testing.T, tool *Tool, name, args, user string) []byte {
	t.Helper()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: []byte(args)}}
	if user != "" {
		req.Extra = &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
	}
	return tool.binding(req)
}

// TestStateHostile: a state opens only for the tool, arguments and caller it was sealed
// for, before it expires, whole and unaltered, under the same secret; its text shows none
// of the case.
func TestStateHostile(t *testing.T) {
	tool := testTool()
	bind := bindingOf(t, tool, "delete_file", `{"path":"/a","n":1}`, "alice")
	state, err := tool.seal(bind, testPaused(time.Now().Add(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := tool.open(bindingOf(t, tool, "delete_file", ` { "n" : 1, "path" : "/a" } `, "alice"), state); err != nil || p.Interrupt.Case.CaseID != "case-1" {
		t.Fatalf("open with the arguments re-encoded = %+v, %v", p, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(state, statePrefix))
	for _, s := range []string{"case-1", "token", "svc.example", "call-1"} {
		if strings.Contains(state, s) || strings.Contains(string(raw), s) {
			t.Errorf("the state shows %q", s)
		}
	}
	expired, err := tool.seal(bind, testPaused(time.Now().Add(-time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	other := &Tool{Secret: []byte("another-secret-of-at-least-thirty-two-bytes")}
	flipped := []byte(state)
	flipped[len(flipped)/2] ^= 1
	for _, tt := range []struct {
		name  string
		tool  *Tool
		bind  []byte
		state string
	}{
		{"tampered", tool, bind, string(flipped)},
		{"truncated", tool, bind, state[:len(state)-1]},
		{"cut to the nonce", tool, bind, state[:len(statePrefix)+16]},
		{"empty", tool, bind, ""},
		{"no version", tool, bind, strings.TrimPrefix(state, statePrefix)},
		{"not base64", tool, bind, statePrefix + "!!!!"},
		{"huge", tool, bind, statePrefix + strings.Repeat("A", maxState)},
		{"another tool", tool, bindingOf(t, tool, "empty_trash", `{"path":"/a","n":1}`, "alice"), state},
		{"other arguments", tool, bindingOf(t, tool, "delete_file", `{"path":"/b","n":1}`, "alice"), state},
		{"another caller", tool, bindingOf(t, tool, "delete_file", `{"path":"/a","n":1}`, "mallory"), state},
		{"no caller", tool, bindingOf(t, tool, "delete_file", `{"path":"/a","n":1}`, ""), state},
		{"another secret", other, bind, state},
		{"expired", tool, bind, expired},
	} {
		if p, err := tt.tool.open(tt.bind, tt.state); !errors.Is(err, ErrBadState) {
			t.Errorf("%s: open = %+v, %v; want ErrBadState", tt.name, p, err)
		}
	}
}

// TestMemoryLedger: a call is spent once; a record outlives nothing but its expiry.
func TestMemoryLedger(t *testing.T) {
	var l MemoryLedger
	ctx := t.Context()
	if ok, _ := l.Spend(ctx, "a", time.Now().Add(time.Hour)); !ok {
		t.Fatal("first Spend refused")
	}
	if ok, _ := l.Spend(ctx, "a", time.Now().Add(time.Hour)); ok {
		t.Fatal("second Spend accepted")
	}
	if spent, _ := l.Spent(ctx, "a"); !spent {
		t.Fatal("a not spent")
	}
	for i := range 100 {
		_, _ = l.Spend(ctx, strings.Repeat("x", i+1), time.Now().Add(-time.Second))
	}
	if spent, _ := l.Spent(ctx, "a"); !spent || len(l.spent) > 64 {
		t.Fatalf("after expired records: a spent %v, %d records kept", spent, len(l.spent))
	}
}

// FuzzOpenState: any requestState opens to a usable case or fails with ErrBadState; none
// panics, and only what this tool sealed opens (the seed's nonce differs in each fuzz worker).
func FuzzOpenState(f *testing.F) {
	tool := testTool()
	bind := []byte(`["delete_file","","{}"]`)
	good, err := tool.seal(bind, testPaused(time.Now().Add(time.Hour)))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{good, good[:len(good)-3], "", statePrefix, statePrefix + "AAAA", "x" + good, good + "A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, state string) {
		p, err := tool.open(bind, state)
		switch {
		case err == nil && (p.Call != "call-1" || p.Interrupt == nil || p.Interrupt.Case == nil || p.Interrupt.Case.CaseID != "case-1"):
			t.Fatalf("%q opened to %+v, not what this tool sealed", state, p)
		case err != nil && !errors.Is(err, ErrBadState):
			t.Fatalf("open = %v, want ErrBadState", err)
		}
	})
}
