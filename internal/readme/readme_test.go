package readme

import (
	"testing"
)

// TestMarkdownCompiles type-checks every Go block of every Markdown file of the repository
// that uses only this module's packages: the blocks of a nested module's own README, and
// blocks that use a nested module's packages, are checked by that module's tests.
func TestMarkdownCompiles(t *testing.T) {
	root := Root(t)
	var nested []func(Block) bool
	for _, dir := range NestedDirs(t, root) {
		nested = append(nested, In(dir))
	}
	CheckRepository(t, 4, func(b Block) bool {
		for _, in := range nested {
			if in(b) {
				return false
			}
		}
		return !UsesNested(b.Code)
	}, RootStubs, RootPackages)
}
