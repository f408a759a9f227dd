package readme

import (
	"os"
	"path/filepath"
	"testing"
)

// TestREADMECompiles type-checks every Go block of README.md that uses only this module's
// packages (the blocks of the nested modules are checked by their own tests).
func TestREADMECompiles(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []Block
	for _, b := range GoBlocks(f) {
		if !UsesNested(b.Code) {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) < 5 {
		t.Fatalf("found %d Go blocks in README.md", len(blocks))
	}
	Check(t, blocks, RootStubs, RootPackages)
}
