package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz[A-Za-z0-9_]*)\(`)

// docParagraphs returns the paragraphs of a doc.go's comments (lines between blank comment
// lines), each as one string.
func docParagraphs(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for _, line := range strings.Split(string(raw), "\n") {
		text, ok := strings.CutPrefix(line, "//")
		if !ok || strings.TrimSpace(text) == "" {
			flush()
			continue
		}
		cur.WriteString(text)
		cur.WriteByte(' ')
	}
	flush()
	return out
}

// TestFuzzTargetsNamed: every fuzz target of the core module is named in its package's
// doc.go or, for a building block under internal/, in a paragraph of a doc.go that names
// the block's directory too (package transport's "Fuzzing"), so the documentation says what
// is fuzzed and where, and a target added without a word about it is caught.
func TestFuzzTargetsNamed(t *testing.T) {
	root := Root(t)
	nested := NestedDirs(t, root)
	var docs []string // every doc.go of the core module, relative to root
	for _, name := range docFiles(t, root) {
		if !slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(name, dir+"/") }) {
			docs = append(docs, name)
		}
	}
	paragraphs := map[string][]string{}
	for _, name := range docs {
		paragraphs[name] = docParagraphs(t, filepath.Join(root, name))
	}
	targets := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || slices.Contains(nested, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), "_test.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(raw), -1) {
			targets++
			name, found := m[1], false
			word := regexp.MustCompile(`\b` + name + `\b`)
			for doc, ps := range paragraphs {
				for _, p := range ps {
					if word.MatchString(p) && (filepath.ToSlash(filepath.Dir(doc)) == dir || strings.HasPrefix(dir, "internal/") && strings.Contains(p, dir)) {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("%s: %s is named in no doc.go: say what it fuzzes in %s/doc.go (for a building block under internal/, in package transport's \"Fuzzing\", naming %s)", rel, name, dir, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets < 10 {
		t.Errorf("found %d fuzz targets in the core module, want at least 10: the check found too little to check", targets)
	}
}
