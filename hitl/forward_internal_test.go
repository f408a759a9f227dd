package hitl

import (
	"context"
	"strings"
	"testing"
)

func TestBrowserCommand(t *testing.T) {
	for goos, want := range map[string]string{"linux": "xdg-open", "darwin": "open", "windows": "rundll32 url.dll,FileProtocolHandler", "freebsd": "xdg-open"} {
		if got := strings.Join(browserCommand(goos), " "); got != want {
			t.Errorf("%s: %q, want %q", goos, got, want)
		}
	}
}

// TestOpenWith runs a stand-in opener: the URL reaches it as an argument, and a failing
// opener's error names the command but not the URL.
func TestOpenWith(t *testing.T) {
	it := &Interrupt{Kind: KindHITL, Case: &Case{CaseID: "review_1", ReviewURL: "https://svc.example/r/1?token=s3cret"}}
	if err := openWith([]string{"test", "-n"})(context.Background(), it); err != nil {
		t.Fatalf("opener given the URL failed: %v", err)
	}
	err := openWith([]string{"false"})(context.Background(), it)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("failing opener: %v", err)
	}
	if err := openWith([]string{"true"})(context.Background(), &Interrupt{Case: &Case{}}); err == nil {
		t.Error("no review URL: want an error")
	}
}
