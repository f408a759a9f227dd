package hitlmcp_test

import (
	"fmt"
	"os"
	"os/exec"
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
	if testing.Short() {
		t.Skip("runs the go command")
	}
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	// This module's requirements, as a user's module has them, with this checkout in place
	// of the released versions.
	var gomod strings.Builder
	for _, line := range strings.Split(string(mod), "\n") {
		switch {
		case strings.HasPrefix(line, "module "):
			line = "module example.com/readme"
		case strings.HasPrefix(line, "replace "):
			continue
		}
		gomod.WriteString(line + "\n")
	}
	fmt.Fprintf(&gomod, "require github.com/hitlkit/hitlkit/hitl/hitlmcp v0.1.0\n")
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit => %s\n", filepath.Join(here, "..", ".."))
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit/hitl/hitlmcp => %s\n", here)

	files := 0
	for _, b := range readme.GoBlocks(f) {
		if snippet(b) {
			continue
		}
		files++
		t.Run(fmt.Sprintf("line %d", b.Line), func(t *testing.T) {
			dir := t.TempDir()
			for file, content := range map[string]string{
				"go.mod":  gomod.String(),
				"go.sum":  string(sum),
				"main.go": fmt.Sprintf("//line README.md:%d\n%s", b.Line+1, b.Code),
			} {
				if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.CommandContext(t.Context(), "go", "vet", ".")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("README.md:%d: go vet: %v\n%s", b.Line, err, out)
			}
		})
	}
	if files < 1 {
		t.Errorf("found %d whole Go files in README.md, want the first program", files)
	}
}
