package hitladk_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the Go blocks of every Markdown file of the repository that use this
// module, and those of its own README.
func TestREADME(t *testing.T) {
	readme.CheckRepository(t, 1, readme.Either(readme.Using("hitladk."), readme.In("hitl/hitladk")), `package snippet

import (
	"context"
	"iter"
	"net/http"

	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
)

var (
	ctx               context.Context
	events            []*session.Event
	client            *hitl.Client
	r                 *runner.Runner
	userID, sessionID string
)

func reviewRequest(hitladk.Request) *http.Request                            { return nil }
func collect(iter.Seq2[*session.Event, error]) []*session.Event { return nil }
`, map[string]string{
		"hitladk": "github.com/hitlkit/hitlkit/hitl/hitladk",
		"hitl":    "github.com/hitlkit/hitlkit/hitl",
		"agent":   "google.golang.org/adk/v2/agent",
		"runner":  "google.golang.org/adk/v2/runner",
		"session": "google.golang.org/adk/v2/session",
		"context": "context",
		"iter":    "iter",
		"http":    "net/http",
	})
}
