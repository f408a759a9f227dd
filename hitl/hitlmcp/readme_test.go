package hitlmcp_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the README's blocks that use this module.
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 2, readme.Using("hitlmcp."), `package snippet

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
	"github.com/hitlkit/hitlkit/transport"
)

var (
	fwd            hitl.Forwarder
	askMyHumanForm hitlmcp.FormAsker
	hitlClient     *hitl.Client
	key            []byte
	server         *mcp.Server
)

func backendRequest(context.Context, *mcp.CallToolRequest) (*http.Request, error) { return nil, nil }
func toolResult(*http.Response, *transport.Result) (*mcp.CallToolResult, error)   { return nil, nil }
`, map[string]string{
		"mcp":       "github.com/modelcontextprotocol/go-sdk/mcp",
		"hitlmcp":   "github.com/hitlkit/hitlkit/hitl/hitlmcp",
		"hitl":      "github.com/hitlkit/hitlkit/hitl",
		"context":   "context",
		"http":      "net/http",
		"transport": "github.com/hitlkit/hitlkit/transport",
	})
}
