package hitlmcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/transport"
)

// Validate names every field a Tool lacks, so a bad configuration is refused at start.
func TestToolValidate(t *testing.T) {
	err := (&hitlmcp.Tool{Secret: []byte("short")}).Validate()
	for _, want := range []string{"Client is nil", "Secret has 5 bytes, needs 32", "Call is nil", "Result is nil"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to say %q", err, want)
		}
	}
	c, _ := hitl.NewClient()
	ok := &hitlmcp.Tool{Client: c, Secret: []byte(strings.Repeat("k", 32)),
		Call: func(context.Context, *mcp.CallToolRequest) (*http.Request, error) { return nil, nil },
		Result: func(context.Context, *http.Response, *transport.Result) (*mcp.CallToolResult, error) {
			return nil, nil
		}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a complete Tool: Validate() = %v", err)
	}
}
