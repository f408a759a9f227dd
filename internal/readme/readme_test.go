package readme

import (
	"path/filepath"
	"testing"
)

// TestREADMECompiles type-checks every Go block of README.md that uses only this module's
// packages (the blocks of the nested modules are checked by their own tests).
func TestREADMECompiles(t *testing.T) {
	CheckFile(t, filepath.Join("..", "..", "README.md"), 5, func(b Block) bool { return !UsesNested(b.Code) },
		RootStubs, RootPackages)
}
