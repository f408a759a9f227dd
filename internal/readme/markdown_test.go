package readme

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fenced is one fenced block of a Markdown file, with the language its opening fence names.
type fenced struct {
	lang  string
	line  int // of the opening fence
	lines []string
}

// document is a Markdown file read once: its fenced blocks, and its prose lines (outside any
// fence) by line number.
type document struct {
	name   string
	blocks []fenced
	prose  map[int]string
}

func readDocument(t *testing.T, root, name string) document {
	t.Helper()
	f, err := os.Open(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := document{name: name, prose: map[int]string{}}
	var cur *fenced
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fenced{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: n}
		case cur != nil && trimmed == "```":
			d.blocks = append(d.blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		default:
			d.prose[n] = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s:%d: a fence that is never closed", name, cur.line)
	}
	return d
}

func documents(t *testing.T) (string, []document) {
	t.Helper()
	root := Root(t)
	var out []document
	for _, name := range MarkdownFiles(t, root) {
		out = append(out, readDocument(t, root, name))
	}
	if len(out) == 0 {
		t.Fatal("no Markdown file found")
	}
	return root, out
}

var (
	codeSpan   = regexp.MustCompile("`[^`]*`")
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	refLink    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// anchors returns the link targets GitHub gives the headings of d (a repeated heading's
// second anchor ends in -1, and so on).
func (d document) anchors() map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	lines := make([]int, 0, len(d.prose))
	for n := range d.prose {
		lines = append(lines, n)
	}
	slices.Sort(lines)
	for _, n := range lines {
		m := heading.FindStringSubmatch(d.prose[n])
		if m == nil {
			continue
		}
		a := anchor(strings.ReplaceAll(m[1], "`", ""))
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinksResolve: every relative link of every Markdown file names a file or directory of
// the repository, and every #fragment a heading of the Markdown file it points into.
func TestLinksResolve(t *testing.T) {
	root, docs := documents(t)
	byName := map[string]document{}
	for _, d := range docs {
		byName[d.name] = d
	}
	checked := 0
	for _, d := range docs {
		for n, line := range d.prose {
			line = codeSpan.ReplaceAllString(line, "")
			var targets []string
			for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
				targets = append(targets, m[1])
			}
			if m := refLink.FindStringSubmatch(line); m != nil {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, frag, _ := strings.Cut(target, "#")
				into := d
				if path != "" {
					rel := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(d.name), path)))
					if strings.HasPrefix(rel, "../") {
						t.Errorf("%s:%d: %q points outside the repository", d.name, n, target)
						continue
					}
					if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
						t.Errorf("%s:%d: %q: no such file or directory in the repository (%s)", d.name, n, target, rel)
						continue
					}
					if frag == "" {
						continue
					}
					var ok bool
					if into, ok = byName[rel]; !ok {
						t.Errorf("%s:%d: %q: a fragment of a file that is not Markdown", d.name, n, target)
						continue
					}
				}
				if frag != "" && !into.anchors()[frag] {
					t.Errorf("%s:%d: %q: %s has no heading whose anchor is #%s", d.name, n, target, into.name, frag)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found: the check found nothing to check")
	}
}

var (
	testName = regexp.MustCompile(`\b((?:Test|Benchmark|Fuzz|Example)[A-Z0-9_][A-Za-z0-9_]*)`)
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz|Example)[A-Za-z0-9_]*)\(`)
)

// testFuncs returns the test, benchmark, fuzz and example functions of the _test.go files
// under dir (every file of the repository when dir is its root), by name.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
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
		for _, m := range testFunc.FindAllStringSubmatch(string(raw), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docFiles returns every doc.go of the repository, relative to root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "doc.go" {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNamedTestsExist: every test, benchmark, fuzz target or example a Markdown file or a
// package's doc.go names — the tests that hold each guarantee the documents state — is a
// function of some _test.go file of the repository.
func TestNamedTestsExist(t *testing.T) {
	root, docs := documents(t)
	funcs := testFuncs(t, root)
	named := 0
	check := func(where string, text string) {
		for _, m := range testName.FindAllStringSubmatch(text, -1) {
			named++
			if !funcs[m[1]] {
				t.Errorf("%s names %s, which no _test.go file of the repository defines", where, m[1])
			}
		}
	}
	for _, d := range docs {
		for n, line := range d.prose {
			check(d.name+":"+strconv.Itoa(n), line)
		}
	}
	for _, name := range docFiles(t, root) {
		raw, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			check(name+":"+strconv.Itoa(i+1), line)
		}
	}
	if named == 0 {
		t.Error("no document names a test: the check found nothing to check")
	}
}
