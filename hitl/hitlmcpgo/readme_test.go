package hitlmcpgo_test

import (
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// snippetStubs stand in for what a README snippet takes from the reader's own program.
const snippetStubs = `package snippet

import (
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlmcp"
)

var (
	fwd            hitl.Forwarder
	askMyHumanForm hitlmcp.FormAsker
)
`

var snippetPackages = map[string]string{
	"client":    "github.com/mark3labs/mcp-go/client",
	"hitlmcpgo": "github.com/hitlkit/hitlkit/hitl/hitlmcpgo",
	"transport": "github.com/mark3labs/mcp-go/client/transport",
}

// snippet keeps the blocks that are statements, not whole files.
func snippet(b readme.Block) bool { return !strings.HasPrefix(b.Code, "package ") }

// TestREADME type-checks the snippets of this module's README.
func TestREADME(t *testing.T) {
	readme.CheckFile(t, "README.md", 1, snippet, snippetStubs, snippetPackages)
}

// TestREADMEFiles builds each whole file of the README (the first program) in a module of
// its own in a temporary directory, which requires this module, hitlmcp and the root at this
// checkout, offline, and vets it; the first program stays under 40 lines.
func TestREADMEFiles(t *testing.T) {
	readme.BuildFiles(t, "github.com/hitlkit/hitlkit/hitl/hitlmcpgo", map[string]string{"github.com/hitlkit/hitlkit/hitl/hitlmcp": "../hitlmcp"}, 1, 40) // the first program, under 40 lines
}
