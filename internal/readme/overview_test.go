package readme

import (
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// overviewPackages are the packages whose documentation is a reader's way in: the
// protocols, the wait engine and the fakes.
var overviewPackages = []string{"hitl", "a2a", "hxp", "hi", "transport",
	"hitl/hitltest", "a2a/a2atest", "hxp/hxptest", "transport/transporttest"}

// screenLines is a screen of go doc: the overview must fit in it.
const screenLines = 50

// packageDoc returns the package comment of the package in dir.
func packageDoc(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			return f.Doc.Text()
		}
	}
	t.Fatalf("%s: no package comment", dir)
	return ""
}

// TestOverviewsFitAScreen: the overview of each package a reader starts from — its
// documentation before the first heading, as go doc prints it — holds a first example (a
// code block) and fits on a screen of go doc; the detail goes under headings below it.
func TestOverviewsFitAScreen(t *testing.T) {
	root := Root(t)
	var p comment.Parser
	for _, pkg := range overviewPackages {
		d := p.Parse(packageDoc(t, filepath.Join(root, pkg)))
		overview := &comment.Doc{Links: d.Links}
		for _, b := range d.Content {
			if _, ok := b.(*comment.Heading); ok {
				break
			}
			overview.Content = append(overview.Content, b)
		}
		hasCode := false
		for _, b := range overview.Content {
			if _, ok := b.(*comment.Code); ok {
				hasCode = true
			}
		}
		if !hasCode {
			t.Errorf("%s: the package overview (before the first heading) shows no example: open it with a first one", pkg)
		}
		pr := comment.Printer{TextPrefix: "    ", TextCodePrefix: "    \t", TextWidth: 76}
		text := strings.TrimRight(string(pr.Text(overview)), "\n")
		if n := strings.Count(text, "\n") + 1; n > screenLines {
			t.Errorf("%s: the package overview is %d lines in go doc, over a screen (%d): move the detail under a heading", pkg, n, screenLines)
		}
	}
}
