package hitleino_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks this module's README program as it stands, with the reader's own
// model, checkpoint store and review request stubbed.
func TestREADME(t *testing.T) {
	readme.CheckPrograms(t, "README.md", 1, `package main

import (
	"context"
	"net/http"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"

	"github.com/hitlkit/hitlkit/hitl/hitleino"
)

func yourChatModel() model.ToolCallingChatModel                              { return nil }
func yourDurableCheckPointStore() adk.CheckPointStore                     { return nil }
func yourReviewRequest(context.Context, hitleino.Question) *http.Request { return nil }
`)
}

// TestREADMEFirstProgramIsShort: the README's first program, the whole Go block, stays
// under 40 lines.
func TestREADMEFirstProgramIsShort(t *testing.T) {
	readme.CheckFirstProgramShort(t, "README.md", 40)
}

// TestRootREADME type-checks the repository README's Eino example, with what it takes from
// the reader's program stubbed.
func TestRootREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 1, readme.Using("hitleino."), `package snippet

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"

	"github.com/hitlkit/hitlkit/hitl/hitleino"
)

var (
	ctx        context.Context
	deleteFile tool.InvokableTool
	ask        hitleino.Asker
	runner     *adk.Runner
	ev         *adk.AgentEvent
	events     *adk.AsyncIterator[*adk.AgentEvent]
)
`, map[string]string{
		"hitleino": "github.com/hitlkit/hitlkit/hitl/hitleino",
		"tool":     "github.com/cloudwego/eino/components/tool",
		"adk":      "github.com/cloudwego/eino/adk",
		"context":  "context",
	})
}
