package readme

import (
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docBlock is one code block of a doc comment: the text godoc shows indented.
type docBlock struct {
	file string // relative to the repository's root
	line int    // of the comment that holds it
	text string
}

// docCodeBlocks returns the code blocks of the doc comments (package, declaration and field
// comments) of every non-test Go file of the repository, nested modules included.
func docCodeBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	var (
		out []docBlock
		p   comment.Parser
	)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var groups []*ast.CommentGroup
		ast.Inspect(f, func(n ast.Node) bool {
			var g *ast.CommentGroup
			switch n := n.(type) {
			case *ast.File:
				g = n.Doc
			case *ast.FuncDecl:
				g = n.Doc
			case *ast.GenDecl:
				g = n.Doc
			case *ast.TypeSpec:
				g = n.Doc
			case *ast.ValueSpec:
				g = n.Doc
			case *ast.Field:
				g = n.Doc
			}
			if g != nil {
				groups = append(groups, g)
			}
			return true
		})
		for _, g := range groups {
			for _, b := range p.Parse(g.Text()).Content {
				if c, ok := b.(*comment.Code); ok {
					out = append(out, docBlock{filepath.ToSlash(rel), firstLine(fset, g, c.Text), c.Text})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstLine returns the line of the file on which code, a block of g, begins (the line of
// g's first comment when no line of g holds code's first line).
func firstLine(fset *token.FileSet, g *ast.CommentGroup, code string) int {
	first := strings.TrimSpace(strings.SplitN(code, "\n", 2)[0])
	for _, c := range g.List {
		if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == first {
			return fset.Position(c.Pos()).Line
		}
	}
	return fset.Position(g.Pos()).Line
}

// goLike matches what only Go code holds: a short variable declaration or a call of an
// exported name of a package. A table or a diagram in a doc comment holds neither.
var goLike = regexp.MustCompile(`:=|\b[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*[({]`)

// isCommand reports whether the block's first line is a command (see TestShellCommands).
func isCommand(text string) bool {
	words := strings.Fields(strings.SplitN(text, "\n", 2)[0])
	for len(words) > 1 && strings.Contains(words[0], "=") {
		words = words[1:]
	}
	return len(words) > 0 && commandWords[words[0]]
}

// docStubs add to RootStubs what the doc comments' code takes from the reader's test or
// program: the test, the model's output, an Asker, a wait's decoder and push sources.
const docStubs = `
var (
	t           *testing.T
	modelOutput []byte
	ask         a2a.Asker
	f           hitl.Forwarder
	decode      func([]byte) (*transport.Result, bool, error)
	pushes      []func(context.Context, func(), func(*transport.Result)) error
	fake        http.Handler
	w           *transport.Wait[*transport.Result]
	wh          *transport.Webhook
	id          string
)
`

// TestDocCommentsCompile: every code block of a doc comment in the root module that holds
// Go (a short declaration or a call of a package's exported name) type-checks, wrapped as
// Markdown blocks are (see Check); blocks of commands are checked by
// TestDocCommentCommands; tables and diagrams are left alone. A nested module's doc
// comments hold no Go block (it would need that module's tests to check it).
func TestDocCommentsCompile(t *testing.T) {
	root := Root(t)
	nested := NestedDirs(t, root)
	inNested := func(file string) string {
		for _, dir := range nested {
			if strings.HasPrefix(file, dir+"/") {
				return dir
			}
		}
		return ""
	}
	var blocks []Block
	for _, b := range docCodeBlocks(t, root) {
		if isCommand(b.text) || !goLike.MatchString(b.text) {
			continue
		}
		if dir := inNested(b.file); dir != "" {
			t.Errorf("%s:%d: a Go block in a doc comment of the module in %s: no test checks it there; show it in an Example or the module's README", b.file, b.line, dir)
			continue
		}
		blocks = append(blocks, Block{File: b.file, Line: b.line - 1, Code: b.text}) // Line: where a fence would be
	}
	if len(blocks) < 10 {
		t.Fatalf("found %d Go blocks in doc comments, want at least 10: the check found too little to check", len(blocks))
	}
	packages := map[string]string{"testing": "testing", "strings": "strings", "synctest": "testing/synctest", "httptest": "net/http/httptest",
		"a2atest": "github.com/hitlkit/hitlkit/a2a/a2atest", "hxptest": "github.com/hitlkit/hitlkit/hxp/hxptest",
		"transporttest": "github.com/hitlkit/hitlkit/transport/transporttest"}
	for k, v := range RootPackages {
		packages[k] = v
	}
	stubs := strings.Replace(RootStubs, "import (\n", "import (\n\t\"testing\"\n\t\"github.com/hitlkit/hitlkit/a2a\"\n", 1) + docStubs
	Check(t, blocks, stubs, packages)
}

// TestDocCommentCommands: every command a doc comment shows (a block whose first line is a
// go, cd, bash or npm command) runs what exists, checked as TestShellCommands checks the
// Markdown files' commands, from the repository's root.
func TestDocCommentCommands(t *testing.T) {
	root := Root(t)
	modules := modulePaths(t, root)
	checked := 0
	for _, b := range docCodeBlocks(t, root) {
		if !isCommand(b.text) {
			continue
		}
		for i, line := range strings.Split(strings.TrimRight(b.text, "\n"), "\n") {
			if strings.TrimSpace(stripComment(line)) == "" {
				continue
			}
			checked++
			checkCommandLine(t, root, b.file+":"+strconv.Itoa(b.line+i), line, modules)
		}
	}
	if checked < 10 {
		t.Errorf("checked %d commands in doc comments, want at least 10: the check found too little to check", checked)
	}
}
