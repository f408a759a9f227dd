package temporal_test

import (
	"path/filepath"
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks the README's blocks that use this module.
func TestREADME(t *testing.T) {
	readme.CheckFile(t, filepath.Join("..", "..", "README.md"), 1, readme.Using("temporal."), `package snippet

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
