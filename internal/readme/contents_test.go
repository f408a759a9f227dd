package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

// anchor is the link target GitHub gives a heading: lower case, punctuation dropped, spaces
// as hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestREADMEContents: the table of contents lists every second-level heading, in order, each
// linked to its anchor, so a section added without its line is caught.
func TestREADMEContents(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headings, listed []string
	inContents, inFence := false, false
	entry := regexp.MustCompile(`^- \[(.+)\]\(#([^)]+)\)$`)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok {
			inContents = h == "Contents"
			if !inContents {
				headings = append(headings, h)
			}
			continue
		}
		if m := entry.FindStringSubmatch(line); inContents && m != nil {
			if want := anchor(strings.ReplaceAll(m[1], "`", "")); m[2] != want {
				t.Errorf("contents: %q links to #%s, its heading's anchor is #%s", m[1], m[2], want)
			}
			listed = append(listed, m[1])
		}
	}
	if diff := cmp.Diff(headings, listed); diff != "" {
		t.Errorf("README's Contents do not list its sections (-headings +contents); add a line per section:\n%s", diff)
	}
}
