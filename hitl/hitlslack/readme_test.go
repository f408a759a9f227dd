package hitlslack_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the README's blocks that use this module.
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 1, readme.Using("hitlslack."), `package snippet

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
`, map[string]string{
		"hitlslack": "github.com/hitlkit/hitlkit/hitl/hitlslack",
		"slack":     "github.com/slack-go/slack",
		"hitl":      "github.com/hitlkit/hitlkit/hitl",
		"context":   "context",
		"http":      "net/http",
	})
}
