package hitlmcp_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the README's blocks that use this module.
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 1, readme.Using("hitlmcp."), `package snippet

import (
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

var (
	fwd            hitl.Forwarder
	askMyHumanForm hitlmcp.FormAsker
)
`, map[string]string{
		"mcp":     "github.com/modelcontextprotocol/go-sdk/mcp",
		"hitlmcp": "github.com/hitlkit/hitlkit/hitl/hitlmcp",
		"hitl":    "github.com/hitlkit/hitlkit/hitl",
		"context": "context",
	})
}
