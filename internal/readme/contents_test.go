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

// TestREADMEContents: in every Markdown file with a Contents section (the README, the
// performance figures), the Contents list every second-level heading, in order, each linked
// to its anchor, so a section added without its line is caught.
func TestREADMEContents(t *testing.T) {
	root := Root(t)
	withContents := 0
	for _, name := range MarkdownFiles(t, root) {
		raw, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if checkContents(t, name, string(raw)) {
			withContents++
		}
	}
	if withContents == 0 {
		t.Error("no Markdown file has a Contents section; the README must")
	}
}

// checkContents checks the Contents of one file, reporting whether it has any.
func checkContents(t *testing.T, name, text string) bool {
	t.Helper()
	var headings, listed []string
	inContents, inFence, has := false, false, false
	entry := regexp.MustCompile(`^- \[(.+)\]\(#([^)]+)\)$`)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence {
			continue
		}
		if h, ok := strings.CutPrefix(line, "## "); ok {
			inContents = h == "Contents"
			has = has || inContents
			if !inContents {
				headings = append(headings, h)
			}
			continue
		}
		if m := entry.FindStringSubmatch(line); inContents && m != nil {
			if want := anchor(strings.ReplaceAll(m[1], "`", "")); m[2] != want {
				t.Errorf("%s: contents: %q links to #%s, its heading's anchor is #%s", name, m[1], m[2], want)
			}
			listed = append(listed, m[1])
		}
	}
	if !has {
		return false
	}
	if diff := cmp.Diff(headings, listed); diff != "" {
		t.Errorf("%s: the Contents do not list its sections (-headings +contents); add a line per section:\n%s", name, diff)
	}
	return true
}

// TestREADMEIsAFrontPage: the README is a front page, at most 300 lines; the detail lives in
// the package documentation, the nested modules' READMEs and examples/scale/README.md.
func TestREADMEIsAFrontPage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(Root(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 300 {
		t.Errorf("README.md has %d lines, at most 300: move the detail next to the code it describes", n)
	}
}
