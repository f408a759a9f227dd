package hitleino_test

import (
	"testing"

	"github.com/hitlkit/hitlkit/internal/readme"
)

// TestREADME type-checks this module's README program as it stands, with the reader's own
// model and checkpoint store stubbed.
func TestREADME(t *testing.T) {
	readme.CheckPrograms(t, "README.md", 1, `package main

import (
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
)

func yourChatModel() model.ToolCallingChatModel          { return nil }
func yourDurableCheckPointStore() adk.CheckPointStore { return nil }
`)
}
