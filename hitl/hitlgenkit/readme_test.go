package hitlgenkit_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks this module's README program as it stands, with the reader's own
// model and review request stubbed.
func TestREADME(t *testing.T) {
	readme.CheckPrograms(t, "README.md", 1, `package main

import (
	"context"
	"net/http"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
)

func yourModel(*genkit.Genkit) ai.Model                                     { return nil }
func yourReviewRequest(context.Context, hitlgenkit.Question) *http.Request { return nil }
`)
}

// TestREADMEFirstProgramIsShort: the README's first program, the whole Go block, stays
// under 40 lines.
func TestREADMEFirstProgramIsShort(t *testing.T) {
	readme.CheckFirstProgramShort(t, "README.md", 40)
}

// TestRootREADME type-checks the repository README's Genkit example, with what it takes
// from the reader's program stubbed.
func TestRootREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 1, readme.Using("hitlgenkit."), `package snippet

import (
	"context"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	"github.com/hitlkit/hitlkit/hitl/hitlgenkit"
)

var (
	ctx  context.Context
	g    *genkit.Genkit
	ask  hitlgenkit.Asker
	resp *ai.ModelResponse
)

func deleteFile(path string) (string, error) { return "deleted " + path, nil }
`, map[string]string{
		"hitlgenkit": "github.com/hitlkit/hitlkit/hitl/hitlgenkit",
		"genkit":     "github.com/firebase/genkit/go/genkit",
		"ai":         "github.com/firebase/genkit/go/ai",
		"context":    "context",
	})
}
