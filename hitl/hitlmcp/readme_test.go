package hitlmcp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// snippetStubs stand in for what a README snippet takes from the reader's own program.
const snippetStubs = `package snippet

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
`

var snippetPackages = map[string]string{
	"mcp":       "github.com/modelcontextprotocol/go-sdk/mcp",
	"hitlmcp":   "github.com/hitlkit/hitlkit/hitl/hitlmcp",
	"hitl":      "github.com/hitlkit/hitlkit/hitl",
	"context":   "context",
	"fmt":       "fmt",
	"http":      "net/http",
	"transport": "github.com/hitlkit/hitlkit/transport",
}

// snippet keeps the blocks that are statements, not whole files.
func snippet(b readme.Block) bool { return !strings.HasPrefix(b.Code, "package ") }

// TestREADME type-checks the Go blocks that use this module: the repository README's, and
// the snippets of this module's own README (its whole files are TestREADMEFiles').
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 0, readme.Using("hitlmcp."), snippetStubs, snippetPackages)
	readme.CheckFile(t, "README.md", 4, snippet, snippetStubs, snippetPackages)
}

// TestREADMEFiles builds each whole file of this module's README (the first program) in a
// module of its own in a temporary directory, which requires this module and the root at
// this checkout (as a user's module requires them, offline, from the module cache), and
// vets it.
func TestREADMEFiles(t *testing.T) {
	readme.BuildFiles(t, "github.com/hitlkit/hitlkit/hitl/hitlmcp", nil, 1, 0) // the first program
}
