package temporal_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the Go blocks of every Markdown file of the repository that use this
// module, and those of its own README.
func TestREADME(t *testing.T) {
	readme.CheckRepository(t, 1, readme.Either(readme.Using("temporal."), readme.In("hitl/temporal")), `package snippet

import (
	"context"

	tclient "go.temporal.io/sdk/client"

	"github.com/hitlkit/hitlkit/hitl"
)

var (
	ctx            context.Context
	temporalClient tclient.Client
	client         *hitl.Client
	it             *hitl.Interrupt
	deliveryID     string
)
`, map[string]string{
		"temporal": "github.com/hitlkit/hitlkit/hitl/temporal",
		"tclient":  "go.temporal.io/sdk/client",
		"worker":   "go.temporal.io/sdk/worker",
		"hitl":     "github.com/hitlkit/hitlkit/hitl",
	})
}
