package hitlslack_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// snippetStubs stand in for what a README snippet takes from the reader's program.
const snippetStubs = `package snippet

import (
	"context"
	"net/http"

	"github.com/hitlkit/hitlkit/hitl"
)

var (
	ctx                                        context.Context
	req                                        *http.Request
	mux                                        *http.ServeMux
	store                                      hitl.Store
	botToken, signingSecret, reviewerID        string
)
`

var snippetPackages = map[string]string{
	"hitlslack": "github.com/hitlkit/hitlkit/hitl/hitlslack",
	"slack":     "github.com/slack-go/slack",
	"hitl":      "github.com/hitlkit/hitlkit/hitl",
	"context":   "context",
	"http":      "net/http",
}

// snippet keeps the blocks that are statements, not whole files.
func snippet(b readme.Block) bool { return !strings.HasPrefix(b.Code, "package ") }

// TestREADME type-checks the Go blocks that use this module: the repository README's, and
// the snippets of this module's own README (its whole files are TestREADMEFiles').
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 0, readme.Using("hitlslack."), snippetStubs, snippetPackages)
	readme.CheckFile(t, "README.md", 1, snippet, snippetStubs, snippetPackages)
}

// TestREADMEFiles builds each whole file of this module's README in a module of its own
// in a temporary directory, which requires this module and the root at this checkout (as a
// user's module requires them, offline, from the module cache): a program (package main)
// is vetted, a test file (package …_test) is run, so the README's test of a Slack approval
// passes as shown.
func TestREADMEFiles(t *testing.T) {
	readme.BuildFiles(t, "github.com/hitlkit/hitlkit/hitl/hitlslack", nil, 2, 0) // the first program and the test
}
