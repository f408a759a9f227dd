package acme_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoInternalImports: the example is written on hitlkit's public packages alone, as a
// package outside the module must be, tests and fake included.
func TestNoInternalImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	if len(files) < 3 {
		t.Fatalf("found %d files", len(files))
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if strings.Contains(imp.Path.Value, "/internal/") || strings.Contains(imp.Path.Value, "/internal\"") {
				t.Errorf("%s imports %s", name, imp.Path.Value)
			}
		}
	}
}
