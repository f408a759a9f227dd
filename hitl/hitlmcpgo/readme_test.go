package hitlmcpgo_test

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
	var gomod strings.Builder
	inReplace := false
	for _, line := range strings.Split(string(mod), "\n") {
		switch {
		case strings.HasPrefix(line, "module "):
			line = "module example.com/readme"
		case strings.HasPrefix(line, "replace ("):
			inReplace = true
			continue
		case inReplace:
			inReplace = line != ")"
			continue
		}
		gomod.WriteString(line + "\n")
	}
	fmt.Fprintf(&gomod, "require github.com/hitlkit/hitlkit/hitl/hitlmcpgo v0.1.0\n")
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit => %s\n", filepath.Join(here, "..", ".."))
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit/hitl/hitlmcp => %s\n", filepath.Join(here, "..", "hitlmcp"))
	fmt.Fprintf(&gomod, "replace github.com/hitlkit/hitlkit/hitl/hitlmcpgo => %s\n", here)

	files := 0
	for _, b := range readme.GoBlocks(f) {
		if snippet(b) {
			continue
		}
		files++
		if n := strings.Count(strings.TrimSpace(b.Code), "\n") + 1; files == 1 && n >= 40 {
			t.Errorf("README.md:%d: the first program has %d lines, want under 40", b.Line, n)
		}
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
