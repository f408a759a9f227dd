package hitlmcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the README's blocks that use this module.
func TestREADME(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readme.Block
	for _, b := range readme.GoBlocks(f) {
		if strings.Contains(b.Code, "hitlmcp.") {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		t.Fatal("no README block uses hitlmcp")
	}
	readme.Check(t, blocks, `package snippet

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
