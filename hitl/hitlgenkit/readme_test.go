package hitlgenkit_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks this module's README program as it stands, with the reader's own
// model stubbed.
func TestREADME(t *testing.T) {
	readme.CheckPrograms(t, "README.md", 1, `package main

import (
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

func yourModel(*genkit.Genkit) ai.Model { return nil }
`)
}
